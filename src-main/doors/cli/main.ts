/**
 * The CLI door: parses flags (commander), calls the api, formats. Conventions for
 * every command: human output by default; --json prints exactly one JSON object on
 * stdout; a typed error prints {"error": {...}} (with --json) or one line on
 * stderr and exits 1; a usage error exits 2; success exits 0.
 */
import { Command, CommanderError } from 'commander';
import { EXIT_USAGE } from '../../api/error-map.ts';
import { preferQuickStart } from '../../api/process-life.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';
import { COMMANDS } from './commands.ts';
import { exitOnBrokenPipe } from './broken-pipe.ts';

export function buildProgram(io: CliIO): Command {
  const program = new Command('folio')
    .description('Partial reads and version-checked partial upserts of any file, for agents and the people who review them.')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .showSuggestionAfterError();
  for (const register of COMMANDS) register(program, io);
  return program;
}

/** The commands that run until stopped; every other one ends in a moment (engine/process-life.ts). */
const LONG_LIVED = new Set(['serve', 'mcp']);

export async function main(argv: string[], io: CliIO = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  if (!LONG_LIVED.has(argv[0] ?? '')) preferQuickStart();
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
