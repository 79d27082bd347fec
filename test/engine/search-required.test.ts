/**
 * The required-literal prefilter (plan.mjs requiredLiteralOf): which patterns get
 * one, and that searches using it find exactly the lines a per-line match finds,
 * on a generated log with adversarial lines (the literal without a match, a match
 * in non-ASCII lines, CRLF, a lone CR), in this thread and in workers; counts
 * checked against grep.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex, closeIndexPools } from '../../src-main/engine/index/builder.ts';
import type { LineIndex } from '../../src-main/engine/index/line-index.ts';
import { closeSearchPools, searchFile } from '../../src-main/engine/search/search.ts';
import { planSearch, requiredLiteralOf, requiredLiteralsOf } from '../../src-main/engine/search/plan.mjs';
import { RangeSearch } from '../../src-main/engine/search/range-search.mjs';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { filterPatternOf } from '../../src-renderer/model/filter-query.ts';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';

const tmp = tempDir('folio-required-');
const LOG = tmp.path('app.log');
let index: LineIndex;
let text: string[];

beforeAll(async () => {
  writeLogFile(LOG, 2 * 1024 * 1024, 9);
  appendFileSync(
    LOG,
    [
      'ERRORS are not ERROR words timeout',
      '2026-01-01T00:00:00Z ERROR [auth] Grüße timeout 日本語',
      '2026-01-01T00:00:00Z ERROR [auth] crlf timeout\r',
      '2026-01-01T00:00:00Z ERR\r[auth] lone cr then timeout',
      'timeout first, then ERR at the end ERR',
      'xERROR timeout',
      '',
    ].join('\n'),
  );
  index = await buildIndex(LOG, { threads: 0 });
  text = readFileSync(LOG, 'utf8').split('\n');
  if (text[text.length - 1] === '') text.pop();
});
afterAll(async () => {
  await closeSearchPools();
  await closeIndexPools();
  tmp.cleanup();
});

/** The lines (1-based) whose text (without \n and a \r before it) the regex matches. */
function oracleLines(pattern: string, flags = ''): number[] {
  const re = new RegExp(pattern, flags);
  const out: number[] = [];
  text.forEach((line, i) => {
    if (re.test(line.replace(/\r$/, ''))) out.push(i + 1);
  });
  return out;
}

describe('requiredLiteralOf', () => {
  it('finds the literal of a lookahead term or of literal alternatives, and nothing when unsure', () => {
    const cases: [string, string, string | null][] = [
      ['^(?=.*?(?:timeout))(?=.*?(?:\\b(?:ERROR|ERR)\\b))', '', 'timeout'],
      ['^(?=.*?(?:\\b(?:ERROR|ERR)\\b))', '', 'ERR'],
      ['\\b(?:ERROR|ERR)\\b', '', 'ERR'],
      ['^(?=.*?(?:ERROR \\[worker-3\\]))(?!.*?(?:note=))', '', 'ERROR [worker-3]'],
      ['(?=.*?(?:WARN|WARNING))', '', 'WARN'],
      ['^(?=.*?(?:timeout))', 'i', null],
      ['(?:abc)?def', '', 'def'],
      ['ERROR.*timeout', '', 'timeout'],
      ['user [0-9]+', '', 'user '],
      ['ab?cd', '', null],
      ['\\x41BCD', '', null],
      ['a{2}bcd\\.e', '', 'bcd.e'],
      ['abc|(?:def)', '', null],
      ['^(?=.*?(?:x+y))', '', null],
      ['(?:ab)|(?:cd)x', '', null],
      ['(?!.*?(?:timeout))', '', null],
      ['\\b(?:FATAL|CRIT(?:ICAL)?|ERROR|ERR|WARN(?:ING)?)\\b', '', null],
      ['(?=.*a[bcd]e)', '', null],
      ['(?=.*?(?:ab))', '', null],
    ];
    for (const [pattern, flags, want] of cases) expect(requiredLiteralOf(pattern, flags), `/${pattern}/${flags}`).toBe(want);
    expect(planSearch('timeout', '').required).toBeNull(); // a literal pattern has its own fast path
    // Every literal is required: lines must hold them all, the rarest is searched for.
    expect(requiredLiteralsOf('^(?=.*?(?:timeout))(?=.*?(?:\\b(?:ERROR|ERR)\\b))(?!.*?(?:note))', '')).toEqual(['timeout', 'ERR']);
  });
});

