/** JSON Lines columns: which lines are objects, the fields seen, the default columns, and a cell's text (jq -r's). */
import { expect, test } from 'vitest';
import { cellTextOf, defaultColumnsOf, jsonObjectOf, keysSeenOf, MAX_CELL_CHARS } from '../../src-renderer/model/json-columns.ts';

test('only JSON objects have fields; arrays, scalars, prefixed and broken lines have none', () => {
  expect(jsonObjectOf(' {"a":1} ')).toEqual({ a: 1 });
  for (const line of ['[1]', '3', '"s"', 'null', 'INFO {"a":1}', '{"a":', '']) expect(jsonObjectOf(line), line).toBeNull();
});

test('fields seen in first-seen order; defaults are time, level, message when present, else the first three', () => {
  const seen = keysSeenOf([{ msg: 'x', ts: 1 }, null, { level: 'info', extra: true, ts: 2 }]);
  expect(seen).toEqual(['msg', 'ts', 'level', 'extra']);
  expect(defaultColumnsOf(seen)).toEqual(['ts', 'level', 'msg']);
  expect(defaultColumnsOf(['@timestamp', 'severity', 'message', 'host'])).toEqual(['@timestamp', 'severity', 'message']);
  expect(defaultColumnsOf(['a', 'b', 'c', 'd'])).toEqual(['a', 'b', 'c']);
});

test('a cell: strings bare, other values as JSON, absent empty, one row, cut with …', () => {
  expect(cellTextOf('info')).toBe('info');
  expect(cellTextOf(undefined)).toBe('');
  expect(cellTextOf(null)).toBe('null');
  expect(cellTextOf({ id: 1 })).toBe('{"id":1}');
  expect(cellTextOf('two\nlines')).toBe('two lines');
  const long = cellTextOf('x'.repeat(100));
  expect(long).toHaveLength(MAX_CELL_CHARS);
  expect(long.endsWith('…')).toBe(true);
});
