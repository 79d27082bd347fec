/** The log viewer's pure pieces: its keys, link lines, and where find marks matches. */
import { expect, test } from 'vitest';
import { matchRangesOf } from '../../src-renderer/model/find-matches.ts';
import { logKeyOf, type KeyLike } from '../../src-renderer/model/log-keys.ts';
import { lineRangeOf } from '../../src-renderer/model/view-link.ts';

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });

test('viewer keys map to actions; plain typing and Alt chords stay Monaco’s', () => {
  expect(logKeyOf(key('Home', { ctrlKey: true }))).toBe('firstLine');
  expect(logKeyOf(key('End', { metaKey: true }))).toBe('lastLine');
  expect(logKeyOf(key('End'))).toBe('end');
  expect(logKeyOf(key('F3'))).toBe('findNext');
  expect(logKeyOf(key('F3', { shiftKey: true }))).toBe('findPrevious');
  expect(logKeyOf(key('g', { ctrlKey: true }))).toBe('goTo');
  expect(logKeyOf(key('F', { ctrlKey: true }))).toBe('find');
  expect(logKeyOf(key('O', { ctrlKey: true, shiftKey: true }))).toBe('outline');
  expect(logKeyOf(key('f'))).toBe('follow');
  expect(logKeyOf(key('PageUp'))).toBe('readBack');
  expect(logKeyOf(key('ArrowUp'))).toBe('readBack');
  expect(logKeyOf(key('Escape'))).toBe('escape');
  expect(logKeyOf(key('a'))).toBeNull();
  expect(logKeyOf(key('PageDown'))).toBeNull();
  expect(logKeyOf(key('f', { altKey: true }))).toBeNull();
  expect(logKeyOf(key('ArrowUp', { shiftKey: true }))).toBeNull();
});

test('link lines read "A-B" or "A"; anything else is no range', () => {
  expect(lineRangeOf('150-154')).toEqual({ startLine: 150, endLine: 154 });
  expect(lineRangeOf('7')).toEqual({ startLine: 7, endLine: 7 });
  expect(lineRangeOf('9-3')).toEqual({ startLine: 3, endLine: 9 });
  expect(lineRangeOf('')).toBeNull();
  expect(lineRangeOf('0-2')).toBeNull();
  expect(lineRangeOf('a-b')).toBeNull();
});

test('find marks every match on a line, in UTF-16 columns, case-insensitively unless asked', () => {
  expect(matchRangesOf(['a ERROR b error', 'none', 'café error'], 'error', false)).toEqual([
    { row: 1, column: 3, length: 5 },
    { row: 1, column: 11, length: 5 },
    { row: 3, column: 6, length: 5 },
  ]);
  expect(matchRangesOf(['a ERROR b error'], 'error', true)).toEqual([{ row: 1, column: 11, length: 5 }]);
  expect(matchRangesOf(['😀 x'], 'x', true)).toEqual([{ row: 1, column: 4, length: 1 }]);
  // Empty matches mark nothing and do not loop; a bad pattern marks nothing.
  expect(matchRangesOf(['abc'], 'x*', true)).toEqual([]);
  expect(matchRangesOf(['abc'], '(', true)).toEqual([]);
});
