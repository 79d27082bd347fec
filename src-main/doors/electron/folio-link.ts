/**
 * `folio://open?path=FILE&lines=A-B` links (what Copy link puts on the
 * clipboard): the OS hands them to the app (macOS open-url, a second instance's
 * argv elsewhere), which shows FILE with lines A–B selected.
 */
import { isAbsolute } from 'node:path';

export const LINK_SCHEME = 'folio';

export interface FolioLink {
  path: string;
  lines?: { start: number; end: number };
}

/** The file and lines of a folio://open link, or null when `text` is not one (or names no absolute path). */
export function folioLinkOf(text: string): FolioLink | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== `${LINK_SCHEME}:` || url.hostname !== 'open') return null;
  const path = url.searchParams.get('path');
  if (!path || !isAbsolute(path)) return null;
  const m = /^(\d+)(?:-(\d+))?$/.exec(url.searchParams.get('lines') ?? '');
  if (!m) return { path };
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  return a >= 1 && b >= 1 ? { path, lines: { start: Math.min(a, b), end: Math.max(a, b) } } : { path };
}

/** The first folio:// link among command-line arguments (Windows and Linux pass a clicked link as one). */
export function folioLinkInArgv(argv: readonly string[]): FolioLink | null {
  for (const arg of argv) {
    if (!arg.startsWith(`${LINK_SCHEME}://`)) continue;
    const link = folioLinkOf(arg);
    if (link) return link;
  }
  return null;
}
