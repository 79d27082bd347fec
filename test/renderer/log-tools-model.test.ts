/** The log tools' pure pieces: their keys, highlight rule sources and matches, and the JSON of a line. */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { ruleSource } from '../../src-main/api/app/view-state.ts';
import { anyRulePatternOf, appendRuleMatches, ruleSourceOf, type HighlightRange } from '../../src-renderer/model/highlight-rules.ts';
import { lineViewOf, prettyJsonOf } from '../../src-renderer/model/json-line.ts';
import { logKeyOf, type KeyLike } from '../../src-renderer/model/log-keys.ts';

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });

test('log tool keys: m, u/U, e/E, h/H, j, Alt+Z; with Ctrl they stay the browser’s and Monaco’s', () => {
  expect(logKeyOf(key('m'))).toBe('mark');
  expect(logKeyOf(key('u'))).toBe('nextMark');
  expect(logKeyOf(key('U', { shiftKey: true }))).toBe('previousMark');
  expect(logKeyOf(key('e'))).toBe('nextError');
  expect(logKeyOf(key('E', { shiftKey: true }))).toBe('previousError');
  expect(logKeyOf(key('h'))).toBe('nextHighlight');
  expect(logKeyOf(key('H', { shiftKey: true }))).toBe('previousHighlight');
  expect(logKeyOf(key('j'))).toBe('json');
  expect(logKeyOf(key('z', { altKey: true }))).toBe('wrap');
  expect(logKeyOf(key('M', { shiftKey: true }))).toBeNull();
  expect(logKeyOf(key('J', { shiftKey: true }))).toBeNull();
  expect(logKeyOf(key('e', { ctrlKey: true }))).toBeNull();
  expect(logKeyOf(key('h', { metaKey: true }))).toBeNull();
  expect(logKeyOf(key('z', { altKey: true, shiftKey: true }))).toBeNull();
  expect(logKeyOf(key('z', { altKey: true, ctrlKey: true }))).toBeNull();
  expect(logKeyOf(key('z'))).toBeNull();
  // The keys that were there stay as they were.
  expect(logKeyOf(key('f'))).toBe('follow');
  expect(logKeyOf(key('F3', { shiftKey: true }))).toBe('findPrevious');
});

test('a literal rule matches exactly its text, the same source on both sides of the api', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1, maxLength: 30 }), fc.string({ maxLength: 20 }), (text, around) => {
      const rule = { pattern: text, literal: true };
      expect(ruleSourceOf(rule)).toBe(ruleSource(rule));
      const regex = new RegExp(ruleSourceOf(rule), 'g');
      const line = `${around}${text}${around}`;
      const found = [...line.matchAll(regex)].map((m) => m.index);
      let at = line.indexOf(text);
      const expected: number[] = [];
      while (at !== -1) {
        expected.push(at);
        at = line.indexOf(text, at + text.length);
      }
      expect(found).toEqual(expected);
    }),
  );
  expect(ruleSourceOf({ pattern: 'a.b', literal: false })).toBe('a.b');
});

test('one pattern for the enabled rules; none when all are off', () => {
  const r = (pattern: string, enabled = true, literal = false) => ({ pattern, literal, enabled, color: 'yellow' as const });
  expect(anyRulePatternOf([])).toBeNull();
  expect(anyRulePatternOf([r('a', false)])).toBeNull();
  expect(anyRulePatternOf([r('a|b'), r('x', false)])).toBe('a|b');
  const both = anyRulePatternOf([r('^a|b$'), r('c.d', true, true)])!;
  expect(both).toBe('(?:^a|b$)|(?:c\\.d)');
  expect(['a1', '1b', 'c.d', 'x'].map((l) => new RegExp(both).test(l))).toEqual([true, true, true, false]);
});

test('rule matches: every non-empty match per line, in UTF-16 columns; empty matches skipped', () => {
  const out: HighlightRange[] = [];
  appendRuleMatches(out, ['é worker-3 worker-5', 'none', 'worker-3'], 'worker-[35]', 2);
  expect(out).toEqual([
    { row: 1, column: 3, length: 8, rule: 2 },
    { row: 1, column: 12, length: 8, rule: 2 },
    { row: 3, column: 1, length: 8, rule: 2 },
  ]);
  const empty: HighlightRange[] = [];
  appendRuleMatches(empty, ['abc'], 'x*', 0);
  expect(empty).toEqual([]);
  appendRuleMatches(empty, ['abc'], '(', 0);
  expect(empty).toEqual([]);
});

test('a JSON line pretty-printed, after a prefix too; otherwise why not', () => {
  expect(prettyJsonOf('{"a":1,"b":[true,null]}')).toEqual({ ok: true, text: '{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}', prefix: '' });
  expect(prettyJsonOf('2024-05-01T00:00:00Z INFO {"a":1}')).toEqual({ ok: true, text: '{\n  "a": 1\n}', prefix: '2024-05-01T00:00:00Z INFO' });
  expect(prettyJsonOf('[1,2]')).toMatchObject({ ok: true, text: '[\n  1,\n  2\n]' });
  const bad = prettyJsonOf('INFO {"a":');
  expect(bad.ok).toBe(false);
  expect(!bad.ok && bad.message).toMatch(/^Not JSON: /);
  expect(prettyJsonOf('   ')).toEqual({ ok: false, message: 'The line is empty' });
  expect(prettyJsonOf('plain text').ok).toBe(false);
});

test('the JSON of a line is found after brackets that are not it ([worker-1], [1]), and the longest value wins', () => {
  const line = '2026-11-29T10:00:00Z INFO [worker-1] request done payload={"a":1,"tags":["x"]}';
  expect(prettyJsonOf(line)).toEqual({
    ok: true,
    text: JSON.stringify({ a: 1, tags: ['x'] }, null, 2),
    prefix: '2026-11-29T10:00:00Z INFO [worker-1] request done payload=',
  });
  expect(prettyJsonOf('[1] took {"ms":3,"parts":[1,2]} done')).toMatchObject({ ok: true, text: JSON.stringify({ ms: 3, parts: [1, 2] }, null, 2) });
  expect(prettyJsonOf('x={"s":"a } ] { [ b"}')).toMatchObject({ ok: true, text: JSON.stringify({ s: 'a } ] { [ b' }, null, 2) });
  // Not "position 4" of the whole line (the timestamp's `-`): the object's own error, placed in the line.
  const bad = prettyJsonOf('2026-11-29T10:00:00Z INFO [worker-1] payload={"a":1,}');
  expect(!bad.ok && bad.message).toMatch(/^Not JSON: .* \(in the \{… at column 46\)$/);
});

test('a line without JSON shows its key=value fields; with neither, the JSON error', () => {
  expect(lineViewOf('ts=1 level=info msg="a b"')).toEqual({
    ok: true,
    prefix: '',
    fields: [
      ['ts', '1'],
      ['level', 'info'],
      ['msg', 'a b'],
    ],
  });
  expect(lineViewOf('INFO x={"a":1} y=2')).toMatchObject({ ok: true, text: '{\n  "a": 1\n}' });
  expect(lineViewOf('plain text')).toMatchObject({ ok: false, message: expect.stringMatching(/^Not JSON: /) });
});
