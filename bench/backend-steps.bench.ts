/**
 * Whole-value steps over a remote value against the same bytes in a local file, in
 * the same run (part of `npm run bench -- backends`; alone: `backend-steps`):
 * - index: the line index streamed from the backend (no sidecar) vs built locally (no cache);
 * - transfer: the value read once with 8 MiB ranged reads, nothing else (the floor);
 * - outline of 64 MiB of markdown, and its ratio to (local outline + transfer), the
 *   goal being at most 1.5; ranged reads per MiB of the value;
 * - search of the 64 MiB log with a regex only workers run (a backreference), count only.
 * Contenders: PostgreSQL (bytea, a server of our own: test/fixtures/postgres.ts) and
 * Azure blob on Azurite (test/fixtures/azurite.ts), both on loopback and on the same
 * cores as the engine.
 */
import { copyFileSync, createReadStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { outlineOf } from '../src-main/engine/address/markdown-outline.ts';
import { configureBackends } from '../src-main/backends/index.ts';
import { closePostgresPools } from '../src-main/backends/postgres/postgres.ts';
import { backendFor } from '../src-main/engine/backend/registry.ts';
import { forgetRemote, onRemote, openRemote, searchRemote } from '../src-main/engine/backend/remote.ts';
import { closeIndexPools } from '../src-main/engine/index/builder.ts';
import { forgetIndexes, openIndex } from '../src-main/engine/index/store.ts';
import { searchPath } from '../src-main/engine/search/search-path.ts';
import { closeSearchPools } from '../src-main/engine/search/search.ts';
import { startAzurite, type Azurite } from '../test/fixtures/azurite.ts';
import { bigMarkdown } from '../test/fixtures/markdown.ts';
import { startPostgres, type TestPostgres } from '../test/fixtures/postgres.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, median, syntheticLog, table } from './lib.ts';

const MiB = 1024 * 1024;
const STEP_BYTES = 64 * MiB;
const SEARCH = { pattern: 'ERROR .*(\\d)\\1 ', countOnly: true, timeoutMs: 600_000 };
/** Outline in 1 MiB chunks, the default, but past the per-version cache (each run parses). */
const OUTLINE = { chunkBytes: 1 << 20 };

interface Contender {
  name: string;
  /** Put the file's bytes under a locator; returns it. */
  put(file: string, key: string): Promise<string>;
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const r = await fn();
  return [performance.now() - t, r];
}

async function best(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) ms.push((await timed(fn))[0]);
  return median(ms);
}

/** `onRemote` from a fresh process state: the index from the sidecar, no block cached. */
function cold<T>(locator: string, fn: Parameters<typeof onRemote<T>>[1]): Promise<T> {
  forgetRemote();
  return onRemote(locator, fn);
}

/** Read the whole value once in 8 MiB ranged reads: the transfer floor of a pass. */
async function transferMs(locator: string): Promise<number> {
  const b = backendFor(locator);
  try {
    const v = await b.stat();
    const t = performance.now();
    for (let p = 0; p < v.size; p += 8 * MiB) await b.read(p, Math.min(v.size, p + 8 * MiB), v.token);
    return performance.now() - t;
  } finally {
    await b.close();
  }
}

