/**
 * Pushed events of the contract, for doors that keep a channel open to the
 * renderer (HTTP: Server-Sent Events at GET /api/events; Electron: the
 * `folio:event` IPC channel). An event says what changed; the renderer then asks
 * with the ordinary operations (review_list, review_history).
 */
import { watch } from '../review/watch.ts';

export type FolioEvent = ReviewChangedEvent | OpenFileEvent;

export interface ReviewChangedEvent {
  type: 'review_changed';
  workspace: string;
  time: string;
}

/**
 * Show this file: sent by the Electron door (File → Open…, Open Recent, a second
 * `npm start -- FILE` forwarded to the running instance). The renderer opens it
 * like a path typed into the open-file form.
 */
export interface OpenFileEvent {
  type: 'open_file';
  path: string;
  /** the lines to show selected (a folio://open?path=…&lines=A-B link), 1-based inclusive */
  lines?: { start: number; end: number };
  time: string;
}

export function openFileEvent(path: string, lines?: { start: number; end: number }): OpenFileEvent {
  return { type: 'open_file', path, ...(lines ? { lines } : {}), time: new Date().toISOString() };
}

/** Pages of each workspace that listen for open_file (the app windows connected to this process). */
const openListeners = new Map<string, Set<(e: OpenFileEvent) => void>>();

/**
 * Show `path` in every app page subscribed to `workspace` in this process (what
 * `folio open FILE` asks a running `folio serve` to do). Returns how many got it.
 */
export function publishOpenFile(workspace: string, path: string, lines?: { start: number; end: number }): number {
  const listeners = [...(openListeners.get(workspace) ?? [])];
  const event = openFileEvent(path, lines);
  for (const listener of listeners) listener(event);
  return listeners.length;
}

/**
 * Call `listener` whenever the review state of `workspace` changes (in this or
 * another process), and with each open_file published for it. Returns unsubscribe.
 */
export function subscribe(workspace: string, listener: (e: FolioEvent) => void): () => void {
  const off = watch(workspace, () => listener({ type: 'review_changed', workspace, time: new Date().toISOString() }));
  const listeners = openListeners.get(workspace) ?? new Set();
  openListeners.set(workspace, listeners);
  listeners.add(listener);
  return () => {
    off();
    listeners.delete(listener);
  };
}
