/**
 * The text a person resolves from (3-way view, edit-then-approve), for every
 * kind: the proposal's region now with each hunk put in where its old lines are
 * still there, a conflict block where someone changed them.
 */
import { expect, test } from 'vitest';
import { hunkRegionOf, MARK_NOW, MARK_PROPOSED, MARK_SPLIT, mergedTextOf, sidesOfHunks } from '../../src-renderer/model/merge-region.ts';

const h = (start: number, old: string[], next: string[], status: 'pending' | 'applied' | 'rejected' = 'pending', oldStart = start) => ({
  index: 1,
  status,
  start_line: start,
  old_start: oldStart,
  old_count: old.length,
  new_count: next.length,
  old_lines: old,
  new_lines: next,
});

// Lines 2..5 of the file now: a person changed line 3 (the quote edit's second hunk) after the agent read it.
const NOW = ['  retries: 3,', '  timeout: 504, // set by a human', '  host: "a",', '};'];
const QUOTE = [h(2, ['  retries: 3,'], ['  retries: 5,']), h(3, ['  timeout: 504,'], ['  timeout: 504, // gateway timeout']), h(5, ['};'], ['} as const;'])];

test('a quote edit whose own line a person changed: the others go in, that one is a conflict block beside the file’s line', () => {
  expect(hunkRegionOf({ hunks: QUOTE })).toEqual({ startLine: 2, endLine: 5 });
  const merged = mergedTextOf(QUOTE, NOW, 2);
  expect(merged.conflicts).toBe(1);
  expect(merged.lines).toEqual([
    '  retries: 5,',
    MARK_NOW,
    '  timeout: 504, // set by a human',
    MARK_SPLIT,
    '  timeout: 504, // gateway timeout',
    MARK_PROPOSED,
    '  host: "a",',
    '} as const;',
  ]);
});

test('nothing changed under it: the region with every hunk in, no markers; decided hunks keep their state', () => {
  const now = ['  retries: 3,', '  timeout: 504,', '  host: "a",', '};'];
  expect(mergedTextOf(QUOTE, now, 2)).toEqual({ lines: ['  retries: 5,', '  timeout: 504, // gateway timeout', '  host: "a",', '} as const;'], conflicts: 0 });
  // A rejected hunk stays as the file has it.
  const rejected = [QUOTE[0]!, { ...QUOTE[1]!, status: 'rejected' as const }, QUOTE[2]!];
  expect(mergedTextOf(rejected, now, 2).lines).toEqual(['  retries: 5,', '  timeout: 504,', '  host: "a",', '} as const;']);
});

test('lines inserted above a hunk inside the region: it is found where its lines went', () => {
  const now = ['  retries: 3,', '  // added by a person', '  timeout: 504,', '  host: "a",', '};'];
  const merged = mergedTextOf(QUOTE, now, 2, 1);
  expect(merged.conflicts).toBe(0);
  expect(merged.lines).toEqual(['  retries: 5,', '  // added by a person', '  timeout: 504, // gateway timeout', '  host: "a",', '} as const;']);
});

test('an edit that grew the hunk’s own lines: the conflict block holds all of them', () => {
  const now = ['x', 'A1', 'A2', 'A3', 'z'];
  const merged = mergedTextOf([h(2, ['a'], ['b'])], now, 1, 2);
  expect(merged.lines).toEqual(['x', MARK_NOW, 'A1', 'A2', 'A3', MARK_SPLIT, 'b', MARK_PROPOSED, 'z']);
});

test('a create whose file is there now: the whole file beside the proposed one', () => {
  const merged = mergedTextOf([{ ...h(1, [], ['new 1', 'new 2']), old_count: 2 }], ['old 1', 'old 2'], 1);
  expect(merged).toEqual({ lines: [MARK_NOW, 'old 1', 'old 2', MARK_SPLIT, 'new 1', 'new 2', MARK_PROPOSED], conflicts: 1 });
});

test('an insert goes in at its line', () => {
  expect(mergedTextOf([h(3, [], ['ins'])], ['a', 'b', 'c'], 2).lines).toEqual(['a', 'ins', 'b', 'c']);
});

test('the sides: old lines numbered as the agent read them, new ones as after the earlier hunks', () => {
  const sides = sidesOfHunks([h(2, ['a'], ['A', 'A2'], 'pending', 12), h(6, ['b', 'c'], ['B'], 'pending', 16)]);
  expect(sides.saw).toEqual({ text: 'a\nb\nc', lineNos: [12, 16, 17] });
  expect(sides.proposed).toEqual({ text: 'A\nA2\nB', lineNos: [12, 13, 17] });
});
