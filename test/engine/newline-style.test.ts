/**
 * Newline style is the dominant line ending, with the counts reported (checked
 * against wc -l, Python and tr); inserted text follows it; search matches lines
 * without their CR, so `$` matches before a CRLF (grep needs `\r?$` for that).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fileInfo } from '../../src-main/engine/read/file-info.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { searchPath } from '../../src-main/engine/search/search-path.ts';
import { upsert } from '../../src-main/engine/write/upsert.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

const tmp = engineTempDir();
let n = 0;
function file(text: string): string {
  const p = tmp.path(`nl-${n++}.txt`);
  writeFileSync(p, text);
  return p;
}

const sh = (cmd: string, path: string) => Number(execFileSync('sh', ['-c', cmd, 'sh', path]).toString().trim());
/** Line endings by kind, from wc, Python and tr: LF lines, CRLF lines, CRs not before a LF. */
function toolCounts(path: string): { lf: number; crlf: number; cr: number } {
  const newlines = sh('wc -l < "$1"', path);
  const crlf = sh(`python3 -c 'import sys; print(open(sys.argv[1], "rb").read().count(b"\\r\\n"))' "$1"`, path);
  const cr = sh(`tr -cd '\\r' < "$1" | wc -c`, path);
  return { lf: newlines - crlf, crlf, cr: cr - crlf };
}

/** A CRLF file of `lines` lines, one of which (`two`) has a stray CR before its CRLF. */
function crlfWithStrayCr(lines: number): string {
  return Array.from({ length: lines }, (_, i) => (i === 1 ? 'two\r\r\n' : `line ${i + 1}\r\n`)).join('');
}

describe('newline style', () => {
  it('is the dominant ending, with counts equal to wc -l, Python and tr: a stray CR does not make a CRLF file mixed', async () => {
    for (const [text, style] of [
      [crlfWithStrayCr(200), 'crlf'],
      ['two\r\r\n', 'crlf'],
      ['a\nb\nc\r\n', 'lf'],
      ['a\r\nb\n', 'mixed'],
      ['a\rb\rc\r', 'cr'],
      ['a\rb\rc\r\n', 'cr'],
      ['no ending', 'none'],
    ] as const) {
      const p = file(text);
      const info = await fileInfo(p);
      expect(info.newlineCounts, JSON.stringify(text.slice(0, 20))).toEqual(toolCounts(p));
      expect(info.newlineStyle, JSON.stringify(text.slice(0, 20))).toBe(style);
      expect((await read(p, { mode: 'head', lines: 1 })).newlineStyle).toBe(style);
    }
  });

  it('inserted and replaced lines follow it: every line of the CRLF file still ends in CRLF (grep finds none without)', async () => {
    const p = file(crlfWithStrayCr(50));
    const linesWithoutCr = () => sh(`grep -a -c -v "$(printf '\\r')\\$" "$1" || true`, p);
    expect(linesWithoutCr()).toBe(0);
    const { version } = await read(p, { mode: 'head', lines: 1 });
    await upsert(p, { target: { kind: 'insert', at: 3, units: 'lines' }, content: 'new one\nnew two', preconditions: { ifMatch: version.etag } });
    expect(linesWithoutCr()).toBe(0);
    expect(readFileSync(p, 'latin1')).toContain('two\r\r\nnew one\r\nnew two\r\nline 3\r\n');
    await upsert(p, {
      target: { kind: 'replace', start: 0, end: 0, units: 'bytes' },
      content: '',
      preconditions: {},
      quoted: [{ oldText: 'line 5\nline 6', newText: 'five\nsix\nsix and a half' }],
    });
    expect(linesWithoutCr()).toBe(0);
    expect(readFileSync(p, 'latin1')).toContain('line 4\r\nfive\r\nsix\r\nsix and a half\r\nline 7\r\n');
  });
});

describe('search `$`', () => {
  it('matches at the end of a line without its CR: the count equals grep -c -E "x\\r?$", not grep -c "x$"', async () => {
    const p = file(['alpha x\r\n', 'beta x \r\n', 'gamma x\n', 'delta\r\n', 'x\r\n', 'two x\r\r\n', 'last x'].join(''));
    const grepE = (re: string) => Number(spawnSync('grep', ['-a', '-c', '-E', re, p], { encoding: 'utf8' }).stdout.trim());
    const folio = (await searchPath(p, { pattern: 'x$', countOnly: true })).count;
    expect(folio).toBe(grepE('x\r?$'));
    expect(folio).not.toBe(grepE('x$'));
    // Only the CR of the line ending is dropped: a stray CR before it stays text.
    expect((await searchPath(p, { pattern: 'x\\r$', countOnly: true })).count).toBe(grepE('x\r\r$'));
  });
});
