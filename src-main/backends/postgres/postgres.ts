/**
 * A value in PostgreSQL (`pg://TABLE/KEY/COLUMN`) behind the Backend interface,
 * through the `pg` driver.
 *
 * Bytes: a bytea column is its bytes; a text (varchar) column is its UTF-8 bytes
 * (the database must be UTF8, checked once), so byte offsets are exact for UTF-8:
 * ranges are `substring(convert_to(col, 'UTF8') from S for N)` on octets, never
 * `substring(text)` (which counts characters). Cost: a bytea column stored
 * EXTERNAL (uncompressed) reads a range by fetching only its TOAST chunks; a text
 * column is converted whole on the server for each range (PostgreSQL cannot slice
 * text by bytes), so big text values read slower than bytea (docs/API.md). jsonb
 * is its text as PostgreSQL prints it (`col::text`); JSONPath reads of it run in the
 * database (postgres-jsonpath.ts), and edits are splices of that text the database
 * must print back exactly (postgres-jsonb.ts computes them with jsonb_set/jsonb_insert).
 *
 * Version: `xmin` (the transaction that wrote the row version) plus `ctid` (where
 * that version lives: two updates in one transaction share an xmin, never a ctid),
 * and the size. A replace is one statement,
 *   UPDATE t SET col = overlay(col placing $new from S for N)
 *   WHERE key = $1 AND xmin = $x AND ctid = $c RETURNING xmin, ctid, octet_length(col)
 * so of concurrent writers of one version exactly one matches (the others re-check
 * the WHERE on the new row version under READ COMMITTED and match nothing).
 *
 * Index sidecars live in a Folio table (`folio_index` unless configured): one row
 * per (locator, name) with the version token they were built for.
 */
import type pg from 'pg';
import { FolioError } from '../../engine/errors.ts';
import type { Backend, BackendVersion } from '../../engine/backend/types.ts';
import { formatLocator } from '../../engine/backend/locator.ts';
import type { JsonAddress, Segment } from '../../engine/address/json-select.ts';
import { jsonbSelectSql } from './postgres-jsonpath.ts';
import { pgError, poolFor, type PostgresConfig } from './postgres-pool.ts';
import {
  byteQuery,
  columnMeta,
  ident,
  requireUtf8,
  splitToken,
  STREAM_CHUNK,
  STREAM_ROWS,
  tokenOf,
  type ColumnMeta,
  type PgLocator,
} from './postgres-column.ts';

export { closePostgresPools, type PostgresConfig } from './postgres-pool.ts';

/** What a JSONPath selects in a jsonb value: each node's location, text (as PostgreSQL prints it) and byte offset in the value's text. */
export interface JsonbSelection {
  version: BackendVersion;
  nodes: { segments: Segment[]; text: string; startByte: number }[];
}

/** A jsonb edit at `path` (names, and array indexes in decimal), as jsonb_set / jsonb_insert / #- take it. */
export type JsonbEdit =
  { op: 'set'; path: string[]; value: unknown } | { op: 'insert'; path: string[]; value: unknown; append: boolean } | { op: 'delete'; path: string[] };

export class PostgresBackend implements Backend {
  readonly scheme = 'pg' as const;
  readonly locator: string;
  private readonly pool: pg.Pool;
  private readonly indexTable: string;
  private indexTableReady: Promise<void> | undefined;

  constructor(
    private readonly loc: PgLocator,
    cfg: PostgresConfig = {},
  ) {
    this.locator = formatLocator(loc);
    this.pool = poolFor(cfg);
    this.indexTable = ident(cfg.indexTable ?? 'folio_index');
  }

  private async meta(): Promise<ColumnMeta> {
    try {
      const m = await columnMeta(this.pool, this.loc, this.locator);
      if (m.kind !== 'bytea') await requireUtf8(this.pool, this.locator);
      return m;
    } catch (err) {
      throw pgError(err, this.locator);
    }
  }

