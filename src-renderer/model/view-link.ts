/**
 * How to come back to what is on screen: a link for the visible lines (an http
 * link to this page in a browser, where a pasted link can open it; `folio://open`
 * in Electron, whose registered scheme opens it), and the CLI command that prints
 * the same lines. Links are read back by the one parser, src-main/api/folio-link.ts.
 */
import { folioUrlOf, pageLinkOf } from '../../src-main/api/folio-link.ts';

export { lineRangeOf, type LineRange } from '../../src-main/api/folio-link.ts';

/** The link to lines `startLine`..`endLine` of `path`: of the app page at `pageUrl`, or folio:// when there is none (Electron). */
export function viewLinkOf(path: string, startLine: number, endLine: number, pageUrl: string | null = null): string {
  const lines = { startLine, endLine };
  return pageUrl ? pageLinkOf(pageUrl, path, lines) : folioUrlOf(path, lines);
}

export function readCommandOf(path: string, startLine: number, endLine: number): string {
  return `folio read ${shellQuoted(path)} --lines ${startLine}-${endLine}`;
}

/** POSIX shell quoting: bare when only safe characters, else single quotes (with ' written as '\''). */
export function shellQuoted(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
