/**
 * How to come back to what is on screen: a `folio://open` link for the visible
 * lines, and the CLI command that prints the same lines.
 */

export function viewLinkOf(path: string, startLine: number, endLine: number): string {
  return `folio://open?path=${encodeURIComponent(path)}&lines=${startLine}-${endLine}`;
}

export function readCommandOf(path: string, startLine: number, endLine: number): string {
  return `folio read ${shellQuoted(path)} --lines ${startLine}-${endLine}`;
}

/** POSIX shell quoting: bare when only safe characters, else single quotes (with ' written as '\''). */
export function shellQuoted(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