  /** The SQL for the value's bytes. */
  private bytesExpr(m: ColumnMeta): string {
    return m.kind === 'bytea' ? m.column : m.kind === 'text' ? `convert_to(${m.column}, 'UTF8')` : `convert_to(${m.column}::text, 'UTF8')`;
  }

  /** Bytes of the value without converting it (octet_length of UTF8 text is its UTF-8 length). */
  private sizeExpr(m: ColumnMeta): string {
    return m.kind === 'jsonb' ? `octet_length(${m.column}::text)` : `octet_length(${m.column})`;
  }

  private absent(): FolioError {
    return new FolioError('not_found', `${this.locator}: no such row, or its ${this.loc.column} is NULL`, { path: this.locator });
  }

  private changed(current: BackendVersion | null, asked: string): FolioError {
    if (!current) return this.absent();
    return new FolioError('precondition_failed', `${this.locator} changed: it is version ${current.token}, not ${asked}`, {
      path: this.locator,
      failed: ['version'],
      current,
    });
  }

  async stat(): Promise<BackendVersion> {
    const v = await this.statOrNull();
    if (!v) throw this.absent();
    return v;
  }

  private async statOrNull(): Promise<BackendVersion | null> {
    const m = await this.meta();
    try {
      const r = await this.pool.query<{ x: string; c: string; n: string | null }>(
        `SELECT xmin::text AS x, ctid::text AS c, ${this.sizeExpr(m)}::text AS n FROM ${m.table} WHERE ${m.keyColumn} = $1`,
        [this.loc.key],
      );
      const row = r.rows[0];
      if (!row || row.n === null) return null;
      return { token: tokenOf(row.x, row.c), size: Number(row.n) };
    } catch (err) {
      throw pgError(err, this.locator);
    }
  }

  async read(start: number, end: number, token?: string): Promise<Uint8Array> {
    const m = await this.meta();
    const len = Math.max(0, end - start);
    let row: { x: string; c: string; b: Buffer | null } | undefined;
    try {
      const r = await this.pool.query<{ x: string; c: string; b: Buffer | null }>(
        byteQuery(
          `SELECT xmin::text AS x, ctid::text AS c, substring(${this.bytesExpr(m)} from $2::int for $3::int) AS b
             FROM ${m.table} WHERE ${m.keyColumn} = $1`,
          [this.loc.key, start + 1, len],
        ),
      );
      row = r.rows[0];
    } catch (err) {
      throw pgError(err, this.locator);
    }
    if (!row || row.b === null) throw this.absent();
    const x = String(row.x);
    const c = String(row.c);
    if (token !== undefined && tokenOf(x, c) !== token) throw this.changed(await this.statOrNull(), token);
    return new Uint8Array(row.b.buffer, row.b.byteOffset, row.b.byteLength);
  }

