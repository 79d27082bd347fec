/**
 * What the filter view asks the engine's search for: several filters combined
 * (each a regex a line must match, or must not match) and a set of log levels,
 * as one JavaScript regex matched against each line. Lookaheads carry the
 * combination, so the engine needs no new operation: `^(?=.*A)(?!.*B)` is "has
 * A, has no B".
 */
import { assertionOf, FilterExprError, parseFilterExpr } from './filter-expr.ts';

export interface FilterTerm {
  /** a JavaScript regex */
  pattern: string;
  /** the line must not match it */
  exclude: boolean;
}

/** Levels the level filter offers, most severe first; each matches as a word (WARN also WARNING, ERROR also ERR). */
export const LOG_LEVELS = ['FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const LEVEL_PATTERNS: Record<LogLevel, string> = {
  FATAL: 'FATAL|CRIT(?:ICAL)?',
  ERROR: 'ERROR|ERR',
  WARN: 'WARN(?:ING)?',
  INFO: 'INFO',
  DEBUG: 'DEBUG',
  TRACE: 'TRACE',
};

/** The level filter as a regex: any of `levels` as a whole word, upper case as logs write them. */
export function levelPatternOf(levels: readonly LogLevel[]): string | null {
  if (levels.length === 0) return null;
  return `\\b(?:${levels.map((l) => LEVEL_PATTERNS[l]).join('|')})\\b`;
}

/** The first term that is not a valid regex, with the browser's reason; null when all are. */
export function invalidTermOf(terms: readonly FilterTerm[]): { pattern: string; reason: string } | null {
  for (const term of terms) {
    try {
      new RegExp(term.pattern);
    } catch (err) {
      return { pattern: term.pattern, reason: err instanceof Error ? err.message : String(err) };
    }
  }
  return null;
}

/**
 * One regex for all terms, levels and a boolean expression's assertion
 * (filter-expr.ts assertionOf, zero-width at the line's start), or null when
 * there is nothing to filter by. A single including term is sent as it is (the engine can use its literal
 * prefilter); anything else as lookaheads from the line's start. Levels follow
 * the case setting like the terms (the engine's Node has no inline `(?-i:)`), so
 * the filter view is case-sensitive unless asked.
 */
export function filterPatternOf(terms: readonly FilterTerm[], levels: readonly LogLevel[], expression: string | null = null): string | null {
  const used = terms.filter((t) => t.pattern !== '');
  const level = levelPatternOf(levels);
  const parts = [...used];
  if (level) parts.push({ pattern: level, exclude: false });
  if (parts.length === 0) return expression === null ? null : '^' + expression;
  if (parts.length === 1 && !parts[0]!.exclude && !level && expression === null) return parts[0]!.pattern;
  return '^' + parts.map((t) => `(?${t.exclude ? '!' : '='}.*?(?:${t.pattern}))`).join('') + (expression ?? '');
}

/**
 * The one regex for terms, levels and a boolean expression (filterPatternOf; null:
 * nothing filters), or why it cannot be made, in the filter view's words.
 */
export function filterRegexOf(
  terms: readonly FilterTerm[],
  levels: readonly LogLevel[],
  expression: string,
): { pattern: string | null; error?: undefined } | { error: string } {
  let assertion: string | null = null;
  if (expression.trim() !== '') {
    try {
      assertion = assertionOf(parseFilterExpr(expression));
    } catch (err) {
      if (err instanceof FilterExprError) return { error: `Filter expression, at character ${err.at + 1}: ${err.message}` };
      throw err;
    }
  }
  const invalid = invalidTermOf(terms);
  if (invalid) return { error: `“${invalid.pattern}” is not a regular expression: ${invalid.reason}` };
  return { pattern: filterPatternOf(terms, levels, assertion) };
}
