/**
 * IPC names shared by the main process and the preload. One generic channel:
 * the operation name travels as an argument and main checks it against the
 * operation table, so a new operation needs no new channel. Kept free of imports
 * so the preload bundle stays tiny (sandboxed preloads can require only electron).
 */
export const CALL_CHANNEL = 'folio:call';

/** The custom scheme the renderer is served from (a real origin, unlike file://). */
export const APP_SCHEME = 'folio-app';
export const APP_ORIGIN = `${APP_SCHEME}://app`;

/** main -> renderer: pushed events (FolioEvent). */
export const EVENT_CHANNEL = 'folio:event';
