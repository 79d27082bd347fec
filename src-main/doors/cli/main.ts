/**
 * The CLI door: parses flags (commander), calls the api, formats. Conventions for
 * every command: human output by default; --json prints exactly one JSON object on
 * stdout; a typed error prints {"error": {...}} (with --json) or one line on
 * stderr and exits 1; a usage error exits 2; success exits 0.
 */
import { Command, CommanderError } from 'commander';
import { EXIT_ERROR, EXIT_USAGE } from '../../api/error-map.ts';
import { errorPayloadOf } from '../../api/error-payload.ts';
import { registerInfo } from './info.ts';
import { registerList } from './list.ts';
import { registerMcp } from './mcp.ts';
import { registerOpen } from './open.ts';
import { registerOutline } from './outline.ts';
import { registerRead } from './read.ts';
import { registerSearch } from './search.ts';
import { registerUpsert } from './upsert.ts';
import { registerEdit } from './edit.ts';
import { registerServe } from './serve.ts';
import { registerReview } from './review.ts';
import { registerFileOps } from './file-ops.ts';
import { exitOnBrokenPipe } from './broken-pipe.ts';

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

export function buildProgram(io: CliIO): Command {
  const program = new Command('folio')
    .description('Partial reads and version-checked partial upserts of any file, for agents and the people who review them.')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .showSuggestionAfterError();
  registerInfo(program, io);
  registerMcp(program, io);
  registerRead(program, io);
  registerSearch(program, io);
  registerList(program, io);
  registerOutline(program, io);
  registerUpsert(program, io);
  registerEdit(program, io);
  registerServe(program, io);
  registerOpen(program, io);
  registerReview(program, io);
  registerFileOps(program, io);
  return program;
}

export async function main(argv: string[], io: CliIO = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  if (io.stdout === process.stdout) exitOnBrokenPipe(process.stdout);
  if (io.stderr === process.stderr) exitOnBrokenPipe(process.stderr);
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof Exit) return err.status;
    if (err instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return err.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    return printError(err, argv.includes('--json'), io);
  }
}
