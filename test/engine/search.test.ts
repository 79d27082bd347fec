import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex, closeIndexPools } from '../../src-main/engine/index/builder.ts';
import type { LineIndex } from '../../src-main/engine/index/line-index.ts';
import { closeSearchPools, searchFile, type SearchOptions } from '../../src-main/engine/search/search.ts';
import { isAsciiOnlyRegex } from '../../src-main/engine/search/search-worker.mjs';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';
import { runs } from '../fixtures/effort.ts';
import { budgetMs } from '../fixtures/load.ts';

const tmp = tempDir('folio-search-');
const LOG = tmp.path('app.log');
let log: Buffer;
let logIndex: LineIndex;

beforeAll(async () => {
  writeLogFile(LOG, 3 * 1024 * 1024, 7);
  log = readFileSync(LOG);
  logIndex = await buildIndex(LOG, { threads: 0 });
});
afterAll(async () => {
  await closeSearchPools();
  await closeIndexPools();
  tmp.cleanup();
});

/** Both ways of running: in this thread, and the worker pool even on a small file. */
const MODES: { name: string; opts: Partial<SearchOptions> }[] = [
  { name: 'in this thread', opts: { threads: 0 } },
  { name: '2 workers', opts: { threads: 2, smallRangeBytes: 0 } },
];

function grepCount(args: string[], file: string): number {
  try {
    return Number(
      execFileSync('grep', ['-c', ...args, file], { env: { ...process.env, LC_ALL: 'C.UTF-8' } })
        .toString()
        .trim(),
    );
  } catch (err) {
    const e = err as { status?: number; stdout?: Buffer };
    if (e.status === 1) return 0;
    throw err;
  }
}

interface OracleMatch {
  line: number;
  column: number;
  text: string;
  lineStart: number;
  lineEnd: number;
  matched: string;
}

/** Plain JS: split the buffer into lines, test each line's decoded text with the regex. */
function oracle(buf: Buffer, pattern: string, flags: string, startByte = 0, endByte = buf.length): OracleMatch[] {
  const out: OracleMatch[] = [];
  const re = new RegExp(pattern, flags + 'g');
  let lineStart = 0;
  let lineNo = 1;
  const from = startByte === 0 || startByte === buf.length ? startByte : buf.lastIndexOf(10, startByte - 1) + 1;
  while (lineStart < buf.length) {
    const nl = buf.indexOf(10, lineStart);
    const contentEnd = nl < 0 ? buf.length : nl;
    const textEnd = nl >= 0 && contentEnd > lineStart && buf[contentEnd - 1] === 13 ? contentEnd - 1 : contentEnd;
    if (lineStart >= from && lineStart < endByte) {
      const text = buf.toString('utf8', lineStart, textEnd);
      re.lastIndex = 0;
      const m = re.exec(text);
      if (m) {
        // A match starting on the low half of a surrogate pair (non-'u' regex) is reported at its character.
        const at = /[\uD800-\uDBFF]/.test(text[m.index - 1] ?? '') && /[\uDC00-\uDFFF]/.test(text[m.index] ?? '') ? m.index - 1 : m.index;
        out.push({ line: lineNo, column: [...text.slice(0, at)].length + 1, text, lineStart, lineEnd: textEnd, matched: m[0] });
      }
    }
    if (nl < 0) break;
    lineStart = nl + 1;
    lineNo++;
  }
  return out;
}

function expectSameAsOracle(buf: Buffer, got: Awaited<ReturnType<typeof searchFile>>['matches'], want: OracleMatch[]): void {
  expect(got.map((m) => m.line)).toEqual(want.map((m) => m.line));
  got.forEach((m, i) => {
    const w = want[i]!;
    expect(m.column).toBe(w.column);
    expect(m.text).toBe(w.text);
    expect(m.byteOffset).toBeGreaterThanOrEqual(w.lineStart);
    expect(m.byteOffset).toBeLessThanOrEqual(w.lineEnd);
    // The code points before the match, decoded from the file bytes, are column - 1.
    expect([...buf.toString('utf8', w.lineStart, m.byteOffset)].length).toBe(m.column - 1);
    if (w.matched.length > 0 && !w.matched.includes('\uFFFD') && !/[\uD800-\uDFFF]/.test(w.matched)) {
      expect(buf.subarray(m.byteOffset).subarray(0, Buffer.byteLength(w.matched)).toString('utf8')).toBe(w.matched);
    }
  });
}

