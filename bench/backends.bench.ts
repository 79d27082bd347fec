/**
 * `npm run bench -- backends`: the same operations on a ~1 GiB value in each
 * backend and on a local file with the same bytes, in the same run:
 * - index by streaming (no sidecar yet) beside a local index build (no cache);
 * - first window after open: a fresh process state (index from the sidecar / the
 *   disk cache) and a 64 KiB byte window at the start;
 * - a 64 KiB window at random offsets, p50 and p90 (each a new region: its blocks
 *   are fetched with one or two ranged reads);
 * - a middle replace: 10 lines in the middle under if_match (one conditional
 *   splice; the local file is rewritten through a temp file, fsync, rename).
 *
 * PostgreSQL: a server of our own (test/fixtures/postgres.ts), the value in a bytea
 * column stored EXTERNAL (ranged reads fetch only their TOAST chunks) and in a text
 * column (converted whole on the server per range: PostgreSQL cannot slice text by
 * bytes). A varlena holds at most 1 GB - 1 byte, so the value is 1023 MiB.
 *
 * Other backends add a row to ROWS (az://, s3://: their test servers and a
 * locator holding the same bytes).
 */
import { chmodSync, copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { closeIndexPools } from '../src-main/engine/index/builder.ts';
import { forgetIndexes, openIndex } from '../src-main/engine/index/store.ts';
import { read } from '../src-main/engine/read/read.ts';
import { upsert } from '../src-main/engine/write/upsert.ts';
import { configureBackends } from '../src-main/backends/index.ts';
import { closePostgresPools } from '../src-main/backends/postgres/postgres.ts';
import { forgetRemote, openRemote, readRemote } from '../src-main/engine/backend/remote.ts';
import { upsertRemote } from '../src-main/engine/backend/remote-upsert.ts';
import { startPostgres, type TestPostgres } from '../test/fixtures/postgres.ts';
import type { BenchOptions } from './main.ts';
import { benchBackendSteps } from './backend-steps.bench.ts';
import { DATA_DIR, median, percentile, syntheticLog, table, warmPageCache } from './lib.ts';

const VALUE_BYTES = 1023 * 1024 * 1024;
const WINDOW = 65536;
const WINDOWS = 25;

/** One backend's row: how to put the bench's bytes there, and the locator that names them. */
interface BackendRow {
  name: string;
  setup(localFile: string): Promise<{ locator: string; teardown(): Promise<void> }>;
}

interface Figures {
  indexMs: number;
  firstWindowMs: number;
  windowP50: number;
  windowP90: number;
  replaceMs: number;
}

let pg: TestPostgres | undefined;
async function postgres(): Promise<TestPostgres> {
  if (!pg) {
    pg = await startPostgres();
    configureBackends({ pg: { host: pg.host, port: pg.port, user: pg.user, database: pg.database } });
    await pg.client.query(`CREATE TABLE bench (id text PRIMARY KEY, raw bytea, body text)`);
    await pg.client.query(`ALTER TABLE bench ALTER COLUMN raw SET STORAGE EXTERNAL, ALTER COLUMN body SET STORAGE EXTERNAL`);
  }
  return pg;
}

/** The value loaded by the server from a copy of the file it may read (pg_read_binary_file: no 1 GiB string in this process). */
function pgRow(column: 'raw' | 'body'): BackendRow {
  return {
    name: `pg ${column === 'raw' ? 'bytea' : 'text'}`,
    async setup(localFile) {
      const p = await postgres();
      const copy = join(p.host, 'value.bin');
      copyFileSync(localFile, copy);
      chmodSync(copy, 0o644);
      const expr = column === 'raw' ? 'pg_read_binary_file($2)' : `convert_from(pg_read_binary_file($2), 'UTF8')`;
      await p.client.query(`INSERT INTO bench (id, ${column}) VALUES ($1, ${expr}) ON CONFLICT (id) DO UPDATE SET ${column} = EXCLUDED.${column}`, [
        column,
        copy,
      ]);
      rmSync(copy);
      return {
        locator: `pg://bench/${column}/${column}`,
        teardown: async () => void (await p.client.query(`DELETE FROM bench WHERE id = $1`, [column])),
      };
    },
  };
}

/** Backends measured beside the local file (az://, s3:// rows go here). */
const ROWS: BackendRow[] = [pgRow('raw'), pgRow('body')];

function replacement(run: string): string {
  let s = '';
  for (let i = 0; i < 10; i++) s += `2026-01-01T00:00:00.000Z INFO [bench] ${run} replaced line ${i}\n`;
  return s;
}

/** Random window offsets, the same for every contender. */
function offsets(size: number): number[] {
  let x = 12345;
  return Array.from({ length: WINDOWS }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((x / 2 ** 31) * (size - WINDOW));
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const r = await fn();
  return [performance.now() - t, r];
}

async function localFigures(file: string, size: number): Promise<Figures> {
  warmPageCache(file);
  forgetIndexes();
  const [indexMs] = await timed(() => openIndex(file, { noCache: true }));
  forgetIndexes(); // the next open reads the disk cache, as a new process would
  const [firstWindowMs] = await timed(() => read(file, { mode: 'bytes', startByte: 0, maxBytes: WINDOW }));
  const ws: number[] = [];
  for (const off of offsets(size)) ws.push((await timed(() => read(file, { mode: 'bytes', startByte: off, maxBytes: WINDOW })))[0]);
  const index = await openIndex(file);
  const mid = Math.floor(index.lineCount / 2);
  const etag = (await read(file, { mode: 'head', lines: 0 })).version.etag;
  const [replaceMs] = await timed(() =>
    upsert(file, { target: { kind: 'replace', start: mid, end: mid + 9, units: 'lines' }, content: replacement('local'), preconditions: { ifMatch: etag } }),
  );
  return { indexMs, firstWindowMs, windowP50: median(ws), windowP90: percentile(ws, 90), replaceMs };
}

async function remoteFigures(locator: string, size: number): Promise<Figures> {
  forgetRemote();
  const [indexMs, v] = await timed(() => openRemote(locator));
  if (v.indexFrom !== 'stream') throw new Error(`${locator}: expected a streamed index, got ${v.indexFrom}`);
  forgetRemote(); // a fresh process: the index comes from the sidecar
  const [firstWindowMs] = await timed(() => readRemote(locator, { mode: 'bytes', startByte: 0, maxBytes: WINDOW }));
  const ws: number[] = [];
  for (const off of offsets(size)) ws.push((await timed(() => readRemote(locator, { mode: 'bytes', startByte: off, maxBytes: WINDOW })))[0]);
  const opened = await openRemote(locator);
  const mid = Math.floor(opened.index.lineCount / 2);
  const etag = (await readRemote(locator, { mode: 'head', lines: 0 })).version.etag;
  const [replaceMs] = await timed(() =>
    upsertRemote(locator, {
      target: { kind: 'replace', start: mid, end: mid + 9, units: 'lines' },
      content: replacement('remote'),
      preconditions: { ifMatch: etag },
    }),
  );
  return { indexMs, firstWindowMs, windowP50: median(ws), windowP90: percentile(ws, 90), replaceMs };
}

export async function benchBackends(o: BenchOptions): Promise<void> {
  // Whole-value steps (outline, index, search) at 64 MiB first: their table does not wait for the 1 GiB part.
  await benchBackendSteps(o);
  const bytes = Math.min(o.size, VALUE_BYTES);
  const source = syntheticLog(bytes);
  const work = join(DATA_DIR, 'backends.log');
  copyFileSync(source, work);
  const size = (await openIndex(work)).size;
  const rows: (string | number)[][] = [];
  const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
  const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}x`;
  try {
    const local = await localFigures(work, size);
    rows.push(['local file', fmt(local.indexMs), fmt(local.firstWindowMs), fmt(local.windowP50), fmt(local.windowP90), fmt(local.replaceMs)]);
    for (const row of ROWS) {
      copyFileSync(source, work); // the same bytes as the local contender had
      const { locator, teardown } = await row.setup(work);
      try {
        const f = await remoteFigures(locator, size);
        rows.push([
          row.name,
          `${fmt(f.indexMs)} (${ratio(f.indexMs, local.indexMs)})`,
          `${fmt(f.firstWindowMs)} (${ratio(f.firstWindowMs, local.firstWindowMs)})`,
          `${fmt(f.windowP50)} (${ratio(f.windowP50, local.windowP50)})`,
          `${fmt(f.windowP90)} (${ratio(f.windowP90, local.windowP90)})`,
          `${fmt(f.replaceMs)} (${ratio(f.replaceMs, local.replaceMs)})`,
        ]);
      } finally {
        await teardown();
      }
    }
  } finally {
    rmSync(work, { force: true });
    await closePostgresPools();
    await pg?.stop();
    pg = undefined;
    await closeIndexPools();
  }
  process.stdout.write(`\nbackends: a ${(size / 1024 ** 2).toFixed(0)} MiB log, ms (x the local file's, same run)\n`);
  process.stdout.write(
    table([['contender', 'index (no cache)', 'first 64 KiB window', `64 KiB window p50 (${WINDOWS})`, 'p90', 'replace 10 middle lines'], ...rows]),
  );
}
