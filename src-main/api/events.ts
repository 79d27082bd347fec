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
  time: string;
}

export function openFileEvent(path: string): OpenFileEvent {
  return { type: 'open_file', path, time: new Date().toISOString() };
}

/** Call `listener` whenever the review state of `workspace` changes (in this or another process). Returns unsubscribe. */
export function subscribe(workspace: string, listener: (e: FolioEvent) => void): () => void {
  return watch(workspace, () => listener({ type: 'review_changed', workspace, time: new Date().toISOString() }));
}
