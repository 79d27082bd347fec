/**
 * Quoted edits resolved to byte replacements (engine/write/quote-edit.ts): real
 * files in a temp dir, the file's own LineIndex and encoding, line numbers and
 * counts checked against grep (an independent implementation), replacements
 * checked against JavaScript's String.replace / split-join on random texts.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openIndex } from '../../src-main/engine/index/store.ts';
import { factsOf } from '../../src-main/engine/read/file-facts.ts';
import { resolveQuotedEdits, type QuotedEdit } from '../../src-main/engine/write/quote-edit.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { applyReplacements, failureOf, resolveIn } from '../fixtures/quoted-edits.ts';
import { writeLogFile } from '../fixtures/generate.ts';
import { runs } from '../fixtures/effort.ts';
import { budgetMs } from '../fixtures/load.ts';

const tmp = engineTempDir();

let n = 0;
function file(content: string | Buffer): string {
  const p = tmp.path(`q${n++}.txt`);
  writeFileSync(p, content);
  return p;
}

const resolve = resolveIn;

/** The FolioError `resolve` throws. */
const failure = failureOf;
const apply = applyReplacements;

const grep = (args: string[], p: string): string => {
  try {
    return execFileSync('grep', [...args, p], { encoding: 'utf8', maxBuffer: 1 << 28 });
  } catch (err) {
    if ((err as { status?: number }).status === 1) return ''; // no line matched
    throw err;
  }
};

describe('exact matches', () => {
  it('resolves a unique quote to its bytes, lines and encoded new text', async () => {
    const text = 'first line\nsecond: naïve café\nthird line\n';
    const p = file(text);
    const [r, ...rest] = await resolve(p, [{ oldText: 'naïve café\nthird', newText: 'plain\nTHIRD' }]);
    expect(rest).toEqual([]);
    const start = Buffer.byteLength(text.slice(0, text.indexOf('naïve')));
    expect(r).toMatchObject({ edit: 0, start, end: start + Buffer.byteLength('naïve café\nthird'), startLine: 2, endLine: 3 });
    expect(Buffer.from(r!.content).toString('utf8')).toBe('plain\nTHIRD');
    expect(apply(readFileSync(p), [r!]).toString('utf8')).toBe(text.replace('naïve café\nthird', 'plain\nTHIRD'));
  });

  it('a quote ending in a newline ends on the line that newline ends', async () => {
    const p = file('a\nb\nc\n');
    const [r] = await resolve(p, [{ oldText: 'b\n', newText: '' }]);
    expect(r).toMatchObject({ start: 2, end: 4, startLine: 2, endLine: 2 });
  });

  it('several edits resolve against the same bytes and come back sorted by start', async () => {
    const p = file('one\ntwo\nthree\nfour\n');
    const reps = await resolve(p, [
      { oldText: 'four', newText: '4' },
      { oldText: 'one', newText: '1' },
      { oldText: 'three', newText: '3' },
    ]);
    expect(reps.map((r) => [r.edit, r.startLine])).toEqual([
      [1, 1],
      [2, 3],
      [0, 4],
    ]);
    expect(apply(readFileSync(p), reps).toString()).toBe('1\ntwo\n3\n4\n');
  });

  it('an index of an older version is refused with conflict (all edits resolve against one version)', async () => {
    const p = file('one\ntwo\n');
    const index = await openIndex(p);
    const { encoding } = await factsOf(p);
    appendFileSync(p, 'three\n');
    await expect(resolveQuotedEdits(index, encoding, [{ oldText: 'two', newText: '2' }])).rejects.toMatchObject({ code: 'conflict' });
  });

  it('empty old_text, and old_text equal to new_text, are invalid_input naming the edit', async () => {
    const p = file('x\n');
    expect(
      await failure(p, [
        { oldText: 'x', newText: 'y' },
        { oldText: '', newText: 'z' },
      ]),
    ).toMatchObject({ code: 'invalid_input', details: { edit: 1 } });
    expect(await failure(p, [{ oldText: 'x', newText: 'x' }])).toMatchObject({ code: 'invalid_input', details: { edit: 0 } });
    expect(await failure(p, [])).toMatchObject({ code: 'invalid_input' });
  });
});

