/**
 * What every door sends for a failure: `{code, message, ...details}`. A FolioError
 * gives its code and details; anything else thrown is a bug on our side, sent as
 * code `internal` with its message (never its stack). Doors wrap it as their wire
 * needs (`{error: …}` over HTTP, MCP and CLI --json; BridgeResult over IPC) and map
 * the code with error-map.ts.
 */
import { isFolioError } from '../engine/errors.ts';

/** For doors that answer with a typed error of their own (doors/mcp/reply.ts), without the operation table. */
export { FolioError } from '../engine/errors.ts';
import type { ErrorPayload } from './bridge.ts';

export function errorPayloadOf(err: unknown): ErrorPayload {
  if (isFolioError(err)) return err.toJSON();
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}
