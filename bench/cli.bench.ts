/**
 * `npm run bench -- cli [--size 2G] [--runs 5]`: speed as a user measures it, the
 * whole `folio` process (node bin/folio.mjs, the bundle) against what they would
 * run instead, in the same run: `node -e 0` for a small command (Node's own
 * start), `wc -l` for counting lines, `rg` for searching. Each pair runs
 * alternately (Folio, baseline, Folio, ...) after one warm-up each, so load that
 * comes and goes hits both; the table gives medians and min-max of `runs` (at
 * least 5). The big file is the bench's synthetic log (bench/lib.ts), page-cached;
 * FOLIO_BENCH_SIZE or --size picks a smaller one for a quick run. Answers are
 * checked: line counts against wc -l, counts against rg -c, line numbers against
 * rg -n. Then the same searches while two busy processes hold both cores
 * (FOLIO_BENCH_LOAD=0 skips that part): how much each tool slows down.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { initializeMs } from './startup.bench.ts';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, fileSize, median, syntheticLog, table, warmPageCache } from './lib.ts';

const BIN = join(process.cwd(), 'bin/folio.mjs');

interface Cmd {
  argv: string[];
  /** Exit statuses that are not a failure (rg: 1 = no match). */
  ok?: number[];
  cwd?: string;
}

interface Timing {
  ms: number[];
  stdout: string;
}

function run(c: Cmd): { ms: number; stdout: string } {
  const t = performance.now();
  // stdout to a pipe, never /dev/null: tools may stop early when they see /dev/null.
  const r = spawnSync(c.argv[0]!, c.argv.slice(1), { encoding: 'utf8', maxBuffer: 1 << 26, cwd: c.cwd });
  const ms = performance.now() - t;
  if (!(c.ok ?? [0]).includes(r.status ?? -1)) throw new Error(`${c.argv.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout.slice(0, 500)}`);
  return { ms, stdout: r.stdout };
}

/** Folio and its baseline alternately, `runs` times each after a warm-up; `before` runs untimed before every Folio run. */
function pair(runs: number, folio: Cmd, base: Cmd, before?: () => void): { folio: Timing; base: Timing } {
  const out = { folio: { ms: [] as number[], stdout: '' }, base: { ms: [] as number[], stdout: '' } };
  for (let i = 0; i <= runs; i++) {
    before?.();
    const f = run(folio);
    const b = run(base);
    out.folio.stdout = f.stdout;
    out.base.stdout = b.stdout;
    if (i === 0) continue; // warm-up
    out.folio.ms.push(f.ms);
    out.base.ms.push(b.ms);
  }
  return out;
}

/** ms as `median (min–max)`. */
const spread = (ms: number[]) => `${median(ms).toFixed(0)} (${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)})`;
const fmt = (t: Timing) => spread(t.ms);
const ratio = (a: Timing, b: Timing) => median(a.ms) / median(b.ms);

interface Row {
  what: string;
  baseline: string;
  goal: number;
  folio: Timing;
  base: Timing;
}

const node = (...args: string[]): Cmd => ({ argv: [process.execPath, ...args] });
const folio = (args: string[], cwd?: string): Cmd => ({ argv: [process.execPath, BIN, ...args], cwd });

/** Keep every core busy (a spinning process per core) until stopped. */
function loadAllCores(): () => void {
  const spinners: ChildProcess[] = Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return () => {
    for (const s of spinners) s.kill();
  };
}

/** What both benches set up: the bundle, the cache, the big log in page cache, a small file. */
function setUp(o: BenchOptions, name: string) {
  // bin/folio.mjs runs the sources through tsx when the bundle is older than them: measure the bundle.
  run({ argv: [process.execPath, 'scripts/build-cli.mjs'] });
  const runs = Math.max(5, o.runs);
  process.env.FOLIO_CACHE_DIR = join(DATA_DIR, 'cache');
  // A search's time budget (default 10 s) is not what is measured: under load a regex count may pass it.
  process.env.FOLIO_SEARCH_TIMEOUT_MS ??= '600000';
  const big = syntheticLog(o.size);
  const size = fileSize(big);
  warmPageCache(big);
  const work = mkdtempSync(join(tmpdir(), 'folio-bench-cli-'));
  const load0 = loadavg()[0]!;
  process.stderr.write(
    `${name} bench: ${big} (${(size / 1024 ** 3).toFixed(2)} GiB), ${availableParallelism()} cores, load ${load0.toFixed(2)}, ${runs} runs per contender\n`,
  );
  return { runs, big, size, work, load0 };
}