describe('ambiguous quotes and replace_all, against grep', () => {
  const p = tmp.path('log.txt');
  writeLogFile(p, 300_000, 7);

  it('ambiguous_match lists the candidates’ lines as `grep -n -F` finds them, and their count', async () => {
    const quote = '[billing]'; // once per line at most (the service tag)
    const grepLines = grep(['-n', '-F', quote], p)
      .split('\n')
      .filter(Boolean)
      .map((l) => Number(l.slice(0, l.indexOf(':'))));
    expect(grepLines.length).toBeGreaterThan(20);
    const err = await failure(p, [{ oldText: quote, newText: '[BILLING]' }], { chunkBytes: 4096 });
    expect(err.code).toBe('ambiguous_match');
    expect(err.details).toMatchObject({ edit: 0, count: grepLines.length, lines: grepLines.slice(0, 20), lines_truncated: true });
    expect(String(err.details.hint)).toMatch(/replace_all/);
  });

  it('replace_all replaces as many occurrences as `grep -o -F` counts, on the lines grep names', async () => {
    for (const quote of ['ok', 'timeout retry', '"ms":']) {
      const expected = grep(['-o', '-F', quote], p).split('\n').filter(Boolean).length;
      const reps = await resolve(p, [{ oldText: quote, newText: '#', replaceAll: true }], { chunkBytes: 4096 + 3 });
      expect(reps.length, quote).toBe(expected);
      const lines = new Set(
        grep(['-n', '-F', quote], p)
          .split('\n')
          .filter(Boolean)
          .map((l) => Number(l.slice(0, l.indexOf(':')))),
      );
      expect(new Set(reps.map((r) => r.startLine))).toEqual(lines);
      const text = readFileSync(p, 'utf8');
      expect(apply(readFileSync(p), reps).toString('utf8')).toBe(text.split(quote).join('#'));
    }
  });

  it('replace_all counts non-overlapping occurrences; a unique edit counts overlapping ones', async () => {
    const q = file('aaaaa\nb\n');
    expect(grep(['-o', '-F', 'aa'], q).split('\n').filter(Boolean)).toHaveLength(2);
    expect((await resolve(q, [{ oldText: 'aa', newText: 'X', replaceAll: true }])).map((r) => r.start)).toEqual([0, 2]);
    expect(await failure(q, [{ oldText: 'aa', newText: 'X' }])).toMatchObject({ code: 'ambiguous_match', details: { count: 4, lines: [1, 1, 1, 1] } });
  });
});

describe('newline styles and encodings', () => {
  it("in a CRLF file the quote's \\n matches \\r\\n and new text is written with \\r\\n", async () => {
    const text = 'alpha\r\nbeta\r\ngamma\r\n';
    const p = file(text);
    const [r] = await resolve(p, [{ oldText: 'alpha\nbeta\n', newText: 'one\ntwo\nthree\n' }]);
    expect(r).toMatchObject({ start: 0, end: 13, startLine: 1, endLine: 2 });
    expect(Buffer.from(r!.content).toString()).toBe('one\r\ntwo\r\nthree\r\n');
    // A quote sent with \r\n means the same.
    const [again] = await resolve(p, [{ oldText: 'beta\r\ngamma', newText: 'x' }]);
    expect(again).toMatchObject({ start: 7, end: 18, startLine: 2, endLine: 3 });
  });

  it('in a file of mostly LF endings with some CRLF the quote as sent is tried first, then its CRLF form', async () => {
    const p = file('a\nb\r\nc\nd\n');
    const [crlf] = await resolve(p, [{ oldText: 'b\nc', newText: 'B\nC' }]);
    expect(crlf).toMatchObject({ start: 2, end: 6, startLine: 2, endLine: 3 });
    expect(Buffer.from(crlf!.content).toString()).toBe('B\r\nC');
    const [lf] = await resolve(p, [{ oldText: 'c\nd', newText: 'C\nD' }]);
    expect(lf).toMatchObject({ start: 5, end: 8 });
    expect(Buffer.from(lf!.content).toString()).toBe('C\nD');
  });

  it('in a CRLF file with a few LF lines the CRLF form is tried first, then the quote as sent', async () => {
    const p = file('a\r\nb\r\nc\nd\r\n');
    const [crlf] = await resolve(p, [{ oldText: 'a\nb', newText: 'A\nB' }]);
    expect(crlf).toMatchObject({ start: 0, end: 4 });
    expect(Buffer.from(crlf!.content).toString()).toBe('A\r\nB');
    const [lf] = await resolve(p, [{ oldText: 'c\nd', newText: 'C\nD' }]);
    expect(lf).toMatchObject({ start: 6, end: 9 });
    expect(Buffer.from(lf!.content).toString()).toBe('C\nD');
  });

  it('a UTF-16LE file with a BOM: matches at even offsets past the BOM, new text in UTF-16LE', async () => {
    const text = 'head 日本語\r\n😀 emoji line\r\ntail\r\n';
    const p = file(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    expect((await factsOf(p)).encoding).toBe('utf-16le');
    const [r] = await resolve(p, [{ oldText: '日本語\n😀 emoji', newText: 'X\nY' }]);
    const start = 2 + Buffer.byteLength(text.slice(0, text.indexOf('日')), 'utf16le');
    expect(r).toMatchObject({ start, end: start + Buffer.byteLength('日本語\r\n😀 emoji', 'utf16le'), startLine: 1, endLine: 2 });
    expect(Buffer.from(r!.content)).toEqual(Buffer.from('X\r\nY', 'utf16le'));
    const after = apply(readFileSync(p), [r!]);
    expect(after.subarray(2).toString('utf16le')).toBe(text.replace('日本語\r\n😀 emoji', 'X\r\nY'));
  });

  it('UTF-16: the bytes of a quote at an odd offset (across two units) are not a match', async () => {
    // U+4142 U+0100 is 42 41 00 01: "A" (41 00) appears at offset 1 of the text, across units.
    const p = file(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('\u4142\u0100\n', 'utf16le')]));
    expect(await failure(p, [{ oldText: 'A', newText: 'B' }])).toMatchObject({ code: 'no_match' });
  });
});

