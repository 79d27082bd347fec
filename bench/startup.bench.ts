/**
 * `npm run bench -- startup [--runs N]`: how long a whole `folio` process takes to be
 * of use, against `node -e 0` (Node's own start) in the same run, alternating
 * (Folio, node, Folio, ...) after one warm-up each; ms median (min–max).
 * - `folio mcp`: from spawn to the answer of `initialize` on stdout (what an agent
 *   host waits for before it lists tools); the process is then closed.
 * - `folio read small.txt --lines 1-10 --json`: the whole process.
 * - `folio review history --json` of a workspace with a journal: the whole process,
 *   wall and CPU (it loads Automerge, whose wasm a one-shot command compiles with the
 *   baseline tier only: src-main/review/automerge.ts).
 * Runs the bundle (dist/cli.mjs), rebuilt first. Goal (issue 26): `initialize` in
 * ≤ 250 ms on a quiet machine; the ratio to `node -e 0` is what carries across loads.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions } from './main.ts';
import { median, table } from './lib.ts';

const BIN = join(process.cwd(), 'bin/folio.mjs');

const INITIALIZE =
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'startup-bench', version: '0' } },
  }) + '\n';

/** ms from spawn to exit of a command that must succeed. */
function wholeProcessMs(argv: string[]): number {
  const t = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8' });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
  return ms;
}

/** CPU ms (user + system) of this process's waited-for children so far (Linux /proc). */
function childrenCpuMs(): number {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
}

/** ms from spawning `folio mcp` to its answer to `initialize`; then stdin closes and the process is awaited. */
export async function initializeMs(root: string): Promise<number> {
  const t = performance.now();
  const child = spawn(process.execPath, [BIN, 'mcp', '--root', root], { stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  child.stdin.write(INITIALIZE);
  const ms = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n').find((l) => l.includes('"id":1'));
      if (line) resolve(performance.now() - t);
    });
    child.once('exit', (code) => reject(new Error(`folio mcp exited (${code}) before answering: ${err}`)));
  });
  child.stdin.end();
  await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
  return ms;
}

const fmt = (ms: number[]) => `${median(ms).toFixed(0)} (${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)})`;

export async function benchStartup(o: BenchOptions): Promise<void> {
  // bin/folio.mjs runs the sources through tsx when the bundle is older than them: measure the bundle.
  wholeProcessMs([process.execPath, 'scripts/build-cli.mjs']);
  const runs = Math.max(10, o.runs);
  const work = mkdtempSync(join(tmpdir(), 'folio-bench-startup-'));
  const small = join(work, 'small.txt');
  writeFileSync(small, Array.from({ length: 100 }, (_, i) => `line ${i + 1}\n`).join(''));
  // A journal of three edits for `review history` to show.
  const edited = join(work, 'edited.txt');
  writeFileSync(edited, 'a\nb\nc\n');
  for (const [i, text] of ['A', 'B', 'C'].entries()) {
    const etag = JSON.parse(spawnSync(process.execPath, [BIN, 'info', edited, '--json'], { encoding: 'utf8' }).stdout).version.etag;
    wholeProcessMs([process.execPath, BIN, 'upsert', edited, '--replace', `${i + 1}-${i + 1}`, '--content', text, '--if-match', etag, '--root', work]);
  }
  const history = [process.execPath, BIN, 'review', 'history', '--root', work, '--json'];
  const entries = JSON.parse(spawnSync(history[0]!, history.slice(1), { encoding: 'utf8' }).stdout).entries.length;
  if (entries !== 3) throw new Error(`review history lists ${entries} entries, not the 3 edits`);
  const load0 = loadavg()[0]!;
  const node0 = [process.execPath, '-e', '0'];
  const t = { init: [] as number[], read: [] as number[], node: [] as number[], history: [] as number[], historyCpu: [] as number[], nodeCpu: [] as number[] };
  for (let i = 0; i <= runs; i++) {
    const init = await initializeMs(work);
    const n1 = wholeProcessMs(node0);
    const read = wholeProcessMs([process.execPath, BIN, 'read', small, '--lines', '1-10', '--json']);
    const n2 = wholeProcessMs(node0);
    const c0 = childrenCpuMs();
    const hist = wholeProcessMs(history);
    const c1 = childrenCpuMs();
    wholeProcessMs(node0);
    const c2 = childrenCpuMs();
    if (i === 0) continue; // warm-up
    t.history.push(hist);
    t.historyCpu.push(c1 - c0);
    t.nodeCpu.push(c2 - c1);
    t.init.push(init);
    t.read.push(read);
    t.node.push(n1, n2);
  }
  rmSync(work, { recursive: true, force: true });
  const base = median(t.node);
  process.stdout.write(
    `\nstartup: ${runs} runs each, load ${load0.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}\n` +
      table([
        ['whole process', 'Folio ms', '`node -e 0` ms', 'ratio', 'goal'],
        ['`folio mcp` until `initialize` answers', fmt(t.init), fmt(t.node), `${(median(t.init) / base).toFixed(2)}x`, '≤ 250 ms'],
        ['`folio read small.txt --lines 1-10 --json`', fmt(t.read), fmt(t.node), `${(median(t.read) / base).toFixed(2)}x`, '≤ 1.5x'],
        ['`folio review history --json` (3 entries)', fmt(t.history), fmt(t.node), `${(median(t.history) / base).toFixed(2)}x`, ''],
        ['… its CPU ms', fmt(t.historyCpu), fmt(t.nodeCpu), `${(median(t.historyCpu) / median(t.nodeCpu)).toFixed(2)}x`, ''],
      ]) +
      '\n',
  );
}
