/**
 * The one reader of request bodies on the HTTP door, and its limit. A body over
 * MAX_BODY_BYTES is `too_large` (413) on every route: refused from its
 * Content-Length before a byte is read, or, when it comes chunked, as soon as the
 * bytes read pass the limit (nothing more is kept).
 */
import type { IncomingMessage } from 'node:http';
import { FolioError } from '../../api/handle.ts';

/** Largest request body accepted; inputs are paths and small edits, never file contents in bulk. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export function bodyTooLargeError(): FolioError {
  return new FolioError('too_large', `request body exceeds ${MAX_BODY_BYTES} bytes`, { maxBytes: MAX_BODY_BYTES });
}

/** True when the request announces a body over the limit. */
export function announcesTooLargeBody(req: IncomingMessage): boolean {
  const length = Number(req.headers['content-length'] ?? 0);
  return Number.isFinite(length) && length > MAX_BODY_BYTES;
}

/** The body as JSON ({} when empty); `too_large` past the limit, `invalid_input` when it is not JSON. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  if (announcesTooLargeBody(req)) throw bodyTooLargeError();
  const text = (await bodyBytesOf(req)).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new FolioError('invalid_input', `request body is not JSON: ${(err as Error).message}`);
  }
}

/**
 * The body's bytes, up to the limit. Past it the reader stops keeping them and
 * rejects, but does not destroy the request: the 413 must still reach a client
 * that is busy sending (the server discards the rest once the answer is out).
 */
function bodyBytesOf(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveBody, rejectBody) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > MAX_BODY_BYTES) {
        stop();
        rejectBody(bodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      const body = Buffer.concat(chunks);
      stop();
      resolveBody(body);
    };
    const onError = (err: Error) => {
      stop();
      rejectBody(err);
    };
    const stop = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      chunks.length = 0;
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}