/** Issue 30's searches, whole process, against rg; each count checked against rg's. */
const SEARCHES = [
  { name: 'literal ERROR', pattern: 'ERROR', i: false, goal: 1.2 },
  { name: 'regex ERROR.*timeout', pattern: 'ERROR.*timeout', i: false, goal: 1.2 },
  { name: 'regex user [0-9]+', pattern: 'user [0-9]+', i: false, goal: 1.2 },
  { name: 'regex "ms":[0-9]{4}', pattern: '"ms":[0-9]{4}', i: false, goal: 1.2 },
  { name: 'case-insensitive timeout', pattern: 'timeout', i: true, goal: 1.2 },
];

function searchCmdsOf(big: string) {
  return SEARCHES.map((s) => ({
    ...s,
    folio: folio(['search', big, s.pattern, '--count', '--json', ...(s.i ? ['-i'] : [])]),
    rg: { argv: ['rg', '-c', ...(s.i ? ['-i'] : []), s.pattern, big], ok: [0, 1] } as Cmd,
  }));
}

/** The count rows, then `--max 1000` against rg and against Node's own start (goal: node -e 0 + 30 ms). */
function searchRows(runs: number, big: string, add: (what: string, baseline: string, goal: number, t: { folio: Timing; base: Timing }) => void): AbsoluteRow[] {
  for (const s of searchCmdsOf(big)) {
    const t = pair(runs, s.folio, s.rg);
    const rgCount = Number(t.base.stdout.trim() || 0);
    if (JSON.parse(t.folio.stdout).count !== rgCount) throw new Error(`search ${s.name}: folio counted ${JSON.parse(t.folio.stdout).count}, rg -c ${rgCount}`);
    add(`\`folio search big.log '${s.pattern}' --count --json${s.i ? ' -i' : ''}\``, `\`rg -c${s.i ? 'i' : ''}\``, s.goal, t);
  }
  const firstMatches = {
    folio: folio(['search', big, 'ERROR', '--max', '1000']),
    rg: { argv: ['rg', '-n', '-m', '1000', 'ERROR', big], ok: [0, 1] },
  };
  const m = pair(runs, firstMatches.folio, firstMatches.rg);
  const lineNos = (out: string) => out.split('\n').flatMap((l) => (/^\d+:/.test(l) ? [l.slice(0, l.indexOf(':'))] : []));
  if (lineNos(m.folio.stdout).join() !== lineNos(m.base.stdout).join()) throw new Error('folio search --max 1000 and rg -n -m 1000 found different lines');
  add("`folio search big.log 'ERROR' --max 1000`", '`rg -n -m 1000`', 1.0, m);
  const started = pair(runs, firstMatches.folio, node('-e', '0'));
  return [
    { what: "`folio search big.log 'ERROR' --max 1000`", ms: started.folio.ms, baseline: '`node -e 0` + 30 ms', baseMs: started.base.ms.map((x) => x + 30) },
  ];
}

/** A row whose goal is a number of ms (or Node's start plus some), not a ratio. */
interface AbsoluteRow {
  what: string;
  ms: number[];
  baseline: string;
  baseMs: number[];
}

const absoluteTable = (rows: AbsoluteRow[]) =>
  table([
    ['command', 'Folio ms', 'goal', 'goal ms', 'met'],
    ...rows.map((r) => [r.what, spread(r.ms), r.baseline, median(r.baseMs).toFixed(0), median(r.ms) <= median(r.baseMs) ? 'yes' : 'NO']),
  ]);

