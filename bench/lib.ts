/** Benchmark helpers: same-run baselines, medians, a page-cached synthetic log. */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeLogFile } from '../test/fixtures/generate.ts';

export const DATA_DIR = join(process.cwd(), 'bench/.data');

export function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?$/i.exec(s.trim());
  if (!m) throw new Error(`bad size: ${s} (use e.g. 512M, 2G)`);
  const mult = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 }[m[2]!.toUpperCase() as '' | 'K' | 'M' | 'G' | 'T'];
  return Math.round(Number(m[1]) * mult);
}

/** The synthetic log of (at least) `bytes`, generated once and kept under bench/.data. */
export function syntheticLog(bytes: number): string {
  mkdirSync(DATA_DIR, { recursive: true });
  const file = join(DATA_DIR, `log-${bytes}.log`);
  if (!existsSync(file)) {
    process.stderr.write(`generating ${(bytes / 1024 ** 3).toFixed(2)} GiB synthetic log at ${file} (once)...\n`);
    const tmp = `${file}.tmp`;
    writeLogFile(tmp, bytes, 42);
    renameSync(tmp, file);
  }
  return file;
}

/** Pull the file into the page cache so every contender reads from memory. */
export function warmPageCache(file: string): void {
  execFileSync('sh', ['-c', `cat "${file}" > /dev/null`]);
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** Time `fn` `runs` times after one warm-up run; returns the median in ms. */
export async function timeMedian(runs: number, fn: () => unknown | Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

/**
 * Time an external command (median wall time of `runs`), returning ms and its stdout.
 * stdout goes to a pipe, never /dev/null: GNU grep stops at the first match when it
 * sees its output is /dev/null.
 */
export function timeCommand(runs: number, cmd: string, args: string[], okStatus: number[] = [0]): { ms: number; stdout: string } {
  let stdout = '';
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const t = performance.now();
    const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
    const ms = performance.now() - t;
    if (!okStatus.includes(r.status ?? -1)) throw new Error(`${cmd} failed: ${r.stderr}`);
    stdout = r.stdout;
    if (i > 0) times.push(ms);
  }
  return { ms: median(times), stdout };
}

export function gbps(bytes: number, ms: number): string {
  return `${(bytes / 1e9 / (ms / 1000)).toFixed(2)} GB/s`;
}

export function fileSize(file: string): number {
  return statSync(file).size;
}

export function table(rows: (string | number)[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  const line = (r: (string | number)[]) => '| ' + r.map((v, c) => String(v).padEnd(widths[c]!)).join(' | ') + ' |';
  return [line(rows[0]!), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...rows.slice(1).map(line)].join('\n');
}
