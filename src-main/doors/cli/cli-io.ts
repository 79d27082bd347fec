/**
 * What every CLI command shares: the streams it writes to, the typed way to end
 * with an exit status, and the one error printer. Its own module so commands never
 * import main.ts (main imports the commands through commands.ts, one way).
 */
import { EXIT_ERROR } from '../../api/error-map.ts';
import { errorPayloadOf } from '../../api/error-payload.ts';

export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Thrown by commands to end with a given exit status after printing. */
export class Exit extends Error {
  constructor(readonly status: number) {
    super(`exit ${status}`);
  }
}

export function printError(err: unknown, json: boolean, io: CliIO): number {
  const error = errorPayloadOf(err);
  if (json) io.stdout.write(JSON.stringify({ error }) + '\n');
  else io.stderr.write(`folio: ${error.code === 'internal' ? 'internal error' : error.code}: ${error.message}\n`);
  return EXIT_ERROR;
}
