/**
 * `npm run bench -- jsonb`: JSONPath reads of a ~16 MiB jsonb value evaluated in
 * PostgreSQL (postgres-jsonpath.ts, what a read of a jsonb value does now) beside,
 * in the same run:
 * - Folio's own evaluation over the value's text (open the value: stream and
 *   index it, fetch its text, parse, json-p3): what a jsonb JSON read did before,
 *   and what match()/search() still do. Cold: a new version of the value (its
 *   index and parse are not cached); warm: the same version again (parse cached);
 * - the same query of a local file holding the same text (cold: first query of a
 *   new file version; warm: parse cached).
 * Each figure is the median of `--runs` runs, in ms; ratios are against the
 * PostgreSQL evaluation of the same query.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { readByInput, readJsonb } from '../src-main/api/read-address.ts';
import { loadJsonFile, queryJson } from '../src-main/engine/address/json-address.ts';
import { configureBackends } from '../src-main/backends/index.ts';
import { closePostgresPools } from '../src-main/backends/postgres/postgres.ts';
import { forgetRemote, onRemote } from '../src-main/engine/backend/remote.ts';
import { closeIndexPools } from '../src-main/engine/index/builder.ts';
import { startPostgres } from '../test/fixtures/postgres.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, median, table } from './lib.ts';

const ROWS = 60_000;
const QUERIES = ['$.rows[31234].name', '$.rows[?@.n == 45678].name', '$.rows[100:110].n', '$..[?@.tag == "rare"].n', '$.rows[?@.n > 59990 && @.flag].n'];

export async function benchJsonb(o: BenchOptions): Promise<void> {
  const pg = await startPostgres();
  try {
    configureBackends({ pg: { host: pg.host, port: pg.port, user: pg.user, database: pg.database } });
    await pg.client.query(`CREATE TABLE bench (id text PRIMARY KEY, meta jsonb)`);
    await pg.client.query(
      `INSERT INTO bench (id, meta) SELECT 'doc', jsonb_build_object('rows', jsonb_agg(jsonb_build_object(
         'n', g, 'name', 'row ' || g, 'flag', g % 2 = 0, 'tag', CASE WHEN g % 9973 = 0 THEN 'rare' ELSE 'common' END,
         'pad', repeat('x', 200)) ORDER BY g)) FROM generate_series(1, ${ROWS}) g`,
    );
    const text = (await pg.client.query(`SELECT meta::text AS t FROM bench WHERE id = 'doc'`)).rows[0].t as string;
    mkdirSync(DATA_DIR, { recursive: true });
    const file = join(DATA_DIR, 'jsonb-bench.json');
    writeFileSync(file, text);
    const loc = 'pg://bench/doc/meta';
    /** A new version of the value (same text), so nothing about it is cached. */
    const touch = () => pg.client.query(`UPDATE bench SET meta = meta WHERE id = 'doc'`);
    /** A new version of the file (same bytes). */
    const touchFile = () => writeFileSync(file, text);
    const time = async (before: () => unknown, fn: () => Promise<unknown>): Promise<number> => {
      const ms: number[] = [];
      for (let i = 0; i < o.runs; i++) {
        await before();
        const t = performance.now();
        await fn();
        ms.push(performance.now() - t);
      }
      return median(ms);
    };
    const viaText = (q: string) => onRemote(loc, async (v) => queryJson(await loadJsonFile(v.backend.locator), q, loc).length);
    const rows: (string | number)[][] = [];
    for (const q of QUERIES) {
      const inDb = await time(touch, () => readJsonb({ path: loc, json_path: q }).then((r) => r.answer!.json!.matches.length));
      const textCold = await time(
        async () => (await touch(), forgetRemote()),
        () => viaText(q),
      );
      const textWarm = await time(
        () => undefined,
        () => viaText(q),
      );
      const fileCold = await time(touchFile, () => readByInput({ path: file, json_path: q }));
      const fileWarm = await time(
        () => undefined,
        () => readByInput({ path: file, json_path: q }),
      );
      const x = (ms: number) => `${ms.toFixed(1)} (${(ms / inDb).toFixed(1)}x)`;
      rows.push([q, inDb.toFixed(1), x(textCold), x(textWarm), x(fileCold), x(fileWarm)]);
    }
    process.stdout.write(
      `\njsonb: a ${(Buffer.byteLength(text) / 1024 ** 2).toFixed(1)} MiB jsonb value, ${ROWS} rows; ms, median of ${o.runs} (x PostgreSQL's)\n`,
    );
    process.stdout.write(
      table([['query', 'in PostgreSQL', 'over the text, new version', 'over the text, again', 'local file, new version', 'local file, again'], ...rows]) + '\n',
    );
  } finally {
    await closePostgresPools();
    await closeIndexPools();
    await pg.stop();
  }
}
