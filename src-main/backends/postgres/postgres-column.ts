/**
 * What postgres.ts needs to know of a value's column before it reads one: its table,
 * primary key and kind (bytea, text, jsonb), looked up once per pool; that a text
 * column's database is UTF8; and the version token of a row (xmin@ctid).
 */
import type pg from 'pg';
import { FolioError } from '../../engine/errors.ts';
import type { Locator } from '../../engine/backend/locator.ts';

export type PgLocator = Extract<Locator, { scheme: 'pg' }>;
export type Kind = 'bytea' | 'text' | 'jsonb';

export interface ColumnMeta {
  table: string;
  keyColumn: string;
  column: string;
  kind: Kind;
}

const metas = new WeakMap<pg.Pool, Map<string, Promise<ColumnMeta>>>();
const utf8Checked = new WeakMap<pg.Pool, Promise<void>>();

export function ident(name: string): string {
  return name
    .split('.')
    .map((n) => `"${n.replaceAll('"', '""')}"`)
    .join('.');
}

export async function columnMeta(pool: pg.Pool, loc: PgLocator, locator: string): Promise<ColumnMeta> {
  let byPool = metas.get(pool);
  if (!byPool) metas.set(pool, (byPool = new Map()));
  const key = `${loc.table}\0${loc.column}`;
  let m = byPool.get(key);
  if (!m) {
    m = (async () => {
      const table = ident(loc.table);
      // to_regclass: NULL (not an error) for a missing table.
      const t = await pool.query<{ oid: string | null }>('SELECT to_regclass($1)::oid::text AS oid', [table]);
      const oid = t.rows[0]?.oid;
      if (!oid) throw new FolioError('not_found', `${locator}: no table ${loc.table}`, { path: locator, table: loc.table });
      const cols = await pool.query<{ attname: string; type: string; pk: boolean }>(
        `SELECT a.attname, format_type(a.atttypid, NULL) AS type,
                EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY (i.indkey)) AS pk
           FROM pg_attribute a WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped`,
        [oid],
      );
      const pks = cols.rows.filter((r) => r.pk);
      if (pks.length !== 1) {
        throw new FolioError('invalid_input', `${locator}: table ${loc.table} needs a one-column primary key to name rows by (it has ${pks.length})`, {
          path: locator,
        });
      }
      const col = cols.rows.find((r) => r.attname === loc.column);
      if (!col) throw new FolioError('not_found', `${locator}: table ${loc.table} has no column ${loc.column}`, { path: locator, column: loc.column });
      const kind: Kind | null =
        col.type === 'bytea' ? 'bytea' : col.type === 'jsonb' ? 'jsonb' : ['text', 'character varying', 'character'].includes(col.type) ? 'text' : null;
      if (!kind) {
        throw new FolioError('invalid_input', `${locator}: column ${loc.column} is ${col.type}; Folio reads text, bytea and jsonb columns`, {
          path: locator,
          type: col.type,
        });
      }
      return { table, keyColumn: ident(pks[0]!.attname), column: ident(loc.column), kind };
    })();
    byPool.set(key, m);
    m.catch(() => byPool.delete(key));
  }
  return m;
}

export async function requireUtf8(pool: pg.Pool, locator: string): Promise<void> {
  let p = utf8Checked.get(pool);
  if (!p) {
    p = pool.query<{ enc: string }>('SELECT current_setting($1) AS enc', ['server_encoding']).then((r) => {
      if (r.rows[0]?.enc !== 'UTF8') {
        throw new FolioError('encoding_mismatch', `${locator}: the database encoding is ${r.rows[0]?.enc}; Folio serves text columns of UTF8 databases`, {
          path: locator,
          encoding: r.rows[0]?.enc,
        });
      }
    });
    utf8Checked.set(pool, p);
    p.catch(() => utf8Checked.delete(pool));
  }
  return p;
}

/** The token of a row version. */
export function tokenOf(xmin: string, ctid: string): string {
  return `${xmin}@${ctid}`;
}

export function splitToken(token: string, locator: string): { xmin: string; ctid: string } {
  const m = /^(\d+)@(\(\d+,\d+\))$/.exec(token);
  if (!m) throw new FolioError('precondition_failed', `${locator}: "${token}" is not a version of a PostgreSQL value`, { path: locator, failed: ['version'] });
  return { xmin: m[1]!, ctid: m[2]! };
}

/** Rows of the index stream: 1 MiB each (measured: 1.5x the rate of 8 MiB rows; pg parses smaller messages faster), 16 per FETCH. */
export const STREAM_CHUNK = 1024 * 1024;
export const STREAM_ROWS = 16;

/**
 * Queries return bytea as hex text, which pg-types decodes natively. (pg's binary
 * result format is not used: its protocol parser reads every field as a UTF-8
 * string first, which mangles bytes that are not UTF-8.)
 */
export function byteQuery(text: string, values?: unknown[]): pg.QueryConfig {
  return { text, ...(values ? { values } : {}) };
}
