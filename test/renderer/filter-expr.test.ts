/** Boolean filter expressions: the parser's precedence and errors, and the compiled regex against a reference evaluator. */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { assertionOf, filterExprPatternOf, FilterExprError, linePasses, parseFilterExpr, type FilterExpr } from '../../src-renderer/model/filter-expr.ts';
import { filterPatternOf } from '../../src-renderer/model/filter-query.ts';

const lines = [
  '10:00 ERROR connect timeout',
  '10:01 ERROR connection refused, retry 2',
  '10:02 ERROR connection refused',
  '10:03 WARN timeout',
  '10:04 ERROR disk full',
  '10:05 INFO retry timeout',
];
const kept = (source: string, flags = '') => lines.filter((l) => new RegExp(filterExprPatternOf(source), flags).test(l));

test('the issue example keeps ERROR lines with timeout or refused and without retry', () => {
  expect(kept('ERROR AND (timeout OR refused) AND NOT retry')).toEqual([lines[0], lines[2]]);
});

test('precedence is NOT over AND over OR; side by side means AND', () => {
  expect(parseFilterExpr('a OR b AND NOT c')).toEqual({
    kind: 'or',
    args: [
      { kind: 'term', text: 'a', regex: false },
      {
        kind: 'and',
        args: [
          { kind: 'term', text: 'b', regex: false },
          { kind: 'not', arg: { kind: 'term', text: 'c', regex: false } },
        ],
      },
    ],
  });
  expect(parseFilterExpr('a b')).toEqual(parseFilterExpr('a AND b'));
  expect(kept('WARN OR ERROR disk')).toEqual([lines[3], lines[4]]);
  expect(kept('NOT NOT disk')).toEqual([lines[4]]);
});

test('quoted phrases keep spaces and keywords; /regex/ is a regex; lower-case and/or/not are words', () => {
  expect(kept('"connection refused" AND NOT "retry 2"')).toEqual([lines[2]]);
  expect(kept('"AND"')).toEqual([]);
  expect(kept('"OR" AND NOT ERROR')).toEqual([]);
  expect(parseFilterExpr('"say \\"hi\\""')).toEqual({ kind: 'term', text: 'say "hi"', regex: false });
  expect(kept('/^10:0[34]/')).toEqual([lines[3], lines[4]]);
  expect(kept('/\\d full$/ OR /a\\/b/')).toEqual([]);
  expect(kept('/full$/')).toEqual([lines[4]]);
  expect(parseFilterExpr('a and b')).toEqual({
    kind: 'and',
    args: ['a', 'and', 'b'].map((text) => ({ kind: 'term', text, regex: false })),
  });
  // Literal terms are not regexes.
  expect(kept('connect.*')).toEqual([]);
});

test('case follows the flag', () => {
  expect(kept('error AND NOT RETRY', 'i')).toEqual([lines[0], lines[2], lines[4]]);
  expect(kept('error')).toEqual([]);
});

test.each([
  ['', 'empty expression', 0],
  ['ERROR AND', 'expected a term, NOT or (, found the end', 9],
  ['(a OR b', 'expected ) to close the ( at 1, found the end', 7],
  ['a)', 'unexpected )', 1],
  ['OR a', 'expected a term, NOT or (, found OR', 0],
  ['"open', 'unclosed quote', 0],
  ['x /a(/', '/a(/ is not a regular expression', 2],
  ['/(a)\\1/', 'backreferences are not supported', 0],
  ['a AND ()', 'expected a term, NOT or (, found )', 7],
])('%j is refused: %s at %d', (source, message, at) => {
  try {
    parseFilterExpr(source);
    expect.unreachable();
  } catch (err) {
    expect(err).toBeInstanceOf(FilterExprError);
    expect((err as FilterExprError).message).toContain(message);
    expect((err as FilterExprError).at).toBe(at);
  }
});

/** Source text for a tree, parenthesised wherever precedence would need it (and sometimes where it would not). */
function sourceOf(expr: FilterExpr): string {
  switch (expr.kind) {
    case 'term':
      return expr.regex ? `/${expr.text}/` : /^[a-z]+$/.test(expr.text) ? expr.text : `"${expr.text}"`;
    case 'not':
      return `NOT (${sourceOf(expr.arg)})`;
    case 'and':
      return expr.args.map((a) => `(${sourceOf(a)})`).join(' AND ');
    case 'or':
      return expr.args.map(sourceOf).join(' OR ');
  }
}

const WORDS = ['err', 'timeout', 'refused', 'retry', 'ok', 'a b', 'x.y'];
const termArb: fc.Arbitrary<FilterExpr> = fc.oneof(
  fc.constantFrom(...WORDS).map((text) => ({ kind: 'term' as const, text, regex: false })),
  fc.constantFrom('^err', 'ok$', 're(try|fused)', 't.*t', '\\d').map((text) => ({ kind: 'term' as const, text, regex: true })),
);
const exprArb: fc.Arbitrary<FilterExpr> = fc.letrec<{ expr: FilterExpr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    termArb,
    tie('expr').map((arg) => ({ kind: 'not' as const, arg })),
    fc.array(tie('expr'), { minLength: 2, maxLength: 3 }).map((args) => ({ kind: 'and' as const, args })),
    fc.array(tie('expr'), { minLength: 2, maxLength: 3 }).map((args) => ({ kind: 'or' as const, args })),
  ),
})).expr;
const lineArb = fc
  .array(fc.constantFrom('err', 'ERR', 'timeout', 'refused', 'retry', 'ok', 'a', 'b', 'x.y', 'xzy', '7', '\u2028', ' '), { maxLength: 10 })
  .map((parts) => parts.join(''));

test('property: the compiled regex keeps exactly the lines the reference evaluator passes, either case', () => {
  fc.assert(
    fc.property(exprArb, fc.array(lineArb, { minLength: 1, maxLength: 8 }), fc.boolean(), (expr, someLines, caseSensitive) => {
      const source = sourceOf(expr);
      const regex = new RegExp(filterExprPatternOf(source), caseSensitive ? '' : 'i');
      const reparsed = parseFilterExpr(source);
      for (const line of someLines) {
        expect(regex.test(line)).toBe(linePasses(expr, line, caseSensitive));
        expect(linePasses(reparsed, line, caseSensitive)).toBe(linePasses(expr, line, caseSensitive));
      }
    }),
    { numRuns: 500 },
  );
});

test('an expression combines with the include/exclude list and levels', () => {
  const expr = parseFilterExpr('timeout OR refused');
  const only = filterPatternOf([], [], assertionOf(expr));
  expect(lines.filter((l) => new RegExp(only!).test(l))).toEqual([lines[0], lines[1], lines[2], lines[3], lines[5]]);
  const both = filterPatternOf([{ pattern: 'retry', exclude: true }], ['ERROR'], assertionOf(expr));
  expect(lines.filter((l) => new RegExp(both!).test(l))).toEqual([lines[0], lines[2]]);
});
