/**
 * Token windows are exact: `read {token_start, token_end}` returns the bytes of
 * exactly those tokens (or says where it stopped, at the byte cap or at a
 * character a token splits), so reading on from `end_token` covers every byte of
 * the file once, even inside a 300 KB line without a space.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { MAX_RUN_CHARS, tokenLimits } from '../../src-main/engine/address/tokens.ts';
import { prng } from '../fixtures/generate.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { runs } from '../fixtures/effort.ts';

const tmp = engineTempDir();
const H = { kind: 'human', name: 'test' } as const;
const AS_TEXT = { disallowedSpecial: new Set<string>() };
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const MIXED = LETTERS + 'ABCDEFGHIJ0123456789!@#$%^&*()_+-=[]{};:,./<>?';

function randomText(n: number, alphabet: string, seed: number): string {
  const rand = prng(seed);
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
  return s;
}

/** Read the file in token windows of `size` from token 0, each from the last one's end_token, to the end. */
async function pageByTokens(path: string, size: number, maxPages = 10_000) {
  const pages: { content: string; start: number; end: number; total: number | null }[] = [];
  let start = 0;
  for (let i = 0; i < maxPages; i++) {
    const r = await handle('read', { path, token_start: start, token_end: start + size }, H).catch((e: unknown) => e);
    if ((r as { code?: string }).code === 'out_of_bounds') break;
    const ok = r as Awaited<ReturnType<typeof handle<'read'>>>;
    const t = ok.tokens!;
    expect(t.start_token).toBe(start);
    expect(t.end_token).toBeGreaterThan(start);
    pages.push({ content: ok.content, start: t.start_token!, end: t.end_token!, total: t.total_tokens ?? null });
    start = t.end_token!;
  }
  return pages;
}

describe('exact token windows', () => {
  for (const [name, alphabet] of [
    ['letters', LETTERS],
    ['mixed symbols', MIXED],
  ] as const) {
    it(
      `a 300 KB line of ${name} without a space: token_start 0, token_end 50 is 50 tokens, and a window deep inside it is exact`,
      { timeout: 180_000 },
      async () => {
        const p = tmp.path(`long-${name.replace(' ', '-')}.txt`);
        const line = randomText(300_000, alphabet, 11);
        writeFileSync(p, `${line}\n`);
        const head = await handle('read', { path: p, token_start: 0, token_end: 50 }, H);
        expect(head.tokens).toMatchObject({ start_token: 0, end_token: 50, total_tokens: expect.any(Number) });
        expect(line.startsWith(head.content)).toBe(true);
        expect(head.content.length).toBeLessThan(1000);
        expect(head.tokens!.count).toBe(50);
        expect(head.end_byte).toBe(Buffer.byteLength(head.content));

        const deep = await handle('read', { path: p, token_start: 10_000, token_end: 10_100 }, H);
        expect(deep.tokens).toMatchObject({ start_token: 10_000, end_token: 10_100 });
        expect(deep.content).toBe(line.slice(deep.start_byte, deep.end_byte));
        expect(deep.tokens!.count).toBeGreaterThanOrEqual(95); // the window's text alone can merge a little differently at its edges
        expect(deep.tokens!.count).toBeLessThanOrEqual(105);
      },
    );
  }

  it(
    'windows read on from end_token over a 300 KB spaceless line rejoin to the file, byte for byte, and end at total_tokens',
    { timeout: 180_000 },
    async () => {
      const p = tmp.path('rejoin-long.txt');
      const text = `first line\n${randomText(300_000, LETTERS, 5)}\n${randomText(100_000, MIXED, 6)}\nlast\n`;
      writeFileSync(p, text);
      // 100,000 tokens is over the 256 KiB byte cap in the long line: the window says where it stopped.
      const pages = await pageByTokens(p, 100_000);
      expect(pages.map((x) => x.content).join('')).toBe(text);
      expect(pages.at(-1)!.end).toBe(pages.at(-1)!.total);
      for (let i = 1; i < pages.length; i++) expect(pages[i]!.start).toBe(pages[i - 1]!.end);
    },
  );

  it('property: token windows of any size rejoin to the file (multi-byte characters, long runs, CRLF)', { timeout: 120_000 }, async () => {
    const chunk = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom('héllo wörld', '日本語のログ', '😀😀😀', '\r\n', '\n', ' '.repeat(40), '<|endoftext|>'),
      fc.integer({ min: MAX_RUN_CHARS - 10, max: 3 * MAX_RUN_CHARS }).map((n) => 'ab'.repeat(n).slice(0, n)),
      fc.integer({ min: 100, max: 2000 }).map((n) => '日'.repeat(n)),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(chunk, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 400 }), async (parts, size) => {
        const text = parts.join('');
        fc.pre(text.length > 0);
        const p = tmp.path(`prop-${run++}.txt`);
        writeFileSync(p, text);
        const pages = await pageByTokens(p, size);
        expect(pages.map((x) => x.content).join('')).toBe(readFileSync(p, 'utf8'));
        if (!/[\p{L}\p{M}]{513,}|\s{513,}|[^\s\p{L}\p{M}\p{N}]{513,}/u.test(text) && !text.includes('\n')) {
          // One line without a long run: the total is gpt-tokenizer's own count.
          expect(pages.at(-1)!.end).toBe(o200k(text, AS_TEXT));
        }
      }),
      runs(40),
    );
  });

  it('a line too long to keep all its cuts keeps those near the window: windows stay exact and rejoin', { timeout: 180_000 }, async () => {
    const p = tmp.path('filtered-cuts.txt');
    const text = `${randomText(40_000, LETTERS, 21)}\nhé ${'日本語'.repeat(3000)}\n${randomText(20_000, MIXED, 22)}`;
    writeFileSync(p, text);
    const saved = tokenLimits.fullCutsMaxBytes;
    tokenLimits.fullCutsMaxBytes = 0;
    try {
      const pages = await pageByTokens(p, 3_001);
      expect(pages.map((x) => x.content).join('')).toBe(text);
      const w = await handle('read', { path: p, token_start: 7_777, token_end: 7_800 }, H);
      expect(w.tokens).toMatchObject({ start_token: 7_777, end_token: 7_800 });
      expect(w.content).toBe(text.slice(w.start_byte, w.end_byte));
    } finally {
      tokenLimits.fullCutsMaxBytes = saved;
    }
  });

  it('a token read of a 300 KB line leaves the server free: a file_info sent after it answers first', { timeout: 180_000 }, async () => {
    const p = tmp.path('busy.txt');
    writeFileSync(p, `${randomText(300_000, MIXED, 9)}\n`);
    const tiny = tmp.path('tiny.txt');
    writeFileSync(tiny, 'x\n');
    await handle('file_info', { path: tiny }, H);
    const order: string[] = [];
    const read = handle('read', { path: p, token_start: 10_000, token_end: 10_100 }, H).then(() => order.push('read'));
    const info = handle('file_info', { path: tiny }, H).then(() => order.push('file_info'));
    await Promise.all([read, info]);
    expect(order).toEqual(['file_info', 'read']);
  });
});
