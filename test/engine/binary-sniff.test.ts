/**
 * Text or binary: U+007F (DEL) is a character of UTF-8 text (JSON strings may
 * hold it unescaped, RFC 8259 §7), so DEL-heavy JSON is text; heads that are
 * not valid UTF-8, or full of other control bytes, NULs or magic numbers, stay
 * binary. The oracle for "text" is Node's own UTF-8 check and JSON.parse.
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { SNIFF_BYTES, sniffBinary } from '../../src-main/engine/text/binary-sniff.ts';
import { PNG_1x1 } from '../fixtures/generate.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

const tmp = engineTempDir();
const H = { kind: 'human', name: 'test' } as const;
const sniff = (name: string, content: string | Buffer) => {
  const p = tmp.path(name);
  writeFileSync(p, content);
  return sniffBinary(p, readFileSync(p).length);
};

describe('binary sniffing and U+007F', () => {
  it('a JSON document whose strings are mostly U+007F is text, and JSON reads and edits work on it', async () => {
    const doc = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, '\u007f'.repeat(20) + 'é']));
    const p = tmp.path('del.json');
    writeFileSync(p, JSON.stringify(doc, null, 2));
    const bytes = readFileSync(p);
    expect(isUtf8(bytes)).toBe(true);
    expect(bytes.filter((b) => b === 0x7f).length).toBeGreaterThan(bytes.length / 2);
    expect((await sniffBinary(p, bytes.length)).isBinary).toBe(false);
    const r = await handle('read', { path: p, json_path: '$.k7' }, H);
    expect(r.json!.matches[0]!.value).toBe(doc.k7);
    expect(r.encoding).toBe('utf-8');
    const info = await handle('file_info', { path: p }, H);
    expect(info.binary.is_binary).toBe(false);
    await handle('upsert', { path: p, target: { json: { path: '$.k7', op: 'set', value: '\u007fx' } }, if_match: r.version.etag }, H);
    expect(JSON.parse(readFileSync(p, 'utf8'))).toEqual({ ...doc, k7: '\u007fx' });
  });

  it('DEL text longer than the sniffed head, cut inside a two-byte character there, is text', async () => {
    // 'é' (2 bytes) + 3 DEL: 5-byte periods, and SNIFF_BYTES % 5 = 1, so the head ends on the first byte of an 'é'.
    const text = ('é' + '\u007f'.repeat(3)).repeat(Math.ceil((SNIFF_BYTES * 2) / 5));
    expect(SNIFF_BYTES % 5).toBe(1);
    expect((await sniff('cut.txt', text)).isBinary).toBe(false);
    // The same head as a whole file ends inside a character: not valid UTF-8, so its DELs count again.
    const head = Buffer.from(text).subarray(0, SNIFF_BYTES);
    expect(isUtf8(head)).toBe(false);
    expect((await sniff('cut-whole.txt', head)).isBinary).toBe(true);
  });

  it('real binary stays binary: DEL with invalid UTF-8, other control bytes, NUL, magic numbers', async () => {
    expect((await sniff('del-ff.bin', Buffer.from([0x7f, 0xff, 0x7f, 0x41].flatMap((b) => Array(256).fill(b))))).isBinary).toBe(true);
    expect((await sniff('ctl.bin', Buffer.from('a\u0001\u0002b\u007f'.repeat(500)))).isBinary).toBe(true);
    expect((await sniff('nul.bin', Buffer.from('text\u0000'.repeat(10)))).isBinary).toBe(true);
    expect(await sniff('pic.png', PNG_1x1)).toMatchObject({ isBinary: true, type: 'image/png' });
    // A little DEL (under 10% of the bytes) in text that is not UTF-8 is still text.
    expect((await sniff('few.txt', Buffer.from('abcdefghijklmnopq\u007f\xe9\n'.repeat(100), 'latin1'))).isBinary).toBe(false);
  });
});
