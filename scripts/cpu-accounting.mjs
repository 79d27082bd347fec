#!/usr/bin/env node
// @ts-check
/**
 * Where a command's CPU goes, every process counted: runs the command under the
 * kernel's process accounting (Debian's `acct`: accton, dump-acct; root) while a
 * sampler notes each process's command line, then attributes each process that
 * ended to the nearest ancestor whose command line names a part of the suite.
 * `/usr/bin/time` misses what the command does not wait for (servers started
 * detached, Chromium's zygote children); this does not. It counts every process
 * that ends on the machine: run it on an otherwise idle one (docs/TESTING.md).
 *
 *   node scripts/cpu-accounting.mjs -- npm test
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dash = process.argv.indexOf('--');
const command = dash < 0 ? [] : process.argv.slice(dash + 1);
if (command.length === 0) {
  console.error('usage: cpu-accounting.mjs -- COMMAND...');
  process.exit(2);
}

/** Parts of the suite, by a process's command line (first match wins). */
/** @type {[RegExp, string][]} */
const PARTS = [
  [/chromium|chrome/, 'e2e: Chromium'],
  [/playwright/, 'e2e: Playwright runner, tests, their children'],
  [/folio(\.mjs)? (serve|open)\b/, 'e2e: folio serve'],
  [/vitest/, 'vitest: workers and their children'],
  [/swift/, 'Swift (S3 test server)'],
  [/postgres|pg_ctl/, 'PostgreSQL'],
  [/azurite/, 'Azurite'],
  [/typescript\/bin\/tsc|\btsc -p/, 'tsc'],
  [/prettier/, 'prettier'],
  [/eslint/, 'eslint'],
  [/electron-vite|build-cli|esbuild/, 'builds'],
];

const dir = mkdtempSync(join(tmpdir(), 'folio-acct-'));
const pacct = join(dir, 'pacct');
/** pid → {ppid, args}, from /proc every 250 ms while the command runs */
/** @type {Map<number, {ppid: number, args: string}>} */
const seen = new Map();
function sample() {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || seen.has(Number(name))) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (args) seen.set(Number(name), { ppid, args });
    } catch {
      // gone already
    }
  }
}

writeFileSync(pacct, ''); // accton appends to a file that exists
execFileSync('accton', [pacct], { stdio: 'ignore' });
const sampler = setInterval(sample, 250);
const started = performance.now();
const [program, ...args] = /** @type {[string, ...string[]]} */ (command);
const child = spawn(program, args, { stdio: 'inherit' });
/** @type {number} */
const code = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)));
clearInterval(sampler);
execFileSync('accton', ['off'], { stdio: 'ignore' });
const wall = (performance.now() - started) / 1000;

const rows = execFileSync('dump-acct', [pacct], { encoding: 'utf8', maxBuffer: 1 << 30 })
  .trim()
  .split('\n')
  .map((line) => {
    const f = line.split('|').map((x) => x.trim());
    return { comm: f[0] ?? '', cpu: (Number(f[2]) + Number(f[3])) / 100, pid: Number(f[9]), ppid: Number(f[10]) };
  });
const parentOf = new Map(rows.map((r) => [r.pid, r.ppid]));
for (const [pid, p] of seen) if (!parentOf.has(pid)) parentOf.set(pid, p.ppid);

/**
 * @param {number} pid
 * @param {string} comm
 */
function partOf(pid, comm) {
  for (let p = pid, hops = 0; p > 1 && hops < 64; p = parentOf.get(p) ?? 0, hops++) {
    const line = p === pid && !seen.has(p) ? comm : seen.get(p)?.args;
    const hit = line && PARTS.find(([re]) => re.test(line));
    if (hit) return hit[1];
  }
  return `other (${comm})`;
}

const sums = new Map();
let total = 0;
/** @type {string[]} */
const detail = [];
for (const r of rows) {
  const part = partOf(r.pid, r.comm);
  sums.set(part, (sums.get(part) ?? 0) + r.cpu);
  total += r.cpu;
  if (process.env.FOLIO_CPU_DETAIL) detail.push(JSON.stringify({ part, cpu: r.cpu, comm: r.comm, args: seen.get(r.pid)?.args ?? null }));
}
// FOLIO_CPU_DETAIL=FILE: one JSON line per process (its part, CPU s, command and, if sampled, its command line).
if (process.env.FOLIO_CPU_DETAIL) writeFileSync(process.env.FOLIO_CPU_DETAIL, detail.join('\n') + '\n');
rmSync(dir, { recursive: true, force: true });
console.log(`\ncpu-accounting: ${command.join(' ')} exited ${code}; wall ${wall.toFixed(0)} s, CPU ${total.toFixed(0)} s (${(total / wall).toFixed(2)} cores)`);
for (const [part, cpu] of [...sums].sort((a, b) => b[1] - a[1])) if (cpu >= 0.5) console.log(`${cpu.toFixed(1).padStart(9)}  ${part}`);
process.exit(code);