export async function benchBackendSteps(o: BenchOptions): Promise<void> {
  const runs = Math.max(1, Math.min(o.runs, 3));
  const md = join(DATA_DIR, 'steps.md');
  const log = join(DATA_DIR, 'steps.log');
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(md, bigMarkdown(STEP_BYTES));
  copyFileSync(syntheticLog(STEP_BYTES), log);
  let pg: TestPostgres | undefined;
  let az: Azurite | undefined;
  const rows: (string | number)[][] = [];
  const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
  try {
    pg = await startPostgres();
    az = await startAzurite();
    configureBackends({ pg: { host: pg.host, port: pg.port, user: pg.user, database: pg.database }, az: { connectionString: az.directConnectionString } });
    await pg.client.query(`CREATE TABLE steps (id text PRIMARY KEY, raw bytea)`);
    await pg.client.query(`ALTER TABLE steps ALTER COLUMN raw SET STORAGE EXTERNAL`);
    const container = BlobServiceClient.fromConnectionString(az.directConnectionString).getContainerClient('steps');
    await container.create();
    const p = pg;
    const contenders: Contender[] = [
      {
        name: 'pg bytea',
        async put(file, key) {
          const copy = join(p.host, `${key}.bin`);
          copyFileSync(file, copy);
          await p.client.query(`INSERT INTO steps (id, raw) VALUES ($1, pg_read_binary_file($2))`, [key, copy]);
          rmSync(copy);
          return `pg://steps/${key}/raw`;
        },
      },
      {
        name: 'az (Azurite)',
        async put(file, key) {
          await container.getBlockBlobClient(key).uploadStream(createReadStream(file), 8 * MiB, 4);
          return `az://steps/${key}`;
        },
      },
    ];

    forgetIndexes();
    const localIndex = await best(runs, async () => {
      forgetIndexes();
      await openIndex(log, { noCache: true });
    });
    await openIndex(md);
    const localOutline = await best(runs, () => outlineOf(md, OUTLINE));
    const localSearch = await best(runs, () => searchPath(log, SEARCH));
    const localCount = (await searchPath(log, SEARCH)).count;
    rows.push(['local file', fmt(localIndex), '-', fmt(localOutline), '-', '-', fmt(localSearch)]);

    for (const c of contenders) {
      process.stderr.write(`putting 2 x ${STEP_BYTES / MiB} MiB in ${c.name}...\n`);
      const mdLoc = await c.put(md, 'md');
      const logLoc = await c.put(log, 'log');
      const indexMs = await best(1, async () => {
        forgetRemote();
        const v = await openRemote(logLoc);
        if (v.indexFrom !== 'stream') throw new Error(`${logLoc}: expected a streamed index, got ${v.indexFrom}`);
      });
      const transfer = await best(runs, () => transferMs(mdLoc));
      let readsPerMiB = 0;
      // Each run on a cold source (a fresh process state: the index from the sidecar, no cached block).
      const outline = await best(runs, () =>
        cold(mdLoc, async (v) => {
          const before = v.source.fetches;
          const r = await outlineOf(v.backend.locator, OUTLINE);
          readsPerMiB = (v.source.fetches - before) / (v.source.size / MiB);
          return r;
        }),
      );
      const search = await best(runs, async () => {
        forgetRemote();
        const r = await searchRemote(logLoc, SEARCH);
        if (r.count !== localCount) throw new Error(`${c.name}: search counted ${r.count}, the local file ${localCount}`);
      });
      rows.push([
        c.name,
        `${fmt(indexMs)} (${(indexMs / localIndex).toFixed(1)}x)`,
        fmt(transfer),
        `${fmt(outline)} (${(outline / localOutline).toFixed(1)}x)`,
        `${(outline / (localOutline + transfer)).toFixed(2)}`,
        readsPerMiB.toFixed(3),
        `${fmt(search)} (${(search / localSearch).toFixed(1)}x)`,
      ]);
    }
  } finally {
    rmSync(md, { force: true });
    rmSync(log, { force: true });
    forgetRemote();
    await closePostgresPools();
    await pg?.stop();
    await az?.stop();
    await closeIndexPools();
    await closeSearchPools();
  }
  process.stdout.write(`\nbackend steps: whole-value steps over ${STEP_BYTES / MiB} MiB, ms (x the local file's, same run; median of ${runs})\n`);
  process.stdout.write(
    table([
      [
        'contender',
        'index (stream / no cache)',
        'transfer (8 MiB reads)',
        'outline',
        'outline / (local + transfer)',
        'ranged reads per MiB',
        'search (workers)',
      ],
      ...rows,
    ]),
  );
}
