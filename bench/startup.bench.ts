/**
 * `npm run bench -- startup [--runs N]`: how long a whole `folio` process takes to be
 * of use, against `node -e 0` (Node's own start) in the same run, alternating
 * (Folio, node, Folio, ...) after one warm-up each; ms median (min–max).
 * - `folio mcp`: from spawn to the answer of `initialize` on stdout (what an agent
 *   host waits for before it lists tools); the process is then closed.
 * - `folio read small.txt --lines 1-10 --json`: the whole process.
 * Runs the bundle (dist/cli.mjs), rebuilt first. Goal (issue 26): `initialize` in
 * ≤ 250 ms on a quiet machine; the ratio to `node -e 0` is what carries across loads.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

/** ms from spawning `folio mcp` to its answer to `initialize`; then stdin closes and the process is awaited. */
async function initializeMs(root: string): Promise<number> {
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
  const load0 = loadavg()[0]!;
  const node0 = [process.execPath, '-e', '0'];
  const t = { init: [] as number[], read: [] as number[], node: [] as number[] };
  for (let i = 0; i <= runs; i++) {
    const init = await initializeMs(work);
    const n1 = wholeProcessMs(node0);
    const read = wholeProcessMs([process.execPath, BIN, 'read', small, '--lines', '1-10', '--json']);
    const n2 = wholeProcessMs(node0);
    if (i === 0) continue; // warm-up
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
      ]) +
      '\n',
  );
}
