/** The filter view's query: terms and levels as one regex, checked against the lines it must keep. */
import { expect, test } from 'vitest';
import { filterPatternOf, invalidTermOf, levelPatternOf } from '../../src-renderer/model/filter-query.ts';

const lines = [
  '10:00 INFO [worker-1] started',
  '10:01 ERROR [worker-3] disk full',
  '10:02 WARNING [worker-2] slow disk',
  '10:03 DEBUG [worker-3] retry',
  '10:04 ERROR [worker-1] timeout',
  '10:05 info lower-case is not a level',
];
const kept = (pattern: string | null, flags = '') => (pattern === null ? lines : lines.filter((l) => new RegExp(pattern, flags).test(l)));

test('one including term is sent as it is; nothing to filter by is null', () => {
  expect(filterPatternOf([{ pattern: 'disk', exclude: false }], [])).toBe('disk');
  expect(filterPatternOf([], [])).toBeNull();
  expect(filterPatternOf([{ pattern: '', exclude: true }], [])).toBeNull();
});

test('terms combine: every including term, no excluded one', () => {
  const p = filterPatternOf(
    [
      { pattern: 'disk', exclude: false },
      { pattern: 'worker-3', exclude: true },
    ],
    [],
  );
  expect(kept(p)).toEqual([lines[2]]);
  expect(kept(filterPatternOf([{ pattern: 'worker-3', exclude: true }], []))).toEqual([lines[0], lines[2], lines[4], lines[5]]);
});

test('levels are words, WARN takes WARNING, and combine with terms', () => {
  expect(kept(levelPatternOf(['ERROR', 'WARN']))).toEqual([lines[1], lines[2], lines[4]]);
  expect(kept(filterPatternOf([{ pattern: 'worker-1', exclude: true }], ['ERROR']))).toEqual([lines[1]]);
  expect(kept(filterPatternOf([], ['INFO']))).toEqual([lines[0]]);
  expect(kept(filterPatternOf([], ['INFO']), 'i')).toEqual([lines[0], lines[5]]);
});

test('a term that is not a regex is named with the reason', () => {
  expect(invalidTermOf([{ pattern: 'ok', exclude: false }])).toBeNull();
  expect(invalidTermOf([{ pattern: '(open', exclude: false }])?.pattern).toBe('(open');
});
