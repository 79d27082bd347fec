/**
 * `npm run bench -- merge [--size 768M] [--runs N]`: several logs on one
 * timeline (issue 31), the whole `folio merge` process against GNU
 * `LC_ALL=C sort -m -s -k1,1` of the same files in the same run (alternately,
 * after a warm-up each; medians and min-max of `runs`, at least 3), both writing
 * to a pipe that is read and hashed (the outputs must be equal). Then the first
 * window from a time in the middle: the merge operation in-process (index
 * loaded, as in a server) and a whole `folio merge --from T --to T+1s` process.
 * And the merge filtered (`folio merge --match ERROR`) against `sort -m … | grep -E
 * ERROR` (one shell pipeline), alternately, outputs equal.
 * Three ISO-stamped logs of size/3 each (--size is their sum, default 768M;
 * FOLIO_BENCH_SIZE applies), generated once under bench/.data and page-cached.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, median, table, warmPageCache } from './lib.ts';
import { MERGE_LOG_START, writeMergeLog } from '../test/fixtures/merge-logs.ts';

const BIN = join(process.cwd(), 'bin/folio.mjs');
const FILES = 3;

/** The bench's logs, generated once: FILES files of `each` bytes on one shared 1 ms clock, every 40th line with a two-line trace. */
function mergeLogs(each: number): { paths: string[]; lastMs: number } {
  mkdirSync(DATA_DIR, { recursive: true });
  let lastMs = MERGE_LOG_START;
  const paths = Array.from({ length: FILES }, (_, i) => {
    const file = join(DATA_DIR, `merge-${each}-${i}.log`);
    if (!existsSync(file)) {
      process.stderr.write(`generating ${(each / 1024 ** 2).toFixed(0)} MiB log at ${file} (once)...\n`);
      writeMergeLog(`${file}.tmp`, { bytes: each, seed: 300 + i, traceEvery: 40 });
      renameSync(`${file}.tmp`, file);
    }
    return file;
  });
  for (const p of paths) {
    const last = execFileSync('sh', ['-c', `tail -c 4096 "${p}" | grep -a '^20' | tail -n 1`], { encoding: 'utf8' });
    lastMs = Math.max(lastMs, Date.parse(last.slice(0, 24)));
  }
  return { paths, lastMs };
}

/** Run argv with stdout read from a pipe (hashed, counted): wall ms, sha256, bytes, exit status. */
function runPiped(argv: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; sha: string; bytes: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const hash = createHash('sha256');
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      hash.update(b);
      bytes += b.length;
    });
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (status) => {
      const ms = performance.now() - t;
      if (status !== 0) reject(new Error(`${argv.join(' ')} failed (${status}): ${stderr}`));
      else resolve({ ms, sha: hash.digest('hex'), bytes, stderr });
    });
  });
}

const spread = (ms: number[]) => `${median(ms).toFixed(0)} (${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)})`;
const iso = (ms: number) => new Date(ms).toISOString();

