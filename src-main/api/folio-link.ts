/**
 * Links to lines of a file, the one parser for every door that takes one: the
 * path box, `folio open`, and Electron (a clicked link, a second instance's argv).
 * Two forms name the same thing:
 *   folio://open?path=FILE&lines=A-B        (Electron's registered scheme)
 *   http://HOST:PORT/?path=FILE&lines=A-B   (a page of the `folio serve` that made it;
 *                                            `file=` is read as `path=`, as launch URLs have it)
 * Browser-safe (the renderer imports it by value: eslint.config.js allows this
 * module alone, and it imports nothing).
 */

export const LINK_SCHEME = 'folio';

/** Lines named by a link, 1-based inclusive. */
export interface LineRange {
  startLine: number;
  endLine: number;
}

export interface FolioLink {
  path: string;
  lines: LineRange | null;
}

/** A link read: the file and lines, or why it names none. */
export type LinkReading = ({ ok: true } & FolioLink) | { ok: false; problem: string };

/** The `lines` of a link: "A-B" or "A" (B before A is swapped), else null. */
export function lineRangeOf(text: string): LineRange | null {
  const m = /^\s*(\d+)\s*(?:[-–:]\s*(\d+))?\s*$/.exec(text);
  if (!m) return null;
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || a < 1 || b < 1) return null;
  return { startLine: Math.min(a, b), endLine: Math.max(a, b) };
}

/** "A-B" (or "A" for one line), as links write lines. */
export function linesTextOf({ startLine, endLine }: LineRange): string {
  return startLine === endLine ? `${startLine}` : `${startLine}-${endLine}`;
}

/** `folio://open?path=…&lines=A-B`. */
export function folioUrlOf(path: string, lines: LineRange): string {
  return `${LINK_SCHEME}://open?path=${encodeURIComponent(path)}&lines=${startEnd(lines)}`;
}

/** The app page at `pageUrl` (origin and path; its query is replaced) opened on `path` at `lines`. */
export function pageLinkOf(pageUrl: string, path: string, lines: LineRange): string {
  const url = new URL(pageUrl);
  url.search = `?path=${encodeURIComponent(path)}&lines=${startEnd(lines)}`;
  url.hash = '';
  return url.href;
}

const startEnd = ({ startLine, endLine }: LineRange) => `${startLine}-${endLine}`;

/**
 * A path a link may name: absolute (POSIX, a Windows drive or UNC path) or a
 * remote locator (pg://, az://, s3://). A relative path would be relative to
 * whatever directory opens the link, so it names nothing.
 */
function isLinkablePath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\') || /^[a-z][a-z0-9+.-]*:\/\//i.test(path);
}

/**
 * What `text` opens when it is a link: null when it is no link at all (a path,
 * a locator such as pg://…, anything not folio: or http(s):), else the file and
 * lines or the problem to show. An http(s) link counts only from one of
 * `appOrigins` (the origin of the page reading it): another server's link names
 * files of another machine or workspace.
 */
export function folioLinkOf(text: string, appOrigins: readonly string[] = []): LinkReading | null {
  const trimmed = text.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme !== LINK_SCHEME && scheme !== 'http' && scheme !== 'https') return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return { ok: false, problem: `${trimmed} is not a well-formed link` };
  }
  if (scheme === LINK_SCHEME) {
    // Chromium parses folio://open?… with host "open"; Node too (a non-special scheme keeps its host).
    const what = url.host || url.pathname.replace(/^\/+/, '');
    if (what !== 'open') return { ok: false, problem: `folio:// links open files: folio://open?path=FILE&lines=A-B (not folio://${what})` };
  } else if (!appOrigins.includes(url.origin)) {
    const here = appOrigins.length > 0 ? ` (this app is ${appOrigins.join(', ')})` : '';
    return { ok: false, problem: `${url.origin} is not this Folio${here}: open its links there, or use a folio://open link` };
  }
  const path = url.searchParams.get('path') || url.searchParams.get('file');
  if (!path) return { ok: false, problem: 'the link names no file (path=FILE is missing)' };
  if (!isLinkablePath(path)) return { ok: false, problem: `the link's path ${path} is not absolute` };
  const linesText = url.searchParams.get('lines');
  if (linesText === null || linesText === '') return { ok: true, path, lines: null };
  const lines = lineRangeOf(linesText);
  if (!lines) return { ok: false, problem: notLinesProblemOf(linesText) };
  return { ok: true, path, lines };
}

/** What is wrong with a link's `lines=TEXT` that lineRangeOf refused. */
export function notLinesProblemOf(text: string): string {
  return `lines=${text} is not lines: write A-B or A (1-based)`;
}

/** Why `lines` cannot be shown in a file of `lineCount` lines, or null when they can. */
export function linesProblemOf(lines: LineRange, path: string, lineCount: number): string | null {
  if (lines.endLine <= lineCount) return null;
  const count = `${lineCount} line${lineCount === 1 ? '' : 's'}`;
  const what = lines.startLine === lines.endLine ? `line ${lines.startLine} is` : `lines ${linesTextOf(lines)} are`;
  return `${what} past the end of ${path} (${count})`;
}

/** The first folio:// link among command-line arguments (Windows and Linux pass a clicked link as one); null when none. */
export function folioLinkInArgv(argv: readonly string[]): LinkReading | null {
  for (const arg of argv) if (arg.toLowerCase().startsWith(`${LINK_SCHEME}:`)) return folioLinkOf(arg);
  return null;
}
