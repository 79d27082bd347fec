/**
 * Where the find pattern matches inside the lines the editor holds, to mark the
 * matched text. The engine's search says which lines match (one result per line);
 * this finds every match on the window's lines with the same regex (JavaScript
 * syntax, as the engine's), in the editor's 1-based UTF-16 columns.
 */
export interface MatchRange {
  /** 1-based row in the window */
  row: number;
  /** 1-based column (UTF-16 code units, as Monaco counts) */
  column: number;
  length: number;
}

/** Matches marked per window at most: past it a window of dense matches would cost more than it shows. */
export const MAX_MARKED_MATCHES = 10_000;

export function matchRangesOf(lines: readonly string[], pattern: string, caseSensitive: boolean): MatchRange[] {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, caseSensitive ? 'gu' : 'giu');
  } catch {
    try {
      regex = new RegExp(pattern, caseSensitive ? 'g' : 'gi');
    } catch {
      return [];
    }
  }
  const ranges: MatchRange[] = [];
  for (let i = 0; i < lines.length && ranges.length < MAX_MARKED_MATCHES; i++) {
    const line = lines[i]!;
    regex.lastIndex = 0;
    for (let m = regex.exec(line); m !== null && ranges.length < MAX_MARKED_MATCHES; m = regex.exec(line)) {
      if (m[0].length === 0) {
        regex.lastIndex++;
        continue;
      }
      ranges.push({ row: i + 1, column: m.index + 1, length: m[0].length });
    }
  }
  return ranges;
}
