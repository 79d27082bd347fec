/**
 * The shape of the Electron bridge (`window.folio`) and of errors as doors send
 * them. Part of the contract: the preload implements it, the renderer consumes it.
 */

/**
 * An api error as the doors send it: `{code, message, ...details}`, built by
 * errorPayloadOf (src-main/api/error-payload.ts). `code` is a FolioError code, or
 * `internal` for anything else that was thrown.
 */
export interface ErrorPayload {
  code: string;
  message: string;
  [detail: string]: unknown;
}

/** What the Electron preload's `folio:call` answers (errors do not survive IPC as exceptions). */
export type BridgeResult = { ok: true; output: unknown } | { ok: false; error: ErrorPayload };

/** The object the Electron preload exposes as `window.folio`. */
export interface FolioBridge {
  call(op: string, input: unknown): Promise<BridgeResult>;
  /** Pushed events (FolioEvent in src-main/api/events.ts); returns unsubscribe. */
  onEvent(listener: (event: unknown) => void): () => void;
  /**
   * The path of a File dropped onto the window (Electron's webUtils.getPathForFile;
   * with contextIsolation the renderer has no other way to learn it). '' when the
   * File has no path on disk.
   */
  pathForFile(file: File): string;
}
