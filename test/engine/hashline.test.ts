import { describe, expect, it } from 'vitest';
import { codecFor } from '../../src-main/engine/text/codec.ts';
import { hashlineText, lineHash, parseAnchor } from '../../src-main/engine/text/hashline.ts';

const utf8 = (b: Uint8Array) => Buffer.from(b).toString('utf8');

describe('hashline', () => {
  it('a line hash ignores the terminator: LF, CRLF and none hash alike', () => {
    const h = lineHash(Buffer.from('alpha'));
    expect(h).toMatch(/^[0-9a-f]{3}$/);
    expect(lineHash(Buffer.from('alpha\n'))).toBe(h);
    expect(lineHash(Buffer.from('alpha\r\n'))).toBe(h);
    expect(lineHash(Buffer.from('alphb'))).not.toBe(h);
  });

  // Agents store anchors (`LINE#HHH`) between a read and an upsert, and the MCP/CLI docs
  // print them: the hash is a wire format. These are literals, computed once (2026-11-27)
  // and checked against an independent FNV-1a 32 written in Python, so any change of
  // algorithm, bits kept or terminator handling fails here instead of breaking stored anchors.
  it('is pinned: FNV-1a 32, low 12 bits, over the bytes without LF / CRLF (fixed values)', () => {
    const pinned: [string, Buffer, string][] = [
      ['empty line', Buffer.from(''), 'dc5'],
      ['a lone LF', Buffer.from('\n'), 'dc5'],
      ['a lone CRLF', Buffer.from('\r\n'), 'dc5'],
      ['ASCII', Buffer.from('alpha'), 'dab'],
      ['ASCII with CRLF', Buffer.from('alpha\r\n'), 'dab'],
      ['tabs and spaces', Buffer.from('  indented\tline'), 'd7b'],
      ['Latin-1 letters in UTF-8', Buffer.from('größe = 1 // ü'), 'dcf'],
      ['CJK in UTF-8', Buffer.from('日本語のテキスト'), '00d'],
      ['astral emoji in UTF-8', Buffer.from('😀 emoji'), '546'],
      ['a 10,000-byte line', Buffer.from('x'.repeat(10_000)), '805'],
      ['a 70,000-byte line of every byte value', Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251)), '430'],
      ['a CR inside the line is hashed', Buffer.from('a\rb'), 'e43'],
      ['only the CR before the LF is dropped', Buffer.from('trailing \r\r\n'), 'ac6'],
      ['invalid UTF-8 bytes', Buffer.from([0xff, 0xfe, 0x20, 0x62]), '0f6'],
    ];
    for (const [what, bytes, hash] of pinned) expect(lineHash(bytes), what).toBe(hash);
    // UTF-16: the hash is over the code-unit bytes as stored, so LE and BE differ.
    const le = Buffer.from('größe 日本\r\n', 'utf16le');
    const be = Buffer.from(le).swap16();
    expect(lineHash(le, 0, le.length, codecFor('utf-16le'))).toBe('6f7');
    expect(lineHash(be, 0, be.length, codecFor('utf-16be'))).toBe('3d3');
    expect(hashlineText(Buffer.from('one\r\ntwo\n'), 41, true, utf8)).toBe('41#9ef|one\r\n42#829|two\n');
  });

  it('prefixes each line with LINE#HHH| and a cut last line with LINE#???|', () => {
    const buf = Buffer.from('one\ntwo\nthr');
    expect(hashlineText(buf, 7, true, utf8)).toBe(
      `7#${lineHash(Buffer.from('one'))}|one\n8#${lineHash(Buffer.from('two'))}|two\n9#${lineHash(Buffer.from('thr'))}|thr`,
    );
    expect(hashlineText(buf, 7, false, utf8).split('\n')[2]).toBe('9#???|thr');
  });

  it('parses what it prints, and nothing that cannot anchor an edit', () => {
    const line = hashlineText(Buffer.from('x = 1\n'), 12, true, utf8);
    expect(parseAnchor(line)).toEqual({ lineNo: 12, hash: lineHash(Buffer.from('x = 1')) });
    expect(parseAnchor(' 3#a0f ')).toEqual({ lineNo: 3, hash: 'a0f' });
    for (const bad of ['3#???', '0#a0f', '3#A0F', '3#a0', 'a0f', '3a0f']) expect(parseAnchor(bad)).toBeNull();
  });
});
