/**
 * The preload (sandboxed, context-isolated): exposes exactly one object,
 * `window.folio`, whose shape the api declares (FolioBridge in src-main/api/bridge.ts).
 * It forwards calls over the one IPC channel; main validates the operation name
 * against the operation table and the input against its schema.
 */
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import type { BridgeResult, FolioBridge } from '../../api/bridge.ts';
import { CALL_CHANNEL, EVENT_CHANNEL } from './channels.ts';

const bridge = {
  call: (op: string, input: unknown) => ipcRenderer.invoke(CALL_CHANNEL, op, input) as Promise<BridgeResult>,
  onEvent: (listener: (event: unknown) => void) => {
    const handler = (_e: unknown, event: unknown) => listener(event);
    ipcRenderer.on(EVENT_CHANNEL, handler);
    return () => void ipcRenderer.off(EVENT_CHANNEL, handler);
  },
  pathForFile: (file: File) => webUtils.getPathForFile(file),
} satisfies FolioBridge;

contextBridge.exposeInMainWorld('folio', bridge);
