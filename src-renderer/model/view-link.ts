/**
 * How to come back to what is on screen: a `folio://open` link for the visible
 * lines, and the CLI command that prints the same lines.
 */

export function viewLinkOf(path: string, startLine: number, endLine: number): string {
  return `folio://open?path=${encodeURIComponent(path)}&lines=${startLine}-${endLine}`;
}

/** Lines named by a link, 1-based inclusive. */
export interface LineRange {
  startLine: number;
  endLine: number;
}

/** The `lines` of a link: "A-B" or "A" (B before A is swapped), else null. */
export function lineRangeOf(text: string): LineRange | null {
  const m = /^\s*(\d+)\s*(?:[-–:]\s*(\d+))?\s*$/.exec(text);
  if (!m) return null;
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  if (a < 1 || b < 1) return null;
  return { startLine: Math.min(a, b), endLine: Math.max(a, b) };
}

export function readCommandOf(path: string, startLine: number, endLine: number): string {
  return `folio read ${shellQuoted(path)} --lines ${startLine}-${endLine}`;
}

/** POSIX shell quoting: bare when only safe characters, else single quotes (with ' written as '\''). */
export function shellQuoted(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