describe('count_only', () => {
  const cases: { pattern: string; flags: string; grep: string[] }[] = [
    { pattern: 'ERROR', flags: '', grep: ['-F', 'ERROR'] },
    { pattern: '"ms":[0-9]{4},', flags: '', grep: ['-E', '"ms":[0-9]{4},'] },
    { pattern: 'timeout', flags: 'i', grep: ['-i', 'timeout'] },
    { pattern: '(WARN|ERROR).*timeout', flags: '', grep: ['-E', '(WARN|ERROR).*timeout'] },
    { pattern: '\\s+cache\\b', flags: '', grep: ['-P', '\\s+cache\\b'] },
    { pattern: '^2026-01-01T00:0[0-2]', flags: '', grep: ['-E', '^2026-01-01T00:0[0-2]'] },
    { pattern: 'K.ln|caf[eé]', flags: '', grep: ['-E', 'K.ln|caf[eé]'] },
    { pattern: 'Grüße', flags: '', grep: ['-F', 'Grüße'] },
    { pattern: '(?<=\\[)auth(?=\\])', flags: '', grep: ['-P', '(?<=\\[)auth(?=\\])'] },
    { pattern: '"ok":false}$', flags: '', grep: ['-E', '"ok":false}$'] },
    // the find kernel: a case-insensitive word, and required literals outside groups
    { pattern: 'TimeOut', flags: 'iu', grep: ['-i', 'timeout'] },
    { pattern: 'ERROR.*timeout', flags: '', grep: ['-E', 'ERROR.*timeout'] },
    { pattern: '"ms":1[0-9]{3},"ok"', flags: '', grep: ['-E', '"ms":1[0-9]{3},"ok"'] },
  ];
  for (const mode of MODES) {
    for (const c of cases) {
      it(`equals grep -c for /${c.pattern}/${c.flags} (${mode.name})`, async () => {
        const want = grepCount(c.grep, LOG);
        expect(want).toBeGreaterThan(0);
        const r = await searchFile(logIndex, { pattern: c.pattern, flags: c.flags, countOnly: true, ...mode.opts });
        expect(r.count).toBe(want);
        expect(r.matches).toEqual([]);
        expect(r.truncated).toBe(false);
        expect(r.nextStartByte).toBeNull();
        expect(r.scanned).toEqual({ startByte: 0, endByte: log.length });
      });
    }
  }
});

/** Random text: short lines of ASCII, multi-byte characters, CR, CRLF, invalid bytes, no final newline. */
const smallFile = fc
  .array(
    fc.record({
      parts: fc.array(fc.constantFrom('a', 'b', 'c', 'ab', 'abc', 'A', ' ', '1', '42', 'é', '日本', '🚀', '\r', '\xff', 'x', 'X', 'K', '\u212a'), {
        maxLength: 12,
      }),
      end: fc.constantFrom('\n', '\n', '\r\n', ''),
    }),
    { maxLength: 40 },
  )
  .map((lines) => {
    const bufs: Buffer[] = [];
    lines.forEach((l, i) => {
      for (const p of l.parts) bufs.push(p === '\xff' ? Buffer.from([0xff]) : Buffer.from(p, 'utf8'));
      bufs.push(Buffer.from(l.end === '' && i < lines.length - 1 ? '\n' : l.end));
    });
    return Buffer.concat(bufs);
  });
