/**
 * Pushed events of the contract, for doors that keep a channel open to the
 * renderer (HTTP: Server-Sent Events at GET /api/events; Electron: the
 * `folio:event` IPC channel). An event says what changed; the renderer then asks
 * with the ordinary operations (review_list, review_history).
 */
import { watch } from '../review/watch.ts';

export interface FolioEvent {
  type: 'review_changed';
  workspace: string;
  time: string;
}

/** Call `listener` whenever the review state of `workspace` changes (in this or another process). Returns unsubscribe. */
export function subscribe(workspace: string, listener: (e: FolioEvent) => void): () => void {
  return watch(workspace, () => listener({ type: 'review_changed', workspace, time: new Date().toISOString() }));
}