const ratioTable = (rows: Row[]) =>
  table([
    ['command (whole process)', 'Folio ms', 'baseline', 'baseline ms', 'ratio', 'goal', 'met'],
    ...rows.map((r) => [
      r.what,
      fmt(r.folio),
      r.baseline,
      fmt(r.base),
      `${ratio(r.folio, r.base).toFixed(2)}x`,
      `<= ${r.goal}x`,
      ratio(r.folio, r.base) <= r.goal ? 'yes' : 'NO',
    ]),
  ]);

const heading = (what: string, size: number, runs: number, load0: number) => [
  `## ${what}: ${(size / 1024 ** 3).toFixed(2)} GiB synthetic log (page-cached), ${availableParallelism()} cores, ${runs} alternating runs each, ms median (min–max)`,
  `Load average at start ${load0.toFixed(2)}, at end ${loadavg()[0]!.toFixed(2)}; Node ${process.version}; ${spawnSync('rg', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]}`,
  '',
];

/**
 * An agent's first search of a big file: `folio mcp` spawned with an empty
 * index cache, `search` called twice (the first builds the line index), each
 * against `rg -c` run right after it. The pattern matches nothing, so every
 * tool reads the whole file.
 */
async function mcpFirstSearch(runs: number, big: string, work: string) {
  const cold: number[] = [];
  const warm: number[] = [];
  const rg: number[] = [];
  const pattern = 'no such word here';
  for (let i = 0; i <= runs; i++) {
    const cache = mkdtempSync(join(work, 'mcp-cache-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--root', dirname(big)],
      env: { ...(process.env as Record<string, string>), FOLIO_CACHE_DIR: cache },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'folio-bench', version: '1' });
    await client.connect(transport);
    const call = async () => {
      const t = performance.now();
      const r = await client.callTool({ name: 'search', arguments: { path: big, pattern, max_matches: 20 } }, undefined, { timeout: 600_000 });
      const ms = performance.now() - t;
      if (r.isError) throw new Error(`folio mcp search failed: ${JSON.stringify(r.content).slice(0, 300)}`);
      return ms;
    };
    const first = await call();
    const second = await call();
    await client.close();
    rmSync(cache, { recursive: true, force: true });
    const r = run({ argv: ['rg', '-c', pattern, big], ok: [1] });
    if (i === 0) continue;
    cold.push(first);
    warm.push(second);
    rg.push(r.ms);
  }
  return { cold, warm, rg };
}

export async function benchSearch(o: BenchOptions): Promise<void> {
  const { runs, big, size, work, load0 } = setUp(o, 'search');
  const rows: Row[] = [];
  const absolute = searchRows(runs, big, (what, baseline, goal, t) => rows.push({ what, baseline, goal, ...t }));
  const agent = await mcpFirstSearch(runs, big, work);
  rmSync(work, { recursive: true, force: true });
  const againstRg = (what: string, t: number[]) => {
    const r = median(t) / median(agent.rg);
    return [what, spread(t), spread(agent.rg), `${r.toFixed(2)}x`, '<= 1.2x rg', r <= 1.2 ? 'yes' : 'NO'];
  };
  const out = [
    ...heading('Search (whole process)', size, runs, load0),
    ratioTable(rows),
    '',
    absoluteTable(absolute),
    '',
    `### An agent's first search over MCP (\`folio mcp\`, empty index cache, a pattern with no match) against \`rg -c\``,
    '',
    table([
      ['call', 'Folio ms', '`rg -c` ms', 'ratio', 'goal', 'met'],
      againstRg('first `search` (builds the line index)', agent.cold),
      againstRg('second `search`', agent.warm),
      [
        'first against second',
        '',
        '',
        `${(median(agent.cold) / median(agent.warm)).toFixed(2)}x`,
        '<= 1.5x',
        median(agent.cold) <= 1.5 * median(agent.warm) ? 'yes' : 'NO',
      ],
    ]),
    '',
  ];
  process.stdout.write(out.join('\n') + '\n');
}

