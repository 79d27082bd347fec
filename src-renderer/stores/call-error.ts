/** Any failure of a call, as the api's error payload the UI shows. */
import { FolioCallError, type ErrorPayload } from '../transport.ts';

export function errorPayloadOf(err: unknown): ErrorPayload {
  if (err instanceof FolioCallError) return { code: err.code, message: err.message, ...err.details };
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}
