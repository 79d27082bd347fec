import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { READ_LIMITS } from '../../src-main/engine/read/read-result.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

const tmp = engineTempDir();
const H = { kind: 'human', name: 'test' } as const;
const CAP = READ_LIMITS.maxWindowBytes;

/** A line of `bytes` bytes or so: words, CJK and accented letters, so a cut at the cap can land inside a character. */
function longLine(bytes: number, seed: number): string {
  const words = ['alpha', '中文字', 'héllo', 'wörld', '{"k":1}', '✓✓', 'x'.repeat(seed % 7)];
  const parts: string[] = [];
  for (let i = seed, n = 0; n < bytes; i++) {
    const w = words[i % words.length] + (i % 5 ? ' ' : ',');
    parts.push(w);
    n += Buffer.byteLength(w);
  }
  return parts.join('');
}

describe('token pages cover lines longer than the cap', () => {
  it('every byte once, pages within the cap, cut on characters, mid-line flags true', async () => {
    const file = tmp.path('long-lines.txt');
    const text = `short\n${longLine(CAP * 2 + 1234, 1)}\nmiddle line\n${longLine(CAP + 1, 2)}\r\n${longLine(CAP * 3 - 7, 3)}`;
    writeFileSync(file, text);
    for (const budget of [50, 100_000_000]) {
      const parts: Buffer[] = [];
      let midLinePages = 0;
      let lastEndsMid = false;
      for (let page = 1; page;) {
        const r = await handle('read', { path: file, page_tokens: budget, page }, H);
        const bytes = Buffer.from(r.content);
        expect(bytes.length).toBeLessThanOrEqual(CAP);
        expect(r.content).not.toContain('\ufffd');
        expect(r.starts_mid_line ?? false).toBe(lastEndsMid);
        lastEndsMid = r.ends_mid_line ?? false;
        if (lastEndsMid) midLinePages++;
        parts.push(bytes);
        page = r.tokens!.next_page ?? 0;
      }
      expect(lastEndsMid).toBe(false);
      expect(Buffer.concat(parts).equals(readFileSync(file))).toBe(true);
      // 2 + 1 + 2 cuts at least: each long line is split where it passes the cap.
      expect(midLinePages).toBeGreaterThanOrEqual(5);
    }
  }, 120_000);

  it('token offsets stay ordered and count a cut line once', async () => {
    const file = tmp.path('long-one.txt');
    writeFileSync(file, `a b c\n${longLine(CAP * 2, 4)}\nend\n`);
    let at = 0;
    let total = 0;
    for (let page = 1; page;) {
      const r = await handle('read', { path: file, page_tokens: 10, page }, H);
      expect(r.tokens!.start_token).toBe(at);
      expect(r.tokens!.end_token).toBeGreaterThanOrEqual(at);
      at = r.tokens!.end_token!;
      total = r.tokens!.total_tokens ?? total;
      page = r.tokens!.next_page ?? 0;
    }
    expect(at).toBe(total);
  }, 120_000);
});