export async function benchCli(o: BenchOptions): Promise<void> {
  const { runs, big, size, work, load0 } = setUp(o, 'cli');
  const small = join(work, 'small.txt');
  writeFileSync(small, Array.from({ length: 1000 }, (_, i) => `line ${i + 1} of a small file\n`).join(''));

  const rows: Row[] = [];
  const add = (what: string, baseline: string, goal: number, t: { folio: Timing; base: Timing }) => rows.push({ what, baseline, goal, ...t });

  // Small commands against Node's own start.
  const node0 = node('-e', '0');
  add('`folio read small.txt --lines 1-10 --json`', '`node -e 0`', 1.3, pair(runs, folio(['read', small, '--lines', '1-10', '--json']), node0));
  add('`folio info small.txt --json`', '`node -e 0`', 1.3, pair(runs, folio(['info', small, '--json']), node0));
  // An upsert needs the current etag: read it (untimed) before each run; journaled in its own workspace.
  const upsert = folio(['upsert', small, '--replace', '2-2', '--content', 'line 2, edited\n', '--if-match', 'ETAG', '--json'], work);
  const etagAt = upsert.argv.indexOf('ETAG');
  add(
    '`folio upsert small.txt --replace 2-2 --if-match E --json`',
    '`node -e 0`',
    1.5,
    pair(runs, upsert, node0, () => {
      upsert.argv[etagAt] = JSON.parse(run(folio(['info', small, '--json'])).stdout).version.etag;
    }),
  );

  // Line counts: a rebuilt index (the file touched before each run) and a cached one.
  const wc: Cmd = { argv: ['wc', '-l', big] };
  const touch = () => {
    const now = new Date();
    utimesSync(big, now, now);
  };
  const rebuilt = pair(runs, folio(['info', big, '--json']), wc, touch);
  const wcLines = Number(rebuilt.base.stdout.trim().split(/\s+/)[0]);
  if (JSON.parse(rebuilt.folio.stdout).lines !== wcLines)
    throw new Error(`folio info counted ${JSON.parse(rebuilt.folio.stdout).lines} lines, wc -l ${wcLines}`);
  add('`folio info big.log --json` after `touch` (index rebuilt)', '`wc -l`', 1.1, rebuilt);
  add('`folio info big.log --json` (index cached)', '`wc -l`', 1.0, pair(runs, folio(['info', big, '--json']), wc));

  const absolute = searchRows(runs, big, add);
  // What an agent host waits for: `folio mcp` answering `initialize`.
  const init: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const ms = await initializeMs(work);
    if (i > 0) init.push(ms);
  }
  absolute.push({ what: '`folio mcp` until `initialize` answers', ms: init, baseline: '250 ms', baseMs: [250] });
  rmSync(work, { recursive: true, force: true });

  const out = [...heading('Whole process (CLI)', size, runs, load0), ratioTable(rows), '', absoluteTable(absolute), ''];
  // The quiet table first: the loaded part takes minutes.
  process.stdout.write(out.join('\n') + '\n');
  out.length = 0;

  if (process.env.FOLIO_BENCH_LOAD !== '0') {
    // The same searches with every core busy: slow-down of each tool against its own quiet run.
    const searchCmds = searchCmdsOf(big);
    const quiet = new Map(searchCmds.map((s) => [s.name, rows.find((r) => r.what.includes(`'${s.pattern}' --count`))!]));
    const stop = loadAllCores();
    const loaded: (string | number)[][] = [['search (count), every core busy', 'Folio ms', 'rg ms', 'ratio', 'Folio slow-down', 'rg slow-down']];
    try {
      for (const s of searchCmds) {
        const t = pair(runs, s.folio, s.rg);
        const q = quiet.get(s.name)!;
        loaded.push([
          s.name,
          fmt(t.folio),
          fmt(t.base),
          `${ratio(t.folio, t.base).toFixed(2)}x`,
          `${ratio(t.folio, q.folio).toFixed(2)}x`,
          `${ratio(t.base, q.base).toFixed(2)}x`,
        ]);
      }
    } finally {
      stop();
    }
    out.push(`### Under load: ${availableParallelism()} spinning processes (one per core) beside each run`, '', table(loaded), '');
  }
  process.stdout.write(out.join('\n') + '\n');
}
