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

export const HTTP_ACTOR: Actor = { kind: 'human', name: 'browser' };

/** Largest request body accepted; inputs are paths and small edits, never file contents in bulk. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

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

export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > MAX_BODY_BYTES) {
      throw new FolioError('too_large', `request body exceeds ${MAX_BODY_BYTES} bytes`, { maxBytes: MAX_BODY_BYTES });
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new FolioError('invalid_input', `request body is not JSON: ${(err as Error).message}`);
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
