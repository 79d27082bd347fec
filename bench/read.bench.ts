/**
 * `npm run bench -- read [--size 2G]`: latency of random reads per mode on the
 * page-cached log, in process and through the CLI, and search throughput, each
 * against baselines measured in the same run (sed, tail, grep -c, rg -c).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { closeIndexPools } from '../src-main/engine/index/builder.ts';
import { openIndex } from '../src-main/engine/index/store.ts';
import { read, type ReadOptions, type ReadRequest } from '../src-main/engine/read/read.ts';
import { searchFile } from '../src-main/engine/search/search.ts';
import type { BenchOptions } from './main.ts';
import { prng } from '../test/fixtures/generate.ts';
import { DATA_DIR, gbps, percentile, syntheticLog, table, timeCommand, warmPageCache } from './lib.ts';

const IN_PROCESS_READS = 1000;
const CLI_READS = 40;

interface Mode {
  name: string;
  make: (rand: () => number) => { req: ReadRequest; opts?: ReadOptions; cli: string[] };
}

function ensureRipgrep(): boolean {
  if (existsSync('/usr/bin/rg')) return true;
  process.stderr.write('ripgrep missing: installing it from Debian (apt-get install -y ripgrep)...\n');
  const r = spawnSync('sh', ['-c', 'apt-get install -y -qq ripgrep >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq ripgrep >/dev/null)'], {
    stdio: 'inherit',
  });
  return r.status === 0 && existsSync('/usr/bin/rg');
}

export async function benchRead(o: BenchOptions): Promise<void> {
  process.env.FOLIO_CACHE_DIR = join(DATA_DIR, 'cache');
  const file = syntheticLog(o.size);
  warmPageCache(file);
  const index = await openIndex(file);
  const lines = index.lineCount;
  const size = index.size;
  const rand = prng(7);
  const pick = (r: () => number, n: number) => Math.floor(r() * n);

  const modes: Mode[] = [
    {
      name: 'lines (100-line range)',
      make: (r) => {
        const a = 1 + pick(r, lines - 100);
        return { req: { mode: 'lines', ranges: [{ start: a, end: a + 99 }] }, cli: ['--lines', `${a}-${a + 99}`] };
      },
    },
    {
      name: 'lines, 3 ranges of 30',
      make: (r) => {
        const as = [0, 1, 2].map(() => 1 + pick(r, lines - 30));
        return { req: { mode: 'lines', ranges: as.map((a) => ({ start: a, end: a + 29 })) }, cli: ['--lines', as.map((a) => `${a}-${a + 29}`).join(',')] };
      },
    },
    {
      name: 'byte window 64 KiB',
      make: (r) => {
        const s = pick(r, size);
        return { req: { mode: 'bytes', startByte: s, maxBytes: 65536 }, cli: ['--bytes', `${s}+65536`] };
      },
    },
    {
      name: 'exact bytes 64 KiB',
      make: (r) => {
        const s = pick(r, size - 65536);
        return { req: { mode: 'exact', startByte: s, endByte: s + 65536 }, cli: ['--range', `${s}-${s + 65536}`] };
      },
    },
    {
      name: 'page (50,000 chars)',
      make: (r) => {
        const p = 1 + pick(r, Math.floor(size / 50_000) - 1);
        return { req: { mode: 'page', page: p }, cli: ['--page', String(p)] };
      },
    },
    { name: 'head 100', make: () => ({ req: { mode: 'head', lines: 100 }, cli: ['--head', '100'] }) },
    { name: 'tail 100', make: () => ({ req: { mode: 'tail', lines: 100 }, cli: ['--tail', '100'] }) },
    {
      name: 'lines + hashlines',
      make: (r) => {
        const a = 1 + pick(r, lines - 100);
        return { req: { mode: 'lines', ranges: [{ start: a, end: a + 99 }] }, opts: { hashlines: true }, cli: ['--lines', `${a}-${a + 99}`, '--hashlines'] };
      },
    },
  ];

  // A 2 GiB file is hashed once in the background after its first read; measure the
  // steady state after that (the hash's cost is reported on its own).
  const t0 = performance.now();
  while (!(await read(file, { mode: 'head', lines: 1 })).version.sha256) {
    if (performance.now() - t0 > 60_000) throw new Error('background SHA-256 did not finish in 60 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  const hashMs = performance.now() - t0;

  // The first deep page walks page boundaries once (remembered per version).
  const lastPage = Math.floor(size / 50_000) - 1;
  let t = performance.now();
  await read(file, { mode: 'page', page: lastPage });
  const firstDeepPageMs = performance.now() - t;

  const rows: (string | number)[][] = [['mode', 'in process p50 ms', 'p99 ms', 'max content bytes', `CLI p50 ms (${CLI_READS} calls)`, 'CLI p99 ms']];
  for (const m of modes) {
    for (let i = 0; i < 50; i++) await read(file, m.make(rand).req, m.make(rand).opts); // warm-up
    const times: number[] = [];
    let maxBytes = 0;
    for (let i = 0; i < IN_PROCESS_READS; i++) {
      const { req, opts } = m.make(rand);
      t = performance.now();
      const r = await read(file, req, opts);
      times.push(performance.now() - t);
      maxBytes = Math.max(maxBytes, Buffer.byteLength(r.content));
    }
    const cli: number[] = [];
    for (let i = 0; i < CLI_READS; i++) {
      const { cli: args } = m.make(rand);
      t = performance.now();
      const out = spawnSync(process.execPath, ['bin/folio.mjs', 'read', file, ...args, '--json'], { encoding: 'utf8', maxBuffer: 1 << 24 });
      cli.push(performance.now() - t);
      if (out.status !== 0) throw new Error(`folio read ${args.join(' ')} failed: ${out.stderr}${out.stdout}`);
    }
    rows.push([
      m.name,
      percentile(times, 50).toFixed(3),
      percentile(times, 99).toFixed(3),
      maxBytes,
      percentile(cli, 50).toFixed(0),
      percentile(cli, 99).toFixed(0),
    ]);
  }

  // Same-run baselines for the CLI: a bare Node start, and GNU tools reading the same lines.
  const node0 = timeCommand(5, process.execPath, ['-e', '0']).ms;
  const midLine = Math.floor(lines / 2);
  const sedMid = timeCommand(3, 'sed', ['-n', `${midLine},${midLine + 99}p;${midLine + 100}q`, file]).ms;
  const tail100 = timeCommand(5, 'tail', ['-n', '100', file]).ms;
  const base = [
    ['baseline (same run)', 'ms'],
    ['node -e 0 (process start)', node0.toFixed(0)],
    [`sed -n '${midLine},+99p' (scans to the middle)`, sedMid.toFixed(0)],
    ['tail -n 100', tail100.toFixed(0)],
    ['Folio: first request of the last page (walks page boundaries once)', firstDeepPageMs.toFixed(1)],
    ['Folio: background SHA-256 of the file after its first read (once per version)', hashMs.toFixed(0)],
  ];

  // Search throughput against grep -c and rg -c.
  const haveRg = ensureRipgrep();
  const patterns: { name: string; pattern: string; flags?: string; grep: string[]; rg: string[] }[] = [
    { name: 'literal ERROR', pattern: 'ERROR', grep: ['-c', 'ERROR'], rg: ['-c', 'ERROR'] },
    { name: 'regex user [0-9]+ (no match: digits never follow)', pattern: 'user [0-9]+', grep: ['-cE', 'user [0-9]+'], rg: ['-c', 'user [0-9]+'] },
    { name: 'regex "ms":[0-9]{4}', pattern: '"ms":[0-9]{4}', grep: ['-cE', '"ms":[0-9]{4}'], rg: ['-c', '"ms":[0-9]{4}'] },
    { name: 'case-insensitive timeout', pattern: 'timeout', flags: 'i', grep: ['-ci', 'timeout'], rg: ['-ci', 'timeout'] },
  ];
  const srows: (string | number)[][] = [['pattern', 'Folio count', 'Folio GB/s', 'grep -c GB/s', 'rg -c GB/s', 'Folio vs grep', 'Folio vs rg']];
  for (const p of patterns) {
    const runs: number[] = [];
    let count = 0;
    for (let i = 0; i < 3; i++) {
      t = performance.now();
      const r = await searchFile(index, { pattern: p.pattern, flags: p.flags, countOnly: true });
      runs.push(performance.now() - t);
      count = r.count;
    }
    const folioMs = runs.sort((a, b) => a - b)[1]!;
    const grepRun = spawnSync('grep', [...p.grep, file], { encoding: 'utf8' });
    const grepCount = Number(grepRun.stdout.trim());
    if (grepCount !== count) throw new Error(`search ${p.name}: Folio counted ${count}, grep -c ${grepCount}`);
    const grepMs = timeCommand(3, 'grep', [...p.grep, file], [0, 1]).ms;
    const rgMs = haveRg ? timeCommand(3, 'rg', [...p.rg, file], [0, 1]).ms : NaN;
    srows.push([
      p.name,
      count,
      gbps(size, folioMs),
      gbps(size, grepMs),
      haveRg ? gbps(size, rgMs) : 'n/a',
      `${(grepMs / folioMs).toFixed(2)}x`,
      haveRg ? `${(rgMs / folioMs).toFixed(2)}x` : 'n/a',
    ]);
  }
  await closeIndexPools();

  const out = [
    `## read (${(size / 1024 ** 3).toFixed(2)} GiB synthetic log, ${lines.toLocaleString('en-US')} lines; ${IN_PROCESS_READS} random reads per mode in process, ${CLI_READS} through the CLI)`,
    '',
    table(rows),
    '',
    table(base),
    '',
    '## search (count only, whole file)',
    '',
    table(srows),
    '',
  ].join('\n');
  process.stdout.write(out + '\n');
}
