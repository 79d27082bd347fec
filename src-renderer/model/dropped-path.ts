/**
 * Which file a drop onto the window names. In Electron the preload gives a
 * dropped File's path. A browser never does; but Linux file managers (Nautilus,
 * Dolphin, Thunar) also put the file as a `file://` URI in `text/uri-list`
 * (RFC 2483: one URI per line, `#` lines are comments), and some apps only in
 * `text/plain`, so those are read too. Anything else gets a message saying why.
 */
export type DropOutcome = { kind: 'path'; path: string } | { kind: 'no_path'; message: string } | { kind: 'nothing' };

/** What a drop carries, as read from its DataTransfer (kept apart from the DOM so it is easy to test). */
export interface DropData {
  uriList: string;
  plainText: string;
  files: readonly File[];
}

export const BROWSER_DROP_MESSAGE =
  'A browser does not tell a page where a dropped file is on disk. Type or paste its path above, ' +
  'drag it from a file manager that sends file:// links, or use the desktop app.';

/** The local path of a `file://` URI, or null (another scheme, another host, not a URI). */
export function pathOfFileUri(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'file:' || (url.hostname !== '' && url.hostname !== 'localhost')) return null;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  // file:///C:/dir/f.txt is C:/dir/f.txt on Windows (RFC 8089, appendix E.2).
  return /^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path;
}

function firstFileUriPath(text: string): string | null {
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const path = pathOfFileUri(line);
    if (path) return path;
  }
  return null;
}

/** The first file the drop names: a dropped File's path (Electron), else a file:// URI; else why not. */
export function dropOutcomeOf(data: DropData, pathOfFile: (file: File) => string | null): DropOutcome {
  for (const file of data.files) {
    const path = pathOfFile(file);
    if (path) return { kind: 'path', path };
  }
  const path = firstFileUriPath(data.uriList) ?? firstFileUriPath(data.plainText);
  if (path) return { kind: 'path', path };
  if (data.files.length > 0) return { kind: 'no_path', message: BROWSER_DROP_MESSAGE };
  return { kind: 'nothing' };
}

export function dropDataOf(transfer: DataTransfer): DropData {
  return { uriList: transfer.getData('text/uri-list'), plainText: transfer.getData('text/plain'), files: Array.from(transfer.files) };
}