const PATTERNS: [string, string][] = [
  ['ab', ''],
  ['a.c', ''],
  ['^a', ''],
  ['b$', ''],
  ['^$', ''],
  ['[^a ]b', ''],
  ['é', ''],
  ['日本', ''],
  ['🚀', 'u'],
  ['.🚀', 'u'],
  ['\\d+', ''],
  ['x*', ''],
  ['(?<=a)b', ''],
  ['a\\s', ''],
  ['A', 'i'],
  ['B\\b', 'i'],
  ['\\uFFFD', ''],
  ['c\\r', ''],
  ['[\\s\\S]b', ''],
  ['b[^]', ''],
  ['^a', 'm'],
  ['ab', 'i'],
  ['xk', 'i'],
  ['k', 'iu'],
  ['ab 1', 'iu'],
  ['abc.*ab', ''],
];

describe('matches', () => {
  let n = 0;
  for (const mode of MODES) {
    it(`give the same lines, columns, byte offsets and text as a per-line oracle on random files, within byte ranges (${mode.name})`, async () => {
      await fc.assert(
        fc.asyncProperty(smallFile, fc.constantFrom(...PATTERNS), fc.tuple(fc.nat(), fc.nat()), async (buf, [pattern, flags], [a, b]) => {
          const path = tmp.path(`rand-${n++}.txt`);
          writeFileSync(path, buf);
          const index = await buildIndex(path, { threads: 0 });
          const whole = await searchFile(index, { pattern, flags, maxMatches: 10_000, ...mode.opts });
          expectSameAsOracle(buf, whole.matches, oracle(buf, pattern, flags));
          expect(whole.truncated).toBe(false);
          const counted = await searchFile(index, { pattern, flags, countOnly: true, ...mode.opts });
          expect(counted.count).toBe(whole.matches.length);

          const lo = buf.length === 0 ? 0 : Math.min(a, b) % (buf.length + 1);
          const hi = buf.length === 0 ? 0 : lo + (Math.max(a, b) % (buf.length - lo + 1));
          const part = await searchFile(index, { pattern, flags, startByte: lo, endByte: hi, maxMatches: 10_000, ...mode.opts });
          expectSameAsOracle(buf, part.matches, oracle(buf, pattern, flags, lo, hi));
        }),
        runs(mode.opts.threads === 0 ? 300 : 80),
      );
    });
  }

  it('cut long lines to maxLineChars code points around the match and flag them', async () => {
    const path = tmp.path('long.txt');
    const line = '🚀'.repeat(300) + 'NEEDLE' + 'z'.repeat(700);
    writeFileSync(path, `short\n${line}\n`);
    const index = await buildIndex(path, { threads: 0 });
    const r = await searchFile(index, { pattern: 'NEE+DLE', maxLineChars: 100, threads: 0 });
    const m = r.matches[0]!;
    expect(m.line).toBe(2);
    expect(m.column).toBe(301);
    expect(m.byteOffset).toBe(6 + 300 * 4);
    expect(m.textTruncated).toBe(true);
    expect([...m.text].length).toBe(100);
    expect(m.text).toContain('NEEDLE');
  });

  it('find matches on a line longer than a read chunk and in the lines around it', async () => {
    const path = tmp.path('huge-line.txt');
    const buf = Buffer.concat([Buffer.from('first é\n'), Buffer.from('x'.repeat(2_500_000) + 'é NEEDLE\r\n'), Buffer.from('NEEDLE last')]);
    writeFileSync(path, buf);
    const index = await buildIndex(path, { threads: 0 });
    for (const mode of MODES) {
      for (const pattern of ['NEEDLE', 'NEE+DLE', '. NEEDLE']) {
        const r = await searchFile(index, { pattern, maxLineChars: 50, ...mode.opts });
        expect(r.matches.map((m) => [m.line, m.byteOffset])).toEqual(
          pattern === '. NEEDLE'
            ? [[2, 9 + 2_500_000]]
            : [
                [2, 9 + 2_500_003],
                [3, buf.length - 11],
              ],
        );
        expect(r.matches[0]!.text).toMatch(/^x+é NEEDLE$/);
      }
    }
  });

  it('match lines with invalid UTF-8 and return them with U+FFFD, never throwing', async () => {
    const path = tmp.path('bad-utf8.txt');
    const buf = Buffer.concat([
      Buffer.from('ok line\n'),
      Buffer.from([0xff, 0xfe, 0x20]),
      Buffer.from('ERROR here '),
      Buffer.from([0xe2, 0x82]),
      Buffer.from(' é\r\n'),
      Buffer.from([0xc3]),
      Buffer.from('ERRXR'),
    ]);
    writeFileSync(path, buf);
    const index = await buildIndex(path, { threads: 0 });
    for (const [pattern, lines] of [
      ['ERROR', [2]],
      ['ERR.R', [2, 3]],
      ['\\uFFFD', [2, 3]],
      ['é$', [2]],
    ] as const) {
      for (const mode of MODES) {
        const r = await searchFile(index, { pattern, ...mode.opts });
        expect(r.matches.map((m) => m.line)).toEqual(lines);
        expectSameAsOracle(buf, r.matches, oracle(buf, pattern, ''));
      }
    }
    const r = await searchFile(index, { pattern: 'ERROR', threads: 0 });
    expect(r.matches[0]).toMatchObject({ line: 2, byteOffset: 11, column: 4, text: '\uFFFD\uFFFD ERROR here \uFFFD é' });
  });
});