  /**
   * The value from `start` in 8 MiB rows of one cursor: the value is converted once
   * on the server (a text column too), and the rows come as the client asks.
   */
  async *stream(start = 0, token?: string): AsyncIterable<Uint8Array> {
    const m = await this.meta();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw pgError(err, this.locator);
    }
    let began = false;
    let pending: Promise<unknown> | null = null;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      began = true;
      await client.query({
        // OFFSET 0 keeps the subquery from being pulled up, so a text value is converted
        // once, not once per row; no ORDER BY (generate_series yields in order, and a
        // sort would materialize the whole value before the first row).
        text: `DECLARE folio_stream NO SCROLL CURSOR FOR
               SELECT s.x, s.c, substring(s.b from g for ${STREAM_CHUNK}) AS b
                 FROM (SELECT xmin::text AS x, ctid::text AS c, ${this.bytesExpr(m)} AS b FROM ${m.table} WHERE ${m.keyColumn} = $1 OFFSET 0) s,
                      generate_series($2::int, greatest(octet_length(s.b), 1), ${STREAM_CHUNK}) g`,
        values: [this.loc.key, start + 1],
      });
      let first = true;
      const fetch = () => client.query<{ x: string; c: string; b: Buffer | null }>(byteQuery(`FETCH ${STREAM_ROWS} FROM folio_stream`));
      let next: ReturnType<typeof fetch> | null = fetch();
      while (next) {
        const r: Awaited<ReturnType<typeof fetch>> = await next;
        // The server prepares the next rows while these are consumed.
        next = r.rows.length === STREAM_ROWS ? fetch() : null;
        pending = next;
        if (first) {
          first = false;
          const row = r.rows[0];
          if (!row) {
            // No row, a NULL value, or start past the end: which one?
            const now = await this.statOrNull();
            if (!now) throw this.absent();
            if (token !== undefined && now.token !== token) throw this.changed(now, token);
            return;
          }
          if (token !== undefined && tokenOf(String(row.x), String(row.c)) !== token) throw this.changed(await this.statOrNull(), token);
        }
        for (const row of r.rows) if (row.b && row.b.length) yield new Uint8Array(row.b.buffer, row.b.byteOffset, row.b.byteLength);
      }
    } catch (err) {
      throw pgError(err, this.locator);
    } finally {
      // A consumer that stopped early leaves a FETCH in flight: it settles before the rollback.
      if (pending) await pending.catch(() => undefined);
      if (began) await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  }

  async replace(start: number, end: number, content: Uint8Array, ifToken: string): Promise<BackendVersion> {
    const m = await this.meta();
    const { xmin, ctid } = splitToken(ifToken, this.locator);
    const spliced = `overlay(${this.bytesExpr(m)} placing $2::bytea from $3::int for $4::int)`;
    const asText = `convert_from(${spliced}, 'UTF8')`;
    const value = m.kind === 'bytea' ? spliced : m.kind === 'text' ? asText : `(${asText})::jsonb`;
    // jsonb keeps its own text: a splice applies only if PostgreSQL prints the result as
    // exactly the spliced text, so the journal's bytes are the value's and undo is a splice too.
    const canonical = m.kind === 'jsonb' ? ` AND (${asText})::jsonb::text = ${asText}` : '';
    const params = [this.loc.key, Buffer.from(content.buffer, content.byteOffset, content.byteLength), start + 1, Math.max(0, end - start), xmin, ctid];
    let row: { x: string; c: string; n: string } | undefined;
    try {
      const r = await this.pool.query<{ x: string; c: string; n: string }>(
        `UPDATE ${m.table} SET ${m.column} = ${value}
          WHERE ${m.keyColumn} = $1 AND xmin = $5::xid AND ctid = $6::tid${canonical}
          RETURNING xmin::text AS x, ctid::text AS c, ${this.sizeExpr(m)}::text AS n`,
        params,
      );
      row = r.rows[0];
    } catch (err) {
      if (m.kind === 'jsonb' && (err as { code?: string }).code === '22P02') {
        throw new FolioError('parse_error', `${this.locator}: the edit leaves text that is not JSON (${(err as Error).message}); nothing was written`, {
          path: this.locator,
          sql_state: '22P02',
        });
      }
      throw pgError(err, this.locator);
    }
    if (!row) {
      const now = await this.statOrNull();
      if (m.kind === 'jsonb' && now?.token === ifToken) {
        const r = await this.pool
          .query<{ t: string }>(`SELECT left((${asText})::jsonb::text, 2000) AS t FROM ${m.table} WHERE ${m.keyColumn} = $1`, params.slice(0, 4))
          .catch(() => ({ rows: [] as { t: string }[] }));
        throw new FolioError(
          'invalid_input',
          `${this.locator}: jsonb keeps its own text, and this edit's text is not it (PostgreSQL would print it otherwise); nothing was written`,
          {
            path: this.locator,
            printed_as: r.rows[0]?.t ?? null,
            hint: 'edit a jsonb value with a json target (target: {json: {path, op, value}}), or write the text as PostgreSQL prints it',
          },
        );
      }
      throw this.changed(now, ifToken);
    }
    return { token: tokenOf(row.x, row.c), size: Number(row.n) };
  }

  /** jsonb only: null for other columns. The nodes `address` selects, found by PostgreSQL (postgres-jsonpath.ts); Untranslatable escapes. */
  async jsonbSelect(address: JsonAddress, limit: number): Promise<JsonbSelection | null> {
    const m = await this.meta();
    if (m.kind !== 'jsonb') return null;
    const { text, values } = jsonbSelectSql(address, m, limit);
    let rows: { x: string; c: string; n: string | null; p: Segment[] | null; text: string | null; off: string | null }[];
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw pgError(err, this.locator);
    }
    try {
      // The planner's guess of 100 rows per jsonb_each makes nested walks look costly
      // enough to JIT-compile: seconds of compiling for a millisecond's work (measured).
      await client.query('BEGIN READ ONLY');
      await client.query('SET LOCAL jit = off');
      rows = (await client.query({ text, values: [this.loc.key, ...values] })).rows;
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw pgError(err, this.locator);
    } finally {
      client.release();
    }
    const first = rows[0];
    if (!first || first.n === null) throw this.absent();
    return {
      version: { token: tokenOf(first.x, first.c), size: Number(first.n) },
      nodes: rows.filter((r) => r.p !== null).map((r) => ({ segments: r.p!, text: r.text!, startByte: Number(r.off) })),
    };
  }

  /** Whether the column is jsonb (its JSON reads and edits go through PostgreSQL: postgres-jsonb.ts). */
  async isJsonb(): Promise<boolean> {
    return (await this.meta()).kind === 'jsonb';
  }

  /** jsonb only: the value's text (as PostgreSQL prints it) and version; null for other columns. */
  async jsonbText(): Promise<{ version: BackendVersion; text: string } | null> {
    const m = await this.meta();
    if (m.kind !== 'jsonb') return null;
    const r = await this.pool
      .query<{ x: string; c: string; t: string | null }>(
        `SELECT xmin::text AS x, ctid::text AS c, ${m.column}::text AS t FROM ${m.table} WHERE ${m.keyColumn} = $1`,
        [this.loc.key],
      )
      .catch((err) => {
        throw pgError(err, this.locator);
      });
    const row = r.rows[0];
    if (!row || row.t === null) throw this.absent();
    return { version: { token: tokenOf(row.x, row.c), size: Buffer.byteLength(row.t) }, text: row.t };
  }

  /**
   * jsonb only: the text of version `token` after `edit`, computed by PostgreSQL with
   * jsonb_set / jsonb_insert / #- (nothing written: the caller writes it as a splice
   * of the text, under the same version check); precondition_failed if the value is
   * no longer `token`.
   */
  async jsonbEdited(token: string, edit: JsonbEdit): Promise<string> {
    const m = await this.meta();
    const { xmin, ctid } = splitToken(token, this.locator);
    const v = m.column;
    const params: unknown[] = [this.loc.key, xmin, ctid];
    const param = (x: unknown, cast: string) => `$${params.push(x)}::${cast}`;
    const path = edit.path.length || edit.op !== 'set' ? param(edit.path, 'text[]') : '';
    const value = edit.op === 'delete' ? '' : param(JSON.stringify(edit.value), 'jsonb');
    const expr =
      edit.op === 'set'
        ? path
          ? `jsonb_set(${v}, ${path}, ${value}, true)`
          : value
        : edit.op === 'insert'
          ? edit.append
            ? `jsonb_set(${v}, ${path}, ${value}, true)`
            : `jsonb_insert(${v}, ${path}, ${value})`
          : `${v} #- ${path}`;
    const r = await this.pool
      .query<{ t: string }>(`SELECT (${expr})::text AS t FROM ${m.table} WHERE ${m.keyColumn} = $1 AND xmin = $2::xid AND ctid = $3::tid`, params)
      .catch((err) => {
        throw pgError(err, this.locator);
      });
    if (!r.rows[0]) throw this.changed(await this.statOrNull(), token);
    return r.rows[0].t;
  }

  async create(content: Uint8Array): Promise<BackendVersion> {
    const m = await this.meta();
    if (m.kind === 'jsonb') {
      throw new FolioError(
        'invalid_input',
        `${this.locator}: a jsonb value is not created by Folio (insert the row); its members are edited with json targets`,
        {
          path: this.locator,
        },
      );
    }
    const value = m.kind === 'bytea' ? '$2::bytea' : `convert_from($2::bytea, 'UTF8')`;
    let row: { x: string; c: string; n: string } | undefined;
    try {
      // A missing row is inserted; an existing row with a NULL value is filled; anything else stays.
      const r = await this.pool.query<{ x: string; c: string; n: string }>(
        `INSERT INTO ${m.table} AS t (${m.keyColumn}, ${m.column}) VALUES ($1, ${value})
           ON CONFLICT (${m.keyColumn}) DO UPDATE SET ${m.column} = EXCLUDED.${m.column} WHERE t.${m.column} IS NULL
         RETURNING xmin::text AS x, ctid::text AS c, ${this.sizeExpr(m).replace(m.column, `t.${m.column}`)}::text AS n`,
        [this.loc.key, Buffer.from(content.buffer, content.byteOffset, content.byteLength)],
      );
      row = r.rows[0];
    } catch (err) {
      throw pgError(err, this.locator);
    }
    if (!row) {
      throw new FolioError('precondition_failed', `${this.locator} exists: if_none_match "*" creates only new values`, {
        path: this.locator,
        failed: ['if_none_match'],
      });
    }
    return { token: tokenOf(row.x, row.c), size: Number(row.n) };
  }

  /** SHA-256 of the value, computed in the database (no bytes cross the wire), for expected_sha256. */
  async sha256(token: string): Promise<string> {
    const m = await this.meta();
    const r = await this.pool
      .query<{ x: string; c: string; h: string }>(
        `SELECT xmin::text AS x, ctid::text AS c, encode(sha256(${this.bytesExpr(m)}), 'hex') AS h FROM ${m.table} WHERE ${m.keyColumn} = $1`,
        [this.loc.key],
      )
      .catch((err) => {
        throw pgError(err, this.locator);
      });
    const row = r.rows[0];
    if (!row) throw this.absent();
    if (tokenOf(row.x, row.c) !== token) throw this.changed(await this.statOrNull(), token);
    return row.h;
  }

  private ensureIndexTable(): Promise<void> {
    this.indexTableReady ??= this.pool
      .query(
        `CREATE TABLE IF NOT EXISTS ${this.indexTable} (
           locator text NOT NULL, name text NOT NULL, version text NOT NULL, bytes bytea NOT NULL,
           PRIMARY KEY (locator, name))`,
      )
      .then(() => undefined)
      .catch((err) => {
        this.indexTableReady = undefined;
        // Two processes creating it at once: one wins, the other sees it exists.
        if ((err as { code?: string }).code === '23505' || (err as { code?: string }).code === '42P07') return;
        throw pgError(err, this.locator);
      });
    return this.indexTableReady;
  }

  readonly sidecar = {
    get: async (name: string, token: string): Promise<Uint8Array | null> => {
      try {
        await this.ensureIndexTable();
        const r = await this.pool.query<{ bytes: Buffer }>(
          byteQuery(`SELECT bytes FROM ${this.indexTable} WHERE locator = $1 AND name = $2 AND version = $3`, [this.locator, name, token]),
        );
        const b = r.rows[0]?.bytes;
        return b ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : null;
      } catch {
        return null; // no index table (no rights to make it): index again
      }
    },
    put: async (name: string, token: string, bytes: Uint8Array): Promise<void> => {
      await this.ensureIndexTable();
      await this.pool
        .query(
          `INSERT INTO ${this.indexTable} (locator, name, version, bytes) VALUES ($1, $2, $3, $4)
             ON CONFLICT (locator, name) DO UPDATE SET version = EXCLUDED.version, bytes = EXCLUDED.bytes`,
          [this.locator, name, token, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
        )
        .catch((err) => {
          throw pgError(err, this.locator);
        });
    },
  };

  async close(): Promise<void> {
    // The pool is shared by every value of one connection config (closePostgresPools ends it).
  }
}
