/**
 * `POST /api/<op>`: the JSON body is the operation's input, the 200 response its
 * output. Failures answer `{"error": {code, message, ...details}}` with the status
 * from httpStatusOf (src-main/api/error-map.ts). Routes come from the operation
 * table (isOperationName), never a hand-written list.
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
    const output = await handle(opName, input, HTTP_ACTOR, workspace ? { workspace } : {});
    sendJson(res, 200, output);
  } catch (err) {
    const error = errorPayloadOf(err);
    sendJson(res, httpStatusOf(error.code), { error });
  }
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
