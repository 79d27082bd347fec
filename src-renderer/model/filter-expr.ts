/**
 * Boolean filter expressions (issue 31): `ERROR AND (timeout OR refused) AND NOT retry`.
 * Terms are literals (a run of characters up to a space or a parenthesis), "quoted
 * phrases" (`\"` and `\\` inside) or /regexes/ (`\/` inside); a line passes a term
 * when it contains it. Operators are the upper-case words AND, OR, NOT; two terms
 * side by side are ANDed; precedence NOT > AND > OR; parentheses group.
 *
 * How it runs over a huge file: compiled to one JavaScript regex of lookaheads at
 * the line's start, `^(?=[\s\S]*?ERROR)(?:(?=[\s\S]*?timeout)|(?=…))(?![\s\S]*?retry)`,
 * which the engine's `search` runs like any pattern (the filter view's include and
 * exclude list already goes that way, filter-query.ts): counting, paging and the
 * time budget are the search's, nothing is evaluated in the renderer. Every
 * assertion is zero-width at position 0, so the cost per line is one scan per term.
 */

export type FilterExpr = { kind: 'term'; text: string; regex: boolean } | { kind: 'not'; arg: FilterExpr } | { kind: 'and' | 'or'; args: FilterExpr[] };

/** A malformed expression: what is wrong and where (0-based character index). */
export class FilterExprError extends Error {
  override readonly name = 'FilterExprError';
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

type Token = { kind: '(' | ')' | 'AND' | 'OR' | 'NOT' | 'end'; at: number } | { kind: 'term'; at: number; text: string; regex: boolean };

const KEYWORDS = new Set(['AND', 'OR', 'NOT']);

function tokensOf(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ kind: c, at: i++ });
    } else if (c === '"' || c === '/') {
      const at = i;
      let text = '';
      i++;
      for (;;) {
        if (i >= source.length) throw new FilterExprError(c === '"' ? 'unclosed quote' : 'unclosed /regex/', at);
        const d = source[i]!;
        if (d === c) break;
        if (d === '\\' && i + 1 < source.length) {
          const e = source[i + 1]!;
          // In a phrase \" and \\ are the characters; in a regex only \/ loses its backslash, the rest is the regex's.
          if (c === '"' && (e === '"' || e === '\\')) text += e;
          else if (c === '/' && e === '/') text += '/';
          else text += d + e;
          i += 2;
          continue;
        }
        text += d;
        i++;
      }
      i++;
      if (text === '') throw new FilterExprError(c === '"' ? 'empty phrase' : 'empty /regex/', at);
      tokens.push({ kind: 'term', at, text, regex: c === '/' });
    } else {
      const at = i;
      while (i < source.length && !/[\s()"]/.test(source[i]!)) i++;
      const word = source.slice(at, i);
      if (KEYWORDS.has(word)) tokens.push({ kind: word as 'AND' | 'OR' | 'NOT', at });
      else tokens.push({ kind: 'term', at, text: word, regex: false });
    }
  }
  tokens.push({ kind: 'end', at: source.length });
  return tokens;
}

/** The expression's tree; a FilterExprError when it is malformed or empty. */
export function parseFilterExpr(source: string): FilterExpr {
  const tokens = tokensOf(source);
  let pos = 0;
  const peek = () => tokens[pos]!;
  const describe = (t: Token) => (t.kind === 'end' ? 'the end' : t.kind === 'term' ? `“${t.text}”` : t.kind);

  function or(): FilterExpr {
    const args = [and()];
    while (peek().kind === 'OR') {
      pos++;
      args.push(and());
    }
    return args.length === 1 ? args[0]! : { kind: 'or', args };
  }
  function and(): FilterExpr {
    const args = [not()];
    for (;;) {
      const t = peek();
      if (t.kind === 'AND') pos++;
      else if (t.kind !== 'term' && t.kind !== 'NOT' && t.kind !== '(') break;
      args.push(not());
    }
    return args.length === 1 ? args[0]! : { kind: 'and', args };
  }
  function not(): FilterExpr {
    if (peek().kind === 'NOT') {
      pos++;
      return { kind: 'not', arg: not() };
    }
    return primary();
  }
  function primary(): FilterExpr {
    const t = peek();
    if (t.kind === '(') {
      pos++;
      const inner = or();
      const close = peek();
      if (close.kind !== ')') throw new FilterExprError(`expected ) to close the ( at ${t.at + 1}, found ${describe(close)}`, close.at);
      pos++;
      return inner;
    }
    if (t.kind === 'term') {
      pos++;
      if (t.regex) checkRegex(t.text, t.at);
      return { kind: 'term', text: t.text, regex: t.regex };
    }
    throw new FilterExprError(`expected a term, NOT or (, found ${describe(t)}`, t.at);
  }

  if (peek().kind === 'end') throw new FilterExprError('empty expression', 0);
  const tree = or();
  const rest = peek();
  if (rest.kind !== 'end') throw new FilterExprError(`unexpected ${describe(rest)}`, rest.at);
  return tree;
}

function checkRegex(source: string, at: number): void {
  // Terms become groups of one regex: a backreference would point into another term's groups.
  if (/\\[1-9]|\\k</.test(source)) throw new FilterExprError(`/${source}/: backreferences are not supported in a filter expression`, at);
  try {
    new RegExp(source);
  } catch (err) {
    throw new FilterExprError(`/${source}/ is not a regular expression: ${err instanceof Error ? err.message : String(err)}`, at);
  }
}

const escapeRegex = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/** A zero-width regex that holds at a line's start exactly when the line passes `expr`. */
export function assertionOf(expr: FilterExpr): string {
  switch (expr.kind) {
    case 'term':
      // [\s\S], not `.`: a line may hold U+2028, which `.` does not cross.
      return `(?=[\\s\\S]*?(?:${expr.regex ? expr.text : escapeRegex(expr.text)}))`;
    case 'not':
      return `(?!${assertionOf(expr.arg)})`;
    case 'and':
      return expr.args.map(assertionOf).join('');
    case 'or':
      return `(?:${expr.args.map(assertionOf).join('|')})`;
  }
}

/** The regex the engine's `search` runs for `source` (flag `i` for case-insensitive); a FilterExprError when malformed. */
export function filterExprPatternOf(source: string): string {
  return '^' + assertionOf(parseFilterExpr(source));
}

/** The reference meaning of `expr` for one line (what the compiled regex must agree with). */
export function linePasses(expr: FilterExpr, line: string, caseSensitive: boolean): boolean {
  switch (expr.kind) {
    case 'term':
      if (expr.regex) return new RegExp(expr.text, caseSensitive ? '' : 'i').test(line);
      return caseSensitive ? line.includes(expr.text) : line.toLowerCase().includes(expr.text.toLowerCase());
    case 'not':
      return !linePasses(expr.arg, line, caseSensitive);
    case 'and':
      return expr.args.every((a) => linePasses(a, line, caseSensitive));
    case 'or':
      return expr.args.some((a) => linePasses(a, line, caseSensitive));
  }
}
