/**
 * `npm run bench -- query-start [--runs N]`: what a small query costs now that
 * each runs in a child process of its own (engine/search/log-query.ts), against
 * the worker thread it ran in before, measured in the same run, alternating:
 * the thread runs the same runQuery (log-query-worker.mjs) from a fresh Worker,
 * as log-query.ts did. The process either cold (a heap other than the default
 * skips the one started ahead) or warm (the one started after the last query, a
 * second later, as between two queries typed in the app). A 2000-line log,
 * `SELECT level, count(*) … GROUP BY level`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { queryLogs } from '../src-main/engine/search/log-query.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, median, table } from './lib.ts';
import { writeQueryLog } from '../test/fixtures/query-log.ts';

const SQL = 'SELECT level, count(*) FROM log GROUP BY level';
const WORKER_URL = new URL('../src-main/engine/search/log-query-worker.mjs', import.meta.url).href;

/** The query in a fresh worker thread, as log-query.ts ran it before (the file opened by the worker). */
function threadQuery(file: string): Promise<unknown> {
  const code = `import { parentPort, workerData } from 'node:worker_threads';
const { runQuery } = await import(workerData.url);
parentPort.postMessage(runQuery(workerData.job));`;
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), {
      workerData: { url: WORKER_URL, job: { files: [file], names: [file], sql: SQL, limit: 1000 } },
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    w.once('message', (m) => {
      void w.terminate();
      resolve(m);
    });
    w.once('error', reject);
  });
}

export async function benchQueryStart(o: BenchOptions): Promise<void> {
  mkdirSync(DATA_DIR, { recursive: true });
  const file = join(DATA_DIR, 'query-start.log');
  writeQueryLog(file, { lines: 2000 });
  const runs = Math.max(o.runs, 5);
  const thread: number[] = [];
  const cold: number[] = [];
  const warm: number[] = [];
  await queryLogs([file], SQL); // module loads and page cache, once
  await threadQuery(file);
  const pause = () => new Promise((r) => setTimeout(r, 1000)); // the process started ahead is up
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await threadQuery(file);
    thread.push(performance.now() - t);
    t = performance.now();
    await queryLogs([file], SQL, { heapMb: 255 });
    cold.push(performance.now() - t);
    await pause();
    t = performance.now();
    await queryLogs([file], SQL);
    warm.push(performance.now() - t);
    await pause();
  }
  const base = median(thread);
  const vs = (ms: number) => `${(ms / base).toFixed(2)}x, ${ms >= base ? '+' : ''}${(ms - base).toFixed(0)} ms`;
  process.stdout.write(`\n## query start (2000-line log, median of ${runs}, alternating)\n\n`);
  process.stdout.write(
    table([
      ['measure', 'ms', 'vs baseline'],
      [`worker thread (before): ${SQL}`, base.toFixed(1), 'baseline'],
      ['child process started for it (cold), same', median(cold).toFixed(1), vs(median(cold))],
      ['child process started ahead (warm), same', median(warm).toFixed(1), vs(median(warm))],
    ]) + '\n',
  );
}