describe('no_match names the nearest near-miss', () => {
  // Exact matching only: some of these quotes would match loosely (test/engine/loose-match.test.ts).
  const failure = (p: string, edits: QuotedEdit[]) => failureOf(p, edits, { loose: false });
  const filler = Array.from({ length: 30 }, (_, i) => `filler line ${i} with nothing in it`).join('\n') + '\n';

  it.each([
    ['whitespace', 'function foo(a,  b) {\n  return a;\n}\n', 'foo(a, b) {', 31],
    ['indentation', 'def f():\n    if x:\n        return 1\n', '  if x:\n      return 1', 32],
    ['case', 'Hello World, said the log\n', 'hello world', 31],
    ['newlines', 'one\ntwo\nthree\n', 'one\r\ntwo\r\n', 31],
    ['newlines', 'last line without newline', 'last line without newline\n', 31],
    ['other', 'the quick brown fox jumps over\n', 'the quick brown fax jumps', 31],
  ] as const)('%s: %j quoted as %j -> line %i', async (differs, body, quote, line) => {
    const p = file(filler + body);
    const err = await failure(p, [{ oldText: quote, newText: 'changed' }]);
    expect(err.code).toBe('no_match');
    const nearest = err.details.nearest as { line: number; text: string; differs: string; similarity: number };
    expect(nearest).toMatchObject({ differs, line });
    const lines = (filler + body).split('\n');
    expect(nearest.text.split('\n')[0]).toBe(lines[line - 1]);
    expect(nearest.similarity).toBeGreaterThan(0.2);
    expect(err.details).toMatchObject({ edit: 0, near_miss_complete: true, near_miss_scanned_bytes: Buffer.byteLength(filler + body) });
  });

  it.each([
    ['a typo in a long line', (line: string) => line.replace('value_250', 'valeu_250')],
    ['a curly quote for a straight one', (line: string) => line.replace("'end'", '\u2019end\u2019')],
  ])('%s: nearly identical, never similarity 1, and the hint says so', async (_what, garble) => {
    const line = `config = {${Array.from({ length: 40 }, (_, i) => `key_${i * 10}: value_${i * 10}`).join(', ')}, last: 'end'}`;
    const p = file(filler + line + '\n');
    const err = await failure(p, [{ oldText: garble(line), newText: 'changed' }]);
    const nearest = err.details.nearest as { line: number; text: string; differs: string; similarity: number };
    expect(nearest).toMatchObject({ differs: 'other', line: 31, text: line.slice(0, 300) });
    // Before: 0.996 was rounded to 1, beside a hint saying "nothing nearly identical".
    expect(nearest.similarity).toBeGreaterThanOrEqual(0.9);
    expect(nearest.similarity).toBeLessThan(1);
    expect(err.details.hint).toMatch(/^nearly identical/);
    expect(err.details.hint).not.toMatch(/nothing nearly identical/);
  });

  it('an other near-miss far from the quote keeps the plain hint', async () => {
    const p = file(filler + 'the quick brown fox jumps over\n');
    const err = await failure(p, [{ oldText: 'the quick brown fax jumps', newText: 'x' }]);
    expect((err.details.nearest as { similarity: number }).similarity).toBeLessThan(0.9);
    expect(err.details.hint).toMatch(/^nothing nearly identical/);
  });

  it('in a CRLF file a quote differing only in indentation is found with its CRLF lines', async () => {
    const p = file('x\r\n\tif (a) {\r\n\t\tgo();\r\n\t}\r\n');
    const err = await failure(p, [{ oldText: '    if (a) {\n        go();', newText: '' }]);
    expect(err.details.nearest).toMatchObject({ differs: 'indentation', line: 2, end_line: 3, text: '\tif (a) {\n\t\tgo();' });
  });

  it('in a UTF-16BE file the near-miss is decoded in its encoding', async () => {
    const text = 'alpha\nBeta Gamma 日本\nomega\n';
    const p = file(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]));
    const err = await failure(p, [{ oldText: 'beta gamma 日本', newText: 'x' }]);
    expect(err.details.nearest).toMatchObject({ differs: 'case', line: 2, text: 'Beta Gamma 日本' });
  });

  it('no similar text: nearest is null and the hint says so; other failing edits are listed', async () => {
    const p = file('abc\ndef\n');
    const err = await failure(p, [
      { oldText: 'abc', newText: 'x' },
      { oldText: 'zzzzqqqq', newText: 'y' },
      { oldText: 'wwwwvvvv', newText: 'z' },
    ]);
    expect(err.details).toMatchObject({ edit: 1, nearest: null, other_failures: [{ edit: 2, code: 'no_match', count: 0 }] });
  });
});

