import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { runs } from '../fixtures/effort.ts';

const tmp = engineTempDir();
const H = { kind: 'human', name: 'test' } as const;
// Text, not control bytes: random control characters can spell a binary magic number (a file sniffed as a shapefile failed CI once).
const textLine = fc.string({ maxLength: 30 }).map((l) => [...l].filter((c) => c === '\t' || (c >= ' ' && c !== '\x7f')).join(''));
const text = fc
  .array(fc.oneof(textLine, fc.constantFrom('', 'héllo wörld ✓', '    indented code();', '<|endoftext|>')), { minLength: 1, maxLength: 60 })
  .map((ls) => ls.join('\n') + (ls.length % 2 ? '\n' : ''));

describe('tokens', () => {
  it("the count of an answer is gpt-tokenizer's own count of its content, for both tokenizers", async () => {
    const p = tmp.path('count.txt');
    writeFileSync(p, 'Folio reads windows of huge files.\nÜnïcödé ✓ <|endoftext|>\n');
    const a = await handle('read', { path: p, full: true, tokenizer: 'o200k_base' }, H);
    expect(a.tokens).toEqual({ tokenizer: 'o200k_base', count: o200k(a.content, { disallowedSpecial: new Set() }) });
    const b = await handle('read', { path: p, ranges: [{ start: 1, end: 1 }], tokenizer: 'cl100k_base' }, H);
    expect(b.tokens!.count).toBe(cl100k('Folio reads windows of huge files.\n'));
    expect((await handle('read', { path: p, full: true }, H)).tokens).toBeUndefined();
    // Several ranges: their texts together (the answer's content is then empty).
    writeFileSync(p, 'one two\nthree\nfour five six\n');
    const several = await handle(
      'read',
      {
        path: p,
        ranges: [
          { start: 1, end: 1 },
          { start: 3, end: 3 },
        ],
        tokenizer: 'o200k_base',
      },
      H,
    );
    expect(several.tokens!.count).toBe(o200k('one two\nfour five six\n'));
  });

  it('token ranges walked by end_token, and token pages, rejoin to the file', async () => {
    const p = tmp.path('walk.txt');
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 1, max: 40 }), async (t, n) => {
        writeFileSync(p, t);
        // A text that starts like a known binary format ("BM\n" is a bitmap's magic number) is read as binary, rightly: not this property's case.
        const binary = await handle('read', { path: p, token_start: 0, token_end: 1 }, H).then(
          () => false,
          (e: { code?: string }) => e.code === 'binary_file',
        );
        fc.pre(!binary);
        let joined = '';
        for (let at = 0; ;) {
          const r = await handle('read', { path: p, token_start: at, token_end: at + n }, H).catch((e: { code?: string }) => {
            if (e.code === 'out_of_bounds') return null;
            throw e;
          });
          if (!r) break;
          expect(r.tokens!.start_token).toBe(at);
          joined += r.content;
          at = r.tokens!.end_token!;
        }
        expect(joined).toBe(t);
        let pages = '';
        for (let page = 1; page;) {
          const r = await handle('read', { path: p, page_tokens: n, page, tokenizer: 'cl100k_base' }, H);
          pages += r.content;
          page = r.tokens!.next_page ?? 0;
        }
        expect(pages).toBe(t);
      }),
      runs(60),
    );
  });

  it('errors: unknown tokenizer, a reversed range, a token past the end, a page past the last', async () => {
    const p = tmp.path('err.txt');
    writeFileSync(p, 'one\ntwo\n');
    await expect(handle('read', { path: p, tokenizer: 'gpt2' as never }, H)).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(handle('read', { path: p, token_start: 5, token_end: 2 }, H)).rejects.toMatchObject({ code: 'invalid_range' });
    await expect(handle('read', { path: p, token_start: 500, token_end: 600 }, H)).rejects.toMatchObject({ code: 'out_of_bounds' });
    await expect(handle('read', { path: p, page_tokens: 100, page: 2 }, H)).rejects.toMatchObject({ code: 'beyond_end', details: { last_page: 1 } });
    await expect(handle('read', { path: p, page_tokens: 100, head: 1 }, H)).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
