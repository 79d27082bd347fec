/**
 * logfmt pairs against hand-written cases from the format's description
 * (https://brandur.org/logfmt, go-logfmt's decoder tests) and a round trip:
 * any pairs a logfmt writer formats parse back to the same pairs, in order.
 * (The npm `logfmt` package is not installed here, so it is not the reference.)
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { logfmtOf, type LogfmtPair } from '../../src-renderer/model/logfmt.ts';

test('the description’s examples: bare values, key=, quoted values with escapes, order kept', () => {
  expect(logfmtOf('ts=2026-11-29T10:00:00Z level=info user=alice dur=12ms msg="quoted value with spaces" path=/a/b')).toEqual({
    prefix: '',
    pairs: [
      ['ts', '2026-11-29T10:00:00Z'],
      ['level', 'info'],
      ['user', 'alice'],
      ['dur', '12ms'],
      ['msg', 'quoted value with spaces'],
      ['path', '/a/b'],
    ],
  });
  expect(logfmtOf('foo=bar a=14 baz="hello kitty" cool%story=bro f %^asdf')?.pairs).toEqual([
    ['foo', 'bar'],
    ['a', '14'],
    ['baz', 'hello kitty'],
    ['cool%story', 'bro'],
    ['f', null],
    ['%^asdf', null],
  ]);
  expect(logfmtOf('a= b="" c')?.pairs).toEqual([
    ['a', ''],
    ['b', ''],
    ['c', null],
  ]);
  expect(logfmtOf('msg="say \\"hi\\" \\\\ now" next=1')?.pairs).toEqual([
    ['msg', 'say "hi" \\ now'],
    ['next', '1'],
  ]);
  expect(logfmtOf('s="tab\\tand\\nline \\u00e9"')?.pairs).toEqual([['s', 'tab\tand\nline é']]);
});

test('lenient where logs are: words before the first pair are the prefix; a bare value may hold =; an unclosed quote runs to the end', () => {
  expect(logfmtOf('2026-11-29T10:00:01Z WARN [worker-2] retry=3 reason="x y"')).toEqual({
    prefix: '2026-11-29T10:00:01Z WARN [worker-2]',
    pairs: [
      ['retry', '3'],
      ['reason', 'x y'],
    ],
  });
  expect(logfmtOf('url=/q?a=b&c=d')?.pairs).toEqual([['url', '/q?a=b&c=d']]);
  expect(logfmtOf('msg="never closed')?.pairs).toEqual([['msg', 'never closed']]);
  expect(logfmtOf('msg="bad \\q escape" n=1')?.pairs).toEqual([
    ['msg', 'bad \\q escape'],
    ['n', '1'],
  ]);
});

test('a line without key=value is not logfmt', () => {
  expect(logfmtOf('plain text here')).toBeNull();
  expect(logfmtOf('')).toBeNull();
  expect(logfmtOf('"a=b"')).toBeNull();
});

/** A logfmt writer (go-logfmt's rules): a value is quoted when empty or holding a space, `=`, `"` or a control character; quoting is JSON's. */
function formatted(pairs: LogfmtPair[]): string {
  return pairs
    .map(([key, value]) => {
      if (value === null) return key;
      const bare = value !== '' && ![...value].some((c) => c <= ' ' || c === '=' || c === '"' || c === '\\' || c === '\u007f' || /\s/.test(c));
      return `${key}=${bare ? value : JSON.stringify(value)}`;
    })
    .join(' ');
}

test('format then parse gives the same pairs back (property)', () => {
  const key = fc.string({ unit: fc.constantFrom(...'abcxyz_-.%/:0129ABé✓'.split('')), minLength: 1, maxLength: 8 });
  const value = fc.oneof(fc.constant(null), fc.string({ unit: 'grapheme', maxLength: 12 }), fc.string({ maxLength: 12 }));
  // The first pair has a value: a bare word before any pair is prefix text, not a key.
  const pairs = fc.tuple(fc.tuple(key, fc.string({ maxLength: 12 })), fc.array(fc.tuple(key, value), { maxLength: 6 }));
  fc.assert(
    fc.property(pairs, ([first, rest]) => {
      const all: LogfmtPair[] = [first, ...rest];
      expect(logfmtOf(formatted(all))).toEqual({ prefix: '', pairs: all });
    }),
    { numRuns: 500 },
  );
});