describe('cap and cursor', () => {
  async function pageAll(pattern: string, flags: string, k: number, opts: Partial<SearchOptions>): Promise<number[]> {
    const lines: number[] = [];
    let start: number | null = 0;
    let pages = 0;
    while (start !== null) {
      const r = await searchFile(logIndex, { pattern, flags, maxMatches: k, startByte: start, ...opts });
      expect(r.matches.length).toBeLessThanOrEqual(k);
      expect(r.count).toBe(r.matches.length);
      if (r.truncated) {
        expect(r.matches.length).toBe(k);
        expect(r.nextStartByte).toBeGreaterThan(r.matches[k - 1]!.byteOffset);
        expect(log[r.nextStartByte! - 1]).toBe(10);
      } else {
        expect(r.nextStartByte).toBeNull();
      }
      lines.push(...r.matches.map((m) => m.line));
      start = r.nextStartByte;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    return lines;
  }

  for (const mode of MODES) {
    it(`paging by next_start_byte visits every matching line once, in order, across worker pieces (${mode.name})`, async () => {
      for (const [pattern, flags, k] of [
        ['ERROR', '', 997],
        ['naïve café', '', 7],
        ['auth.*timeout', 'i', 1500],
      ] as const) {
        const want = oracle(log, pattern, flags).map((m) => m.line);
        expect(await pageAll(pattern, flags, k, mode.opts)).toEqual(want);
      }
    });
  }

  it('say truncated only when another match follows (a cap exactly equal to the matches is not truncated)', async () => {
    const all = oracle(log, 'naïve café', '').length;
    const exact = await searchFile(logIndex, { pattern: 'naïve café', maxMatches: all, threads: 2, smallRangeBytes: 0 });
    expect(exact.truncated).toBe(false);
    expect(exact.nextStartByte).toBeNull();
    const less = await searchFile(logIndex, { pattern: 'naïve café', maxMatches: all - 1, threads: 2, smallRangeBytes: 0 });
    expect(less.truncated).toBe(true);
  });
});

describe('errors, cancellation, progress', () => {
  it('refuse an invalid regex, unsupported flags and maxMatches out of 1..10000 with invalid_input', async () => {
    for (const opts of [
      { pattern: '(' },
      { pattern: 'a{2,1}' },
      { pattern: 'a', flags: 'y' },
      { pattern: 'a', flags: 'x' },
      { pattern: 'a', flags: 'ii' },
      { pattern: 'a', maxMatches: 0 },
      { pattern: 'a', maxMatches: 10_001 },
      { pattern: 'a', maxMatches: 1.5 },
    ]) {
      await expect(searchFile(logIndex, opts)).rejects.toMatchObject({ code: 'invalid_input' });
    }
    await expect(searchFile(logIndex, { pattern: '(' })).rejects.toThrow(/invalid regex/);
    await expect(searchFile(logIndex, { pattern: 'a', startByte: log.length + 1 })).rejects.toMatchObject({ code: 'out_of_bounds' });
    await expect(searchFile(logIndex, { pattern: 'a', startByte: 10, endByte: 5 })).rejects.toMatchObject({ code: 'invalid_range' });
  });

  for (const mode of MODES) {
    it(`stop with cancelled when the signal is aborted (${mode.name})`, async () => {
      const before = new AbortController();
      before.abort();
      await expect(searchFile(logIndex, { pattern: 'x', signal: before.signal, ...mode.opts })).rejects.toMatchObject({ code: 'cancelled' });
      const during = new AbortController();
      const p = searchFile(logIndex, {
        pattern: '(?=.*a)(?=.*b)(?=.*c)(?=.*d)z',
        countOnly: true,
        signal: during.signal,
        ...mode.opts,
      });
      setTimeout(() => during.abort(), 20);
      await expect(p).rejects.toMatchObject({ code: 'cancelled' });
    });
  }

  it('terminate a worker stuck in one runaway regex exec after an abort', async () => {
    const path = tmp.path('redos.txt');
    writeFileSync(path, 'a'.repeat(40) + '!\n');
    const index = await buildIndex(path, { threads: 0 });
    const ac = new AbortController();
    const started = performance.now();
    // A backreference keeps V8 on its backtracking engine (the linear-time fallback would finish `^(a+)+$` at once).
    const p = searchFile(index, { pattern: '^(a+)+\\1$', signal: ac.signal, threads: 2, smallRangeBytes: 0 });
    setTimeout(() => ac.abort(), 100);
    await expect(p).rejects.toMatchObject({ code: 'cancelled' });
    expect(performance.now() - started).toBeLessThan(budgetMs(2000));
    // The pool recovers: the next search works.
    const r = await searchFile(logIndex, { pattern: 'ERROR', countOnly: true, threads: 2, smallRangeBytes: 0 });
    expect(r.count).toBe(grepCount(['-F', 'ERROR'], LOG));
  });

  for (const mode of MODES) {
    it(`report progress that reaches totalBytes (${mode.name})`, async () => {
      const seen: { bytesDone: number; totalBytes: number }[] = [];
      await searchFile(logIndex, { pattern: 'timeout', flags: 'i', countOnly: true, onProgress: (p) => seen.push(p), ...mode.opts });
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.at(-1)).toEqual({ bytesDone: log.length, totalBytes: log.length });
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.bytesDone).toBeGreaterThanOrEqual(seen[i - 1]!.bytesDone);
    });
  }
});

describe('ASCII-only analysis', () => {
  it('accepts regexes that can only match ASCII and refuses ones that can match other characters', () => {
    for (const src of ['ERROR', 'user [0-9]+', '^\\d{4}-\\w+$', '(WARN|ERROR) [a-z_]+', '\\x41\\u0042\\t', '[\\d.-]+']) {
      expect(isAsciiOnlyRegex(src, '')).toBe(true);
    }
    expect(isAsciiOnlyRegex('timeout', 'i')).toBe(true);
    for (const src of ['a.b', '[^a]', '\\s', '\\S', '\\W', '\\D', 'é', '\\xe9', '\\u00e9', '(a)\\1', '(?=a)', '\\p{L}']) {
      expect(isAsciiOnlyRegex(src, 'u')).toBe(false);
    }
    expect(isAsciiOnlyRegex('s', 'iu')).toBe(false);
    expect(isAsciiOnlyRegex('^a', 'm')).toBe(false);
  });
});
