/**
 * How the renderer reaches the api: through `window.folio` (the Electron preload's
 * bridge) when present, else `POST /api/<op>` on the `folio serve` origin, which
 * the page cookie authenticates (set when the printed URL was opened: a same-origin
 * fetch sends it along, no token in any URL or header). Both answer the same typed call; failures become one
 * FolioCallError carrying the api error's code and details. Pushed events arrive
 * through `subscribe`: `window.folio.onEvent` in Electron, Server-Sent Events from
 * `GET /api/events` in the browser.
 */
import type { ErrorPayload, FolioBridge } from '../src-main/api/bridge.ts';
import type { FolioEvent } from '../src-main/api/events.ts';
import type { OperationName, OpInput, OpOutput } from '../src-main/api/operations.ts';

export type { BridgeResult, ErrorPayload, FolioBridge } from '../src-main/api/bridge.ts';

declare global {
  interface Window {
    folio?: FolioBridge;
  }
}

export class FolioCallError extends Error {
  override readonly name = 'FolioCallError';
  readonly code: string;
  readonly details: Record<string, unknown>;
  constructor(payload: ErrorPayload) {
    super(payload.message);
    const { code, message: _message, ...details } = payload;
    this.code = code;
    this.details = details;
  }
}

/**
 * `signal` aborts the HTTP request (a search made stale by the next keystroke, a
 * cancelled query), and the server then stops the call's work (doors/http/api-route.ts);
 * the Electron bridge can only drop the answer (doors/electron/ipc.ts).
 */
export type Call = <N extends OperationName>(op: N, input: OpInput<N>, signal?: AbortSignal) => Promise<OpOutput<N>>;

export function createTransport(win: Window = window): Call {
  const bridge = win.folio;
  if (bridge) {
    return async (op, input, signal) => {
      const result = await bridge.call(op, input);
      signal?.throwIfAborted();
      if (!result.ok) throw new FolioCallError(result.error);
      return result.output as OpOutput<typeof op>;
    };
  }
  return async (op, input, signal) => {
    let response: Response;
    try {
      response = await fetch(`/api/${op}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(input),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new FolioCallError({ code: 'unreachable', message: `cannot reach folio serve: ${String(err)}` });
    }
    const body = (await response.json().catch(() => null)) as unknown;
    if (!response.ok) throw new FolioCallError(errorPayloadOf(body, response));
    return body as OpOutput<typeof op>;
  };
}

function errorPayloadOf(body: unknown, response: Response): ErrorPayload {
  const error = (body as { error?: Partial<ErrorPayload> } | null)?.error;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') return error as ErrorPayload;
  return { code: `http_${response.status}`, message: `${response.status} ${response.statusText}` };
}

let shared: Call | undefined;

/** The transport of this page, created on first use. */
export function call<N extends OperationName>(op: N, input: OpInput<N>, signal?: AbortSignal): Promise<OpOutput<N>> {
  shared ??= createTransport();
  return shared(op, input, signal);
}

export type { FolioEvent } from '../src-main/api/events.ts';

/** How the event channel is doing: `open` once connected, `lost` while it retries. */
export type ChannelState = 'connecting' | 'open' | 'lost';

export interface EventHandlers {
  onEvent(event: FolioEvent): void;
  onState?(state: ChannelState): void;
}

/** Listen to pushed events; returns unsubscribe. EventSource reconnects by itself after a drop. */
export function subscribe(handlers: EventHandlers, win: Window = window): () => void {
  const bridge = win.folio;
  if (bridge) {
    handlers.onState?.('open');
    return bridge.onEvent((event) => handlers.onEvent(event as FolioEvent));
  }
  // Same origin: the page cookie goes along (an EventSource cannot send headers).
  const source = new EventSource('/api/events');
  handlers.onState?.('connecting');
  source.onopen = () => handlers.onState?.('open');
  source.onerror = () => handlers.onState?.(source.readyState === EventSource.CLOSED ? 'lost' : 'connecting');
  const onMessage = (message: Event) => {
    try {
      handlers.onEvent(JSON.parse((message as MessageEvent<string>).data) as FolioEvent);
    } catch {
      // a malformed event carries nothing to act on
    }
  };
  for (const type of ['review_changed', 'open_file'] satisfies FolioEvent['type'][]) source.addEventListener(type, onMessage);
  return () => source.close();
}

/**
 * The path on disk of a dropped File: only the Electron preload can tell
 * (webUtils.getPathForFile); null in a browser, which never shows pages where a
 * file lives.
 */
export function pathOfDroppedFile(file: File, win: Window = window): string | null {
  return win.folio?.pathForFile(file) || null;
}