describe('edits may not overlap', () => {
  it('overlapping edits are invalid_range naming both edits and their lines', async () => {
    const p = file('intro\nalpha beta\ngamma delta\nend\n');
    const err = await failure(p, [
      { oldText: 'intro', newText: 'x' },
      { oldText: 'beta\ngamma', newText: 'y' },
      { oldText: 'alpha beta', newText: 'z' },
    ]);
    expect(err.code).toBe('invalid_range');
    expect(err.details).toMatchObject({
      edits: [1, 2],
      ranges: [
        { edit: 1, line: 2, end_line: 3 },
        { edit: 2, line: 2, end_line: 2 },
      ],
    });
  });

  it('a replace_all edit overlapping one of another edit is named too; adjacent edits are fine', async () => {
    const p = file('k=1\nk=2\nk=3\n');
    expect(
      await failure(p, [
        { oldText: 'k=', newText: 'v=', replaceAll: true },
        { oldText: '=3', newText: '=4' },
      ]),
    ).toMatchObject({
      code: 'invalid_range',
      details: { edits: [0, 1], ranges: [{ line: 3 }, { line: 3 }] },
    });
    const ok = await resolve(p, [
      { oldText: 'k', newText: 'v', replaceAll: true },
      { oldText: '=3', newText: '=4' },
    ]);
    expect(apply(readFileSync(p), ok).toString()).toBe('v=1\nv=2\nv=4\n');
  });
});

describe('streaming', () => {
  it('finds a match that spans a window boundary exactly once', async () => {
    const text = 'x'.repeat(14) + '\nAB\nCD\n' + 'y'.repeat(40) + '\n';
    const p = file(text);
    for (let chunk = 1; chunk <= 24; chunk++) {
      const [r, ...rest] = await resolve(p, [{ oldText: 'AB\nCD', newText: '!' }], { chunkBytes: chunk });
      expect(rest, `chunk ${chunk}`).toEqual([]);
      expect(r, `chunk ${chunk}`).toMatchObject({ start: 15, end: 20, startLine: 2, endLine: 3 });
    }
  });

  it('resolves quotes in a ~300 MB file without loading it, line numbers exact', { timeout: 300_000 }, async () => {
    const LINE = 64;
    const LINES_PER_BLOCK = 16384; // a 1 MiB block of fixed-width lines
    const BLOCKS = 300;
    const row = (i: number, tag = 'row') => `${tag} ${String(i).padStart(10, '0')} `.padEnd(LINE - 1, '.') + '\n';
    const block = Buffer.from(Array.from({ length: LINES_PER_BLOCK }, (_, i) => row(i)).join(''));
    const p = tmp.path('big.log');
    const fd = openSync(p, 'w');
    // Unique lines: the last line of the file, and two lines either side of a 4 MiB window edge.
    const edgeLine = 4 * LINES_PER_BLOCK; // 1-based line ending right at byte 4 MiB
    try {
      for (let b = 0; b < BLOCKS; b++) {
        if (b === 3 || b === 4 || b === BLOCKS - 1) {
          const copy = Buffer.from(block);
          if (b === 3) copy.write(row(1, 'EDGE-A'), (LINES_PER_BLOCK - 1) * LINE);
          if (b === 4) copy.write(row(2, 'EDGE-B'), 0);
          if (b === BLOCKS - 1) copy.write(row(3, 'LAST'), (LINES_PER_BLOCK - 1) * LINE);
          writeSync(fd, copy);
        } else writeSync(fd, block);
      }
    } finally {
      closeSync(fd);
    }
    const t0 = Date.now();
    const reps = await resolve(p, [
      { oldText: 'LAST 0000000003', newText: 'last' },
      { oldText: '.\nEDGE-B 0000000002', newText: 'joined' },
    ]);
    expect(reps).toEqual([
      expect.objectContaining({ edit: 1, start: 4 * 1024 * 1024 - 2, startLine: edgeLine, endLine: edgeLine + 1 }),
      expect.objectContaining({ edit: 0, start: (BLOCKS * LINES_PER_BLOCK - 1) * LINE, startLine: BLOCKS * LINES_PER_BLOCK }),
    ]);
    // A quote found nowhere: the near-miss search stops at its byte bound and says how far it got.
    // Its time budget (1.5 s by default) is lifted here: at load 12 it stopped first, before
    // the EDGE lines, and named an earlier line. The time bound is checked next.
    const err = await failure(p, [{ oldText: 'EDGE-C 0000000002', newText: 'x' }], { nearMiss: { maxBytes: 16 * 1024 * 1024, budgetMs: 120_000 } });
    expect(err.code).toBe('no_match');
    expect(err.details.near_miss_complete).toBe(false);
    expect(err.details.near_miss_scanned_bytes).toBeLessThanOrEqual(17 * 1024 * 1024);
    expect(err.details.nearest).toMatchObject({ line: edgeLine + 1, differs: 'other' });
    // And with a time budget of 1 ms and no byte bound to speak of, it stops on time, saying so.
    const late = await failure(p, [{ oldText: 'EDGE-C 0000000002', newText: 'x' }], { nearMiss: { maxBytes: 2 ** 40, budgetMs: 1 } });
    expect(late.details.near_miss_complete).toBe(false);
    expect(late.details.near_miss_scanned_bytes).toBeLessThan(BLOCKS * LINES_PER_BLOCK * LINE);
    expect(Date.now() - t0).toBeLessThan(budgetMs(20_000));
  });
});

