/**
 * `npm run bench -- bounded [--runs N]`: the bounds of issue 24 in figures.
 *  - Searches: each backtracking pattern of the issue over a 3 MB adversarial file
 *    with a 2 s budget: time to its answer (timeout or result) and the longest the
 *    calling thread's event loop went without a turn meanwhile; baseline: a
 *    literal search of the same file, same run.
 *  - Token reads of a 300 KB line without a space (letters; mixed symbols): the
 *    first window deep inside it (a new file version: the line is tokenized) and
 *    the next one (its cuts kept), with the longest event-loop gap; baseline:
 *    counting 300 KB of ordinary prose, same run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handle } from '../src-main/api/handle.ts';
import { countTokens } from '../src-main/engine/address/tokens.ts';
import { closeSearchPools } from '../src-main/engine/search/search.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, median, table } from './lib.ts';

const H = { kind: 'human', name: 'bench' } as const;
const BUDGET_MS = 2000;
const PATTERNS = ['(.*a){12}', '(a|aa)+$', '(a|a)*b', '^(a+)+b', '^(\\w+\\s?)*$', '(x+x+)+y'];

/** Runs `work` with a 5 ms timer ticking: its outcome, its time and the longest gap between ticks (how long the event loop was held). */
async function timed(work: () => Promise<unknown>): Promise<{ ms: number; gapMs: number; outcome: string }> {
  let last = performance.now();
  let gapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gapMs = Math.max(gapMs, now - last);
    last = now;
  }, 5);
  const t0 = performance.now();
  let outcome: string;
  try {
    await work();
    outcome = 'answer';
  } catch (err) {
    outcome = (err as { code?: string }).code ?? 'error';
  }
  const ms = performance.now() - t0;
  clearInterval(timer);
  gapMs = Math.max(gapMs, performance.now() - last);
  return { ms, gapMs, outcome };
}

function adversarial(): string {
  const block = ['a'.repeat(999) + '!', 'x'.repeat(400) + 'z', 'word '.repeat(150) + '!', 'ba-'.repeat(11) + 'b'.repeat(500)].join('\n') + '\n';
  return block.repeat(Math.ceil(3_000_000 / block.length));
}

function randomLine(n: number, alphabet: string, seed: number): string {
  let s = '';
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    s += alphabet[seed % alphabet.length];
  }
  return s;
}

export async function benchBounded(opts: BenchOptions): Promise<void> {
  const dir = join(DATA_DIR, 'bounded');
  mkdirSync(dir, { recursive: true });
  const big = join(dir, 'adversarial-3MB.txt');
  writeFileSync(big, adversarial());
  await handle('file_info', { path: big }, H);

  const literal = median(await Promise.all([0, 1, 2].map(async () => (await timed(() => handle('search', { path: big, pattern: 'xyzzy' }, H))).ms)));
  const rows: (string | number)[][] = [['search (3 MB, 2 s budget)', 'answer', 'ms to answer', 'x literal', 'x budget', 'longest loop gap ms']];
  rows.push(['literal xyzzy (baseline)', 'answer', literal.toFixed(0), '1.0', (literal / BUDGET_MS).toFixed(2), '-']);
  const saved = process.env.FOLIO_SEARCH_TIMEOUT_MS;
  process.env.FOLIO_SEARCH_TIMEOUT_MS = String(BUDGET_MS);
  try {
    for (const pattern of PATTERNS) {
      const runs = [];
      for (let i = 0; i < Math.max(1, Math.min(opts.runs, 3)); i++) runs.push(await timed(() => handle('search', { path: big, pattern }, H)));
      const ms = median(runs.map((r) => r.ms));
      rows.push([
        `/${pattern}/`,
        runs[0]!.outcome,
        ms.toFixed(0),
        (ms / literal).toFixed(1),
        (ms / BUDGET_MS).toFixed(2),
        Math.max(...runs.map((r) => r.gapMs)).toFixed(0),
      ]);
    }
  } finally {
    if (saved === undefined) delete process.env.FOLIO_SEARCH_TIMEOUT_MS;
    else process.env.FOLIO_SEARCH_TIMEOUT_MS = saved;
  }
  process.stdout.write(`\n## bounded: pathological searches\n\n${table(rows)}\n`);

  const prose = 'the quick brown fox jumps over the lazy dog while the log rolls on '.repeat(Math.ceil(300_000 / 68)).slice(0, 300_000);
  await countTokens('warm the vocabulary');
  const baseline = await timed(() => countTokens(prose));
  const trows: (string | number)[][] = [['token read (300 KB line)', 'ms', 'x prose count', 'longest loop gap ms']];
  trows.push(['count 300 KB of prose (baseline)', baseline.ms.toFixed(0), '1.0', baseline.gapMs.toFixed(0)]);
  for (const [name, alphabet] of [
    ['letters', 'abcdefghijklmnopqrstuvwxyz'],
    ['mixed symbols', 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789!@#$%^&*()_+-=[]{};:,./<>?'],
  ] as const) {
    const p = join(dir, `line-${name.replace(' ', '-')}-${Date.now()}.txt`);
    writeFileSync(p, randomLine(300_000, alphabet, 7) + '\n');
    const first = await timed(() => handle('read', { path: p, token_start: 10_000, token_end: 10_100 }, H));
    const next = await timed(() => handle('read', { path: p, token_start: 10_100, token_end: 10_200 }, H));
    trows.push([`${name}: tokens 10000-10100, first`, first.ms.toFixed(0), (first.ms / baseline.ms).toFixed(1), first.gapMs.toFixed(0)]);
    trows.push([`${name}: tokens 10100-10200, next`, next.ms.toFixed(0), (next.ms / baseline.ms).toFixed(1), next.gapMs.toFixed(0)]);
  }
  process.stdout.write(`\n## bounded: token reads\n\n${table(trows)}\n`);
  await closeSearchPools();
}