export async function benchMerge(o: BenchOptions): Promise<void> {
  execFileSync(process.execPath, ['scripts/build-cli.mjs']);
  process.env.FOLIO_CACHE_DIR = join(DATA_DIR, 'cache');
  const total = Math.min(o.size, 768 * 1024 ** 2);
  const each = Math.floor(total / FILES);
  const runs = Math.max(3, o.runs);
  const { paths, lastMs } = mergeLogs(each);
  for (const p of paths) warmPageCache(p);
  const env = { ...process.env, LC_ALL: 'C' };
  process.stderr.write(`merge bench: ${FILES} × ${(each / 1024 ** 2).toFixed(0)} MiB, ${runs} runs per contender\n`);

  const folioMs: number[] = [];
  const sortMs: number[] = [];
  let out = 0;
  let rssKiB = 0;
  for (let i = 0; i <= runs; i++) {
    // GNU time's %M: the merge's peak memory, which must not grow with the files.
    const f = await runPiped(['/usr/bin/time', '-f', '%M', process.execPath, BIN, 'merge', ...paths], env);
    rssKiB = Math.max(rssKiB, Number(f.stderr.trim().split('\n').at(-1)));
    const s = await runPiped(['sort', '-m', '-s', '-k1,1', ...paths], env);
    if (f.sha !== s.sha || f.bytes !== s.bytes) throw new Error(`folio merge and sort -m differ: ${f.bytes} vs ${s.bytes} bytes`);
    out = f.bytes;
    if (i === 0) continue;
    folioMs.push(f.ms);
    sortMs.push(s.ms);
  }

  // Filtered: the regex in the merge against grep after sort in one pipeline.
  const matchMs: number[] = [];
  const grepMs: number[] = [];
  let matchOut = 0;
  for (let i = 0; i <= runs; i++) {
    const f = await runPiped([process.execPath, BIN, 'merge', ...paths, '--match', 'ERROR'], env);
    const g = await runPiped(['sh', '-c', 'sort -m -s -k1,1 "$@" | grep -E ERROR', 'sh', ...paths], env);
    if (f.sha !== g.sha) throw new Error(`folio merge --match and sort -m | grep differ: ${f.bytes} vs ${g.bytes} bytes`);
    matchOut = f.bytes;
    if (i === 0) continue;
    matchMs.push(f.ms);
    grepMs.push(g.ms);
  }

  // The first window from a time in the middle: the index is built (and persisted) once, then every window bisects it.
  const mid = iso(MERGE_LOG_START + Math.floor((lastMs - MERGE_LOG_START) / 2));
  const midEnd = iso(MERGE_LOG_START + Math.floor((lastMs - MERGE_LOG_START) / 2) + 1000);
  const { handle } = await import('../src-main/api/handle.ts');
  const ME = { kind: 'human', name: 'bench' } as const;
  const t0 = performance.now();
  const first = await handle('merge', { paths, from: mid, lines: 200 }, ME);
  const firstMs = performance.now() - t0;
  const opMs: number[] = [];
  let bytesRead = first.bytes_read;
  for (let i = 0; i < Math.max(5, runs); i++) {
    const t = performance.now();
    const w = await handle('merge', { paths, from: mid, lines: 200 }, ME);
    opMs.push(performance.now() - t);
    bytesRead = w.bytes_read;
  }
  const windowMs: number[] = [];
  let windowBytes = 0;
  for (let i = 0; i <= runs; i++) {
    const w = await runPiped([process.execPath, BIN, 'merge', ...paths, '--from', mid, '--to', midEnd], env);
    windowBytes = w.bytes;
    if (i > 0) windowMs.push(w.ms);
  }

  const rows = [
    ['what', 'folio ms', 'baseline', 'baseline ms', 'ratio'],
    [
      `merge ${FILES} × ${(each / 1024 ** 2).toFixed(0)} MiB (${(out / 1024 ** 2).toFixed(0)} MiB out; peak RSS ${(rssKiB / 1024).toFixed(0)} MiB)`,
      spread(folioMs),
      'LC_ALL=C sort -m -s -k1,1',
      spread(sortMs),
      (median(folioMs) / median(sortMs)).toFixed(2),
    ],
    [
      `merge --match ERROR (${(matchOut / 1024 ** 2).toFixed(0)} MiB out)`,
      spread(matchMs),
      'sort -m -s -k1,1 | grep -E ERROR',
      spread(grepMs),
      (median(matchMs) / median(grepMs)).toFixed(2),
    ],
    [`first window at --from (middle), 200 lines, in-process`, spread(opMs), `${(bytesRead / 1024).toFixed(0)} KiB read`, '', ''],
    [`the same, first call (line indexes built or loaded from the cache)`, firstMs.toFixed(0), '', '', ''],
    [`folio merge --from mid --to mid+1s (${(windowBytes / 1024).toFixed(0)} KiB out), whole process`, spread(windowMs), '', '', ''],
  ];
  process.stdout.write(`\n## merge\n\n${table(rows)}\n`);
}
