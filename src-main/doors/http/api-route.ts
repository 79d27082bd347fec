/**
 * `POST /api/<op>`: the JSON body is the operation's input, the 200 response its
 * output. Failures answer `{"error": {code, message, ...details}}` with the status
 * from httpStatusOf (src-main/api/error-map.ts). Routes come from the operation
 * table (isOperationName), never a hand-written list.
 *
 * Each call gets `ctx.signal`, aborted when the client goes away before its answer
 * (the app's Cancel, a find made stale by the next keystroke, a script's timeout):
 * the long runs that take it (query, search, search_tree, histogram) then stop
 * their work and workers, and answer `cancelled` to nobody.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { httpStatusOf } from '../../api/error-map.ts';
import { errorPayloadOf } from '../../api/error-payload.ts';
import { FolioError, handle, isOperationName, type Actor } from '../../api/handle.ts';
import { readJsonBody } from './request-body.ts';

export const HTTP_ACTOR: Actor = { kind: 'human', name: 'browser' };

export async function handleApiRequest(opName: string, req: IncomingMessage, res: ServerResponse, workspace?: string): Promise<void> {
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    sendJson(res, 405, { error: errorPayloadOf(new FolioError('invalid_input', `use POST for /api/${opName}`)) });
    return;
  }
  try {
    if (!isOperationName(opName)) {
      throw new FolioError('invalid_input', `unknown operation: ${opName}`, { operation: opName });
    }
    const input = await readJsonBody(req);
    const output = await handle(opName, input, HTTP_ACTOR, { ...(workspace ? { workspace } : {}), signal: signalOfClient(res) });
    sendJson(res, 200, output);
  } catch (err) {
    if (res.destroyed) return; // the client went away: nobody to answer
    const error = errorPayloadOf(err);
    sendJson(res, httpStatusOf(error.code), { error });
  }
}

/**
 * Aborts when the connection closes before the answer was sent. The response's
 * 'close', not the request's: a request's 'close' fires once its body is read.
 */
function signalOfClient(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new FolioError('cancelled', 'the client closed the request'));
  });
  return controller.signal;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}
