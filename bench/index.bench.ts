/**
 * `npm run bench -- index [--size 2G]`: Folio's index+validate against, in the same
 * run on the same page-cached file: the read-only ceiling (1 thread and a pool),
 * `wc -l`, and Node's buffer.isUtf8 (simdutf). Also index memory and cache reopen.
 */
import { isUtf8 } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { buildIndex, closeIndexPools, startBuild } from '../src-main/engine/index/builder.ts';
import { forgetIndexes, openIndex } from '../src-main/engine/index/store.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, fileSize, gbps, syntheticLog, table, timeCommand, timeMedian, warmPageCache } from './lib.ts';

const CHUNK = 256 * 1024;

function readAll(file: string, start: number, end: number, each?: (buf: Buffer, n: number) => void): void {
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(CHUNK);
  try {
    for (let pos = start; pos < end;) {
      const n = readSync(fd, buf, 0, Math.min(CHUNK, end - pos), pos);
      if (n <= 0) break;
      each?.(buf, n);
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
}

/** The read-only ceiling with `threads` workers, each reading its share in 256 KiB chunks. */
async function readPool(file: string, size: number, threads: number): Promise<void> {
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    const fs = require('node:fs');
    const fd = fs.openSync(workerData.file, 'r');
    const buf = Buffer.allocUnsafe(${CHUNK});
    for (let pos = workerData.start; pos < workerData.end; ) {
      const n = fs.readSync(fd, buf, 0, Math.min(${CHUNK}, workerData.end - pos), pos);
      if (n <= 0) break;
      pos += n;
    }
    fs.closeSync(fd);
    parentPort.postMessage('done');`;
  const share = Math.ceil(size / threads);
  await Promise.all(
    Array.from({ length: threads }, (_, i) => {
      const w = new Worker(code, { eval: true, workerData: { file, start: i * share, end: Math.min(size, (i + 1) * share) } });
      return new Promise<void>((resolve, reject) => {
        w.once('message', () => void w.terminate().then(() => resolve()));
        w.once('error', reject);
      });
    }),
  );
}

export async function benchIndex(o: BenchOptions): Promise<void> {
  process.env.FOLIO_CACHE_DIR = join(DATA_DIR, 'cache');
  const file = syntheticLog(o.size);
  const size = fileSize(file);
  const threads = availableParallelism();
  warmPageCache(file);
  process.stderr.write(`index bench: ${file} (${(size / 1024 ** 3).toFixed(2)} GiB), ${threads} cores, median of ${o.runs}\n`);

  const wc = timeCommand(o.runs, 'wc', ['-l', file]);
  const wcLines = Number(wc.stdout.trim().split(/\s+/)[0]);
  const read1 = await timeMedian(o.runs, () => readAll(file, 0, size));
  const readN = await timeMedian(o.runs, () => readPool(file, size, threads));
  // Every chunk is validated (chunks may cut a character, so the verdicts are only counted).
  let validChunks = 0;
  const nodeUtf8 = await timeMedian(o.runs, () =>
    readAll(file, 0, size, (b, n) => {
      if (isUtf8(b.subarray(0, n))) validChunks++;
    }),
  );
  let newlines = -1;
  const single = await timeMedian(o.runs, async () => {
    newlines = (await buildIndex(file, { threads: 0 })).newlines;
  });
  if (newlines !== wcLines) throw new Error(`single-thread index counted ${newlines} lines, wc -l ${wcLines}`);
  let memoryBytes = 0;
  const pool = await timeMedian(o.runs, async () => {
    const index = await buildIndex(file, { threads });
    newlines = index.newlines;
    memoryBytes = index.memoryBytes;
  });
  if (newlines !== wcLines) throw new Error(`pool index counted ${newlines} lines, wc -l ${wcLines}`);

  // While a cold build runs: how soon line 1,000 can be located (the first window).
  const firstLine: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const build = startBuild(file, { threads });
    build.index.lineStart(1000);
    firstLine.push(performance.now() - t);
    if (build.index.complete) throw new Error('the build finished before the first query: nothing measured');
    await build.done;
  }
  const firstLineMs = firstLine.sort((a, b) => a - b)[1]!;

  // Reopen from the persisted cache: build once through the store (which saves), then reopen cold.
  forgetIndexes();
  await openIndex(file);
  const reopens: number[] = [];
  for (let i = 0; i < 5; i++) {
    forgetIndexes();
    const t = performance.now();
    const idx = await openIndex(file);
    reopens.push(performance.now() - t);
    if (!idx.fromCache) throw new Error('reopen did not use the cache');
  }
  const reopen = reopens.sort((a, b) => a - b)[2]!;
  await closeIndexPools();

  const vsWc = (ms: number) => `${(wc.ms / ms).toFixed(2)}x`;
  const rows: (string | number)[][] = [
    ['contender', 'median ms', 'throughput', 'speed vs wc -l'],
    ['read-only ceiling, 1 thread', read1.toFixed(0), gbps(size, read1), vsWc(read1)],
    [`read-only ceiling, ${threads} threads`, readN.toFixed(0), gbps(size, readN), vsWc(readN)],
    ['wc -l', wc.ms.toFixed(0), gbps(size, wc.ms), '1.00x'],
    ['Node buffer.isUtf8 (read + validate)', nodeUtf8.toFixed(0), gbps(size, nodeUtf8), vsWc(nodeUtf8)],
    ['Folio index+validate, 1 thread', single.toFixed(0), gbps(size, single), vsWc(single)],
    [`Folio index+validate, pool of ${threads}`, pool.toFixed(0), gbps(size, pool), vsWc(pool)],
  ];
  const perGiB = memoryBytes / (size / 1024 ** 3);
  const goals = [
    ['pool index+validate >= 1.6x wc -l', wc.ms / pool >= 1.6, vsWc(pool)],
    ['single thread >= 0.9x wc -l', wc.ms / single >= 0.9, vsWc(single)],
    ['index memory <= 64 KiB/GiB', perGiB <= 65536, `${(perGiB / 1024).toFixed(2)} KiB/GiB (${memoryBytes} B)`],
    ['reopen from cache <= 100 ms', reopen <= 100, `${reopen.toFixed(1)} ms`],
    ['line 1,000 located during a cold build (no goal set)', true, `${firstLineMs.toFixed(1)} ms after the build starts (build: ${pool.toFixed(0)} ms)`],
  ] as const;
  const out = [
    `## index (${(size / 1024 ** 3).toFixed(2)} GiB synthetic log, ${wcLines.toLocaleString('en-US')} lines, ${threads} cores)`,
    '',
    table(rows),
    '',
    table([['goal', 'met', 'measured'], ...goals.map(([g, ok, m]) => [g, ok ? 'yes' : 'NO', m])]),
    '',
  ].join('\n');
  process.stdout.write(out + '\n');
  if (validChunks === 0) process.stderr.write('warning: isUtf8 found no valid chunk\n');
}