describe('properties', () => {
  const alphabet = fc.constantFrom('a', 'b', 'a', ' ', '\n', 'é', '日', '😀');
  const textArb = fc.array(alphabet, { minLength: 1, maxLength: 80 }).map((cs) => cs.join(''));
  const caseArb = fc.record({
    text: textArb,
    i: fc.nat(),
    len: fc.integer({ min: 1, max: 12 }),
    replacement: fc.array(alphabet, { maxLength: 6 }).map((cs) => cs.join('')),
    chunk: fc.integer({ min: 1, max: 64 }),
  });

  /** old: a substring of text (whole code points) */
  const pick = (text: string, i: number, len: number): string => {
    const cps = [...text];
    const from = i % cps.length;
    return cps.slice(from, from + len).join('');
  };
  const occurrences = (text: string, s: string): number => {
    let c = 0;
    for (let at = text.indexOf(s); at >= 0; at = text.indexOf(s, at + 1)) c++;
    return c;
  };

  it('UTF-8: a unique quote replaced equals String.replace; a repeated one with replace_all equals split/join', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ text, i, len, replacement, chunk }) => {
        const old = pick(text, i, len);
        fc.pre(old !== replacement);
        const p = file(text);
        const bytes = readFileSync(p);
        if (occurrences(text, old) === 1) {
          const reps = await resolve(p, [{ oldText: old, newText: replacement }], { chunkBytes: chunk });
          expect(apply(bytes, reps).toString('utf8')).toBe(text.replace(old, () => replacement));
        } else {
          const err = await failure(p, [{ oldText: old, newText: replacement }], { chunkBytes: chunk });
          expect(err.details).toMatchObject({ count: occurrences(text, old) });
          expect(err.code).toBe('ambiguous_match');
        }
        const all = await resolve(p, [{ oldText: old, newText: replacement, replaceAll: true }], { chunkBytes: chunk });
        expect(apply(bytes, all).toString('utf8')).toBe(text.split(old).join(replacement));
      }),
      runs(150),
    );
  });

  it('UTF-16LE with a BOM: replace_all equals split/join on the decoded text', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ text, i, len, replacement, chunk }) => {
        const old = pick(text, i, len);
        fc.pre(old !== replacement);
        const p = file(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('head\n' + text, 'utf16le')]));
        const reps = await resolve(p, [{ oldText: old, newText: replacement, replaceAll: true }], { chunkBytes: chunk });
        const after = apply(readFileSync(p), reps);
        expect(after.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xfe]));
        expect(after.subarray(2).toString('utf16le')).toBe(('head\n' + text).split(old).join(replacement));
      }),
      runs(100),
    );
  });
});
