/**
 * `npm run bench -- index [--size 2G]`: Folio's index+validate against, in the same
 * run on the same page-cached file: the read-only ceiling (1 thread and a pool),
 * `wc -l`, and Node's buffer.isUtf8 (simdutf). Also index memory and cache reopen.
 *
 * Then the scale rows (FOLIO_BENCH_SCALE, default 1G,2G,4G,8G; 0 skips them): per
 * file size, cold builds each in a fresh process (bench/index-scale-child.ts):
 * build time and throughput against `wc -l` of the same file in the same run,
 * index memory, the process's peak RSS, and how soon line 1,000 is located while
 * the build runs; then whether time grows linearly in bytes and memory at 64 KiB
 * per GiB plus a constant. Sizes the disk cannot hold are skipped and named.
 */
import { isUtf8 } from 'node:buffer';
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, renameSync, rmSync, statfsSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { buildIndex, closeIndexPools, startBuild } from '../src-main/engine/index/builder.ts';
import { forgetIndexes, openIndex } from '../src-main/engine/index/store.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, fileSize, gbps, median, parseSize, syntheticLog, table, timeCommand, timeMedian, warmPageCache } from './lib.ts';

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
  process.stdout.write(await benchIndexScale());
  if (validChunks === 0) process.stderr.write('warning: isUtf8 found no valid chunk\n');
}

const GIB = 1024 ** 3;
const SCALE_RUNS = 3;

/**
 * A synthetic log of `bytes` for the scale rows: up to 2 GiB generated
 * (bench/lib.ts); a multiple of 2 GiB past that is the 2 GiB log repeated (made
 * with cat at disk speed; generating 8 GiB line by line takes many minutes on a
 * busy machine). Real bytes either way, no holes. Null when the disk cannot hold it.
 */
function scaleLog(bytes: number): { file: string | null; note: string } {
  const base = 2 * GIB;
  const copies = bytes > base && bytes % base === 0 ? bytes / base : 0;
  const file = copies ? join(DATA_DIR, `log-${bytes}-x${copies}.log`) : join(DATA_DIR, `log-${bytes}.log`);
  if (!existsSync(file)) {
    const st = statfsSync(DATA_DIR);
    const free = st.bavail * st.bsize;
    if (free < bytes + 2 * GIB)
      return { file: null, note: `skipped: ${(free / GIB).toFixed(1)} GiB free, ${(bytes / GIB).toFixed(0)} GiB + 2 GiB margin needed` };
    if (!copies) return { file: syntheticLog(bytes), note: 'generated' };
    const src = syntheticLog(base);
    process.stderr.write(`making ${(bytes / GIB).toFixed(0)} GiB log ${file} (${copies} copies of the 2 GiB log, once)...\n`);
    execFileSync('sh', ['-c', `cat ${Array(copies).fill(`"${src}"`).join(' ')} > "${file}.tmp"`]);
    renameSync(`${file}.tmp`, file);
  }
  return { file, note: copies ? `the 2 GiB log x${copies}` : 'generated' };
}

/** Bytes of `file` in the page cache (util-linux fincore), or null if unknown. */
function cachedBytes(file: string): number | null {
  const r = spawnSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', file], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.trim()) : null;
}

interface ScaleRun {
  firstLineMs: number;
  buildMs: number;
  memoryBytes: number;
  newlines: number;
  maxRssBytes: number;
}

