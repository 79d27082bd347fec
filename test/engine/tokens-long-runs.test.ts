/**
 * Token counts have bounded work: a line of one character class hundreds of KB long
 * (no space to cut it) is counted in pieces, fast, with the event loop free to run
 * meanwhile; text without such runs counts exactly as gpt-tokenizer counts it.
 */
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { MAX_RUN_CHARS, countTokens } from '../../src-main/engine/address/tokens.ts';
import { prng } from '../fixtures/generate.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { runs } from '../fixtures/effort.ts';
import { budgetMs } from '../fixtures/load.ts';

const tmp = engineTempDir();
const H = { kind: 'human', name: 'test' } as const;
const AS_TEXT = { disallowedSpecial: new Set<string>() };

function randomLetters(n: number, seed: number): string {
  const rand = prng(seed);
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(97 + Math.floor(rand() * 26));
  return s;
}

/** Runs `work` with a 10 ms timer ticking meanwhile: its result, how long it took, and the longest gap between ticks. */
async function withTicker<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; ticks: number; longestGapMs: number }> {
  let ticks = 0;
  let last = performance.now();
  let longestGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
    ticks++;
  }, 10);
  const t0 = performance.now();
  try {
    const value = await work();
    const ms = performance.now() - t0;
    longestGapMs = Math.max(longestGapMs, performance.now() - last);
    return { value, ms, ticks, longestGapMs };
  } finally {
    clearInterval(timer);
  }
}

describe('token counts with bounded work', () => {
  it('a 300 KB line of letters without a space is paged and counted in seconds while a timer keeps ticking', { timeout: 30_000 }, async () => {
    const p = tmp.path('one-long-line.txt');
    const line = randomLetters(300_000, 7);
    writeFileSync(p, `short first line\n${line}\nlast\n`);
    const paged = await withTicker(() => handle('read', { path: p, page_tokens: 100_000, page: 1 }, H));
    expect(paged.ms).toBeLessThan(budgetMs(5_000));
    expect(paged.ticks).toBeGreaterThan(3);
    expect(paged.longestGapMs).toBeLessThan(budgetMs(500));
    // The long line is a page of its own (a line over the budget).
    const page2 = await handle('read', { path: p, page_tokens: 100, page: 2 }, H);
    expect(page2.start_line).toBe(2);
    expect(page2.content.startsWith(line.slice(0, 10_000))).toBe(true);
    expect(page2.tokens!.count).toBeGreaterThan(10_000);

    const counted = await withTicker(() => countTokens(line));
    expect(counted.ms).toBeLessThan(budgetMs(5_000));
    expect(counted.longestGapMs).toBeLessThan(budgetMs(500));
    // Random letters are about 2 characters a token: the pieces count a plausible number.
    expect(counted.value).toBeGreaterThan(100_000);
    expect(counted.value).toBeLessThan(200_000);

    const ranged = await withTicker(() => handle('read', { path: p, token_start: 10, token_end: 20 }, H));
    expect(ranged.ms).toBeLessThan(budgetMs(5_000));
    expect(ranged.value.start_line).toBe(2);
    // Exactly tokens 10-20 of the file, not the whole 300 KB line.
    expect(ranged.value.tokens).toMatchObject({ start_token: 10, end_token: 20 });
    expect(ranged.value.content).toBe(`short first line\n${line}`.slice(ranged.value.start_byte, ranged.value.end_byte));
    expect(ranged.value.content.length).toBeLessThan(200);
  });

  it('long runs of whitespace, punctuation and CJK are bounded too, and a pieced count stays within 1% of the whole encode', async () => {
    for (const run of [' '.repeat(200_000), '\t'.repeat(200_000), '!@#$%^&*()'.repeat(20_000), '日本語のログ漢字'.repeat(25_000)]) {
      const { ms } = await withTicker(() => countTokens(`x${run}y\n`));
      expect(ms).toBeLessThan(budgetMs(5_000));
    }
    const run = randomLetters(6_000, 3);
    const exact = o200k(run, AS_TEXT);
    const pieced = await countTokens(run);
    expect(Math.abs(pieced - exact) / exact).toBeLessThan(0.01);
  });

  it('text without a run longer than MAX_RUN_CHARS counts exactly as gpt-tokenizer counts it, for both tokenizers', async () => {
    const word = fc.oneof(
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.constantFrom(
        'héllo',
        'wörld ✓',
        '日本語',
        '    ',
        '\t',
        '<|endoftext|>',
        'x'.repeat(MAX_RUN_CHARS),
        '='.repeat(MAX_RUN_CHARS),
        ' '.repeat(MAX_RUN_CHARS),
      ),
    );
    const text = fc.array(word, { minLength: 1, maxLength: 80 }).map((ws) => ws.join(' '));
    await fc.assert(
      fc.asyncProperty(text, async (t) => {
        fc.pre(!/[\p{L}\p{M}]{513,}|\s{513,}|[^\s\p{L}\p{M}\p{N}]{513,}/u.test(t));
        expect(await countTokens(t)).toBe(o200k(t, AS_TEXT));
        expect(await countTokens(t, 'cl100k_base')).toBe(cl100k(t, AS_TEXT));
      }),
      runs(200),
    );
  });
});
