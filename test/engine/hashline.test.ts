import { describe, expect, it } from 'vitest';
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