export async function benchIndexScale(): Promise<string> {
  const spec = process.env.FOLIO_BENCH_SCALE ?? '1G,2G,4G,8G';
  if (spec === '0') return '';
  const cacheDir = mkdtempSync(join(tmpdir(), 'folio-index-scale-'));
  const rows: (string | number)[][] = [
    [
      'size',
      'file',
      'wc -l ms',
      'build ms (min–max)',
      'throughput',
      'vs wc -l',
      'ms per GiB',
      'index memory',
      'peak RSS',
      'line 1,000 during the build',
      'in page cache',
    ],
  ];
  const done: { gib: number; ms: number; memory: number; rss: number }[] = [];
  const skipped: string[] = [];
  try {
    for (const bytes of spec.split(',').map(parseSize)) {
      const { file, note } = scaleLog(bytes);
      if (!file) {
        skipped.push(`${(bytes / GIB).toFixed(0)} GiB: ${note}`);
        continue;
      }
      const size = fileSize(file);
      warmPageCache(file);
      const wc = timeCommand(SCALE_RUNS, 'wc', ['-l', file]);
      const wcLines = Number(wc.stdout.trim().split(/\s+/)[0]);
      const runs: ScaleRun[] = [];
      for (let i = 0; i < SCALE_RUNS; i++) {
        const r = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'index-scale-child.ts'), file], {
          encoding: 'utf8',
          env: { ...process.env, FOLIO_CACHE_DIR: cacheDir },
        });
        if (r.status !== 0) throw new Error(`index-scale-child failed: ${r.stderr}`);
        const run = JSON.parse(r.stdout) as ScaleRun;
        if (run.newlines !== wcLines) throw new Error(`${file}: the index counted ${run.newlines} newlines, wc -l ${wcLines}`);
        runs.push(run);
      }
      const ms = median(runs.map((r) => r.buildMs));
      const memory = runs[0]!.memoryBytes;
      const rss = median(runs.map((r) => r.maxRssBytes));
      const gib = size / GIB;
      const cached = cachedBytes(file);
      done.push({ gib, ms, memory, rss });
      rows.push([
        `${gib.toFixed(2)} GiB`,
        note,
        wc.ms.toFixed(0),
        `${ms.toFixed(0)} (${Math.min(...runs.map((r) => r.buildMs)).toFixed(0)}–${Math.max(...runs.map((r) => r.buildMs)).toFixed(0)})`,
        gbps(size, ms),
        `${(wc.ms / ms).toFixed(2)}x`,
        (ms / gib).toFixed(0),
        `${(memory / 1024).toFixed(1)} KiB (${(memory / 1024 / gib).toFixed(2)} KiB/GiB)`,
        `${(rss / 1024 ** 2).toFixed(0)} MiB`,
        `${median(runs.map((r) => r.firstLineMs)).toFixed(1)} ms`,
        cached === null ? '?' : `${((100 * cached) / size).toFixed(0)}%`,
      ]);
    }
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  const out = [`### index at scale: cold builds, each in a fresh process, pool of ${availableParallelism()}, median of ${SCALE_RUNS}`, '', table(rows), ''];
  if (done.length >= 2) {
    const perGiB = done.map((d) => d.ms / d.gib);
    const [lo, hi] = [done[0]!, done.at(-1)!];
    const memSlope = (hi.memory - lo.memory) / (hi.gib - lo.gib);
    const memConst = lo.memory - memSlope * lo.gib;
    const rssSlope = (hi.rss - lo.rss) / (hi.gib - lo.gib);
    out.push(
      `- time per GiB: ${perGiB.map((x) => x.toFixed(0)).join(', ')} ms (largest / smallest ${(Math.max(...perGiB) / Math.min(...perGiB)).toFixed(2)}; 1.00 is linear)`,
      `- index memory: ${(memSlope / 1024).toFixed(2)} KiB per GiB ${memConst < 0 ? '-' : '+'} ${Math.abs(Math.round(memConst))} B (from the ${lo.gib.toFixed(0)} and ${hi.gib.toFixed(0)} GiB rows)`,
      `- peak RSS: ${(rssSlope / 1024 ** 2).toFixed(1)} MiB more per GiB of file (page-cache reads are not counted in RSS; this is the process's own memory)`,
    );
  }
  for (const s of skipped) out.push(`- ${s}`);
  return out.join('\n') + '\n';
}
