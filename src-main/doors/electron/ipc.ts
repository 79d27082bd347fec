/**
 * The Electron door's api route: `folio:call (op, input)` answers a BridgeResult,
 * because an exception thrown in ipcMain.handle reaches the renderer as a bare
 * message and loses the error's code and details.
 *
 * No call is cancelled here: `ipcRenderer.invoke` carries no AbortSignal, so the
 * app's Cancel (and a find made stale by the next keystroke) only drops the answer
 * in the renderer, and a query's process runs to its end or its time limit. The HTTP
 * door does abort (doors/http/api-route.ts); doing so here needs a call id and a
 * second channel to abort it by.
 */
import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { subscribe, type FolioEvent } from '../../api/events.ts';
import { FolioError, handle, isOperationName, type Actor } from '../../api/handle.ts';
import type { BridgeResult } from '../../api/bridge.ts';
import { errorPayloadOf } from '../../api/error-payload.ts';
import { CALL_CHANNEL, EVENT_CHANNEL } from './channels.ts';

export const ELECTRON_ACTOR: Actor = { kind: 'human', name: 'electron' };

export async function callOperation(op: unknown, input: unknown): Promise<BridgeResult> {
  try {
    if (typeof op !== 'string' || !isOperationName(op)) {
      throw new FolioError('invalid_input', `unknown operation: ${String(op)}`, { operation: String(op) });
    }
    return { ok: true, output: await handle(op, input, ELECTRON_ACTOR) };
  } catch (err) {
    return { ok: false, error: errorPayloadOf(err) };
  }
}

/**
 * Answers calls only from frames whose URL passes isTrustedUrl (our own pages).
 * `afterCall` sees each successful call (the menu follows recent_add).
 */
export function registerIpc(isTrustedUrl: (url: string) => boolean, afterCall?: (op: string, output: unknown) => void): void {
  ipcMain.handle(CALL_CHANNEL, async (event: IpcMainInvokeEvent, op: unknown, input: unknown) => {
    const url = event.senderFrame?.url ?? '';
    if (!isTrustedUrl(url)) {
      return { ok: false, error: errorPayloadOf(new FolioError('permission_denied', `IPC from an untrusted page: ${url}`)) };
    }
    const result = await callOperation(op, input);
    if (result.ok) afterCall?.(String(op), result.output);
    return result;
  });
}

/** Push one event to a window's renderer (e.g. open_file from the menu). */
export function sendEvent(contents: WebContents, event: FolioEvent): void {
  if (!contents.isDestroyed()) contents.send(EVENT_CHANNEL, event);
}

/** Push the workspace's events to a window's renderer; returns unsubscribe. */
export function forwardEvents(contents: WebContents, workspace: string): () => void {
  return subscribe(workspace, (event) => {
    if (!contents.isDestroyed()) contents.send(EVENT_CHANNEL, event);
  });
}
