/**
 * Highlight rules as the viewer uses them: each enabled rule's regex source (a
 * literal escaped, as the api stores it), every match of each on the window's
 * lines (to mark the matched text), and one pattern for all of them (next /
 * previous highlight searches the whole file with it).
 */
import type { HighlightRule } from '../../src-main/api/schemas.ts';

export type { HighlightRule };

/** The colours a rule can take, in the order the panel offers them. */
export const HIGHLIGHT_COLORS: readonly HighlightRule['color'][] = ['yellow', 'green', 'blue', 'orange', 'pink', 'purple', 'red', 'cyan'];

/** Matched per line at most: Monaco paints no more of a row than this. */
export const MATCHED_CHARS_PER_LINE = 10_000;
/** Marks per window at most, over all rules. */
export const MAX_HIGHLIGHT_MARKS = 20_000;

/** The regex source of a rule: literal text escaped, a regex as typed. */
export function ruleSourceOf(rule: Pick<HighlightRule, 'pattern' | 'literal'>): string {
  return rule.literal ? rule.pattern.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&') : rule.pattern;
}

/** One pattern matching a line when any enabled rule matches it; null when no rule is on. */
export function anyRulePatternOf(rules: readonly HighlightRule[]): string | null {
  const on = rules.filter((r) => r.enabled);
  if (on.length === 0) return null;
  if (on.length === 1) return ruleSourceOf(on[0]!);
  return on.map((r) => `(?:${ruleSourceOf(r)})`).join('|');
}

export interface HighlightRange {
  /** 1-based row in the window */
  row: number;
  /** 1-based column (UTF-16 code units, as Monaco counts) */
  column: number;
  length: number;
  /** index of the rule in the list it was given */
  rule: number;
}

/**
 * Every match of rule `rule` (regex `source`) in `lines`, appended to `out`, at
 * most up to MAX_HIGHLIGHT_MARKS in all. Case-sensitive, as the engine searches.
 */
export function appendRuleMatches(out: HighlightRange[], lines: readonly string[], source: string, rule: number): void {
  let regex: RegExp;
  try {
    regex = new RegExp(source, 'g');
  } catch {
    return;
  }
  for (let i = 0; i < lines.length && out.length < MAX_HIGHLIGHT_MARKS; i++) {
    const line = lines[i]!.length > MATCHED_CHARS_PER_LINE ? lines[i]!.slice(0, MATCHED_CHARS_PER_LINE) : lines[i]!;
    regex.lastIndex = 0;
    for (let m = regex.exec(line); m !== null && out.length < MAX_HIGHLIGHT_MARKS; m = regex.exec(line)) {
      if (m[0].length === 0) {
        regex.lastIndex++;
        continue;
      }
      out.push({ row: i + 1, column: m.index + 1, length: m[0].length, rule });
    }
  }
}