describe('search with a required literal', () => {
  const patterns = [
    filterPatternOf([{ pattern: 'timeout', exclude: false }], ['ERROR']),
    filterPatternOf([], ['ERROR']),
    filterPatternOf(
      [
        { pattern: 'timeout', exclude: false },
        { pattern: 'Grüße', exclude: true },
      ],
      ['ERROR', 'WARN'],
    ),
    filterPatternOf(
      [
        { pattern: '\\[auth\\]', exclude: false },
        { pattern: 'timeout', exclude: false },
      ],
      [],
    ),
    '\\b(?:ERROR|ERR)\\b',
  ] as string[];
  for (const pattern of patterns) {
    it(`finds what a per-line match finds: /${pattern}/`, async () => {
      expect(planSearch(pattern, '').required).not.toBeNull();
      const want = oracleLines(pattern);
      expect(want.length).toBeGreaterThan(3);
      for (const opts of [{ threads: 0 }, { threads: 2, smallRangeBytes: 0 }]) {
        const count = await searchFile(index, { pattern, countOnly: true, ...opts });
        expect(count.count).toBe(want.length);
        const found = await searchFile(index, { pattern, maxMatches: 10_000, ...opts });
        expect(found.matches.map((m) => m.line)).toEqual(want.slice(0, 10_000));
      }
    });
  }
  it("counts the ERROR level with a term as grep does (but for a lone CR, which JavaScript's . does not cross)", async () => {
    const pattern = filterPatternOf([{ pattern: 'timeout', exclude: false }], ['ERROR'])!;
    const grep = Number(execFileSync('sh', ['-c', `grep -P '\\b(ERROR|ERR)\\b' '${LOG}' | grep -vP '\\r.' | grep -c timeout`], { encoding: 'utf8' }).trim());
    expect((await searchFile(index, { pattern, countOnly: true })).count).toBe(grep);
  });
});

describe('dense required literals', () => {
  it('match candidates one by one when few lines hold the literal, and run one regex pass when most do: the same lines', () => {
    const path = tmp.path('dense.log');
    const lines = Array.from(
      { length: 40_000 },
      (_, i) => `${i % 20 === 0 ? 'rare' : 'xxxx'} ${i % 5 < 3 ? 'common' : 'c0mm0n'} ${i % 7} ${i % 3 ? 'end' : 'fin'}`,
    );
    writeFileSync(path, lines.join('\n') + '\n');
    const fd = openSync(path, 'r');
    try {
      for (const [pattern, dense] of [
        ['rare.*[0-4] end', false],
        ['common [0-4] end', true],
      ] as const) {
        const re = new RegExp(pattern);
        const want = lines.filter((l) => re.test(l)).length;
        expect(want).toBeGreaterThan(100);
        for (const countOnly of [true, false]) {
          const rs = new RangeSearch({
            plan: planSearch(pattern, ''),
            fd,
            start: 0,
            end: Buffer.byteLength(lines.join('\n') + '\n'),
            countOnly,
            maxMatches: 10_000,
            maxLineChars: 100,
          });
          while (!rs.step());
          expect(rs.required?.dense, pattern).toBe(dense);
          expect(countOnly ? rs.result.count : rs.result.matches.length).toBe(countOnly ? want : Math.min(want, 10_001));
        }
      }
    } finally {
      closeSync(fd);
    }
  });
});
