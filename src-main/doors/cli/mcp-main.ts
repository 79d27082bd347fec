/**
 * The entry of `folio mcp` (bin/folio.mjs picks it for that command): an agent host
 * starts the server and waits for its answer to `initialize`, so this entry parses the
 * command's few flags with node:util and loads neither commander nor the other
 * commands (a tenth of the start: docs/BENCHMARKS.md, "startup"). Anything it does not
 * take as is (--help, a usage error, a flag it does not know) goes to the full
 * command line (main.ts), which answers exactly as for any other command.
 */
import { parseArgs } from 'node:util';
import { exitOnBrokenPipe } from './broken-pipe.ts';
import { Exit } from './cli-io.ts';
import { REVIEW_POLICIES, serveMcp, type McpFlags } from './mcp-serve.ts';

/** The flags of `folio mcp ARGS`, or null when they are not plainly valid. */
export function quickMcpFlags(argv: string[]): McpFlags | null {
  if (argv[0] !== 'mcp') return null;
  try {
    const { values, positionals } = parseArgs({
      args: argv.slice(1),
      options: {
        root: { type: 'string' },
        allow: { type: 'string', multiple: true },
        'read-only': { type: 'string', multiple: true },
        deny: { type: 'string', multiple: true },
        review: { type: 'string' },
      },
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length > 0) return null;
    if (values.review !== undefined && !REVIEW_POLICIES.has(values.review)) return null;
    return {
      root: values.root ?? '.',
      ...(values.allow ? { allow: values.allow } : {}),
      ...(values['read-only'] ? { readOnly: values['read-only'] } : {}),
      ...(values.deny ? { deny: values.deny } : {}),
      ...(values.review ? { review: values.review as McpFlags['review'] & string } : {}),
    };
  } catch {
    return null; // an unknown flag or a missing value: the full parser says what is wrong
  }
}

export async function main(argv: string[]): Promise<number> {
  const flags = quickMcpFlags(argv);
  if (!flags) return (await import('./main.ts')).main(argv);
  exitOnBrokenPipe(process.stdout);
  exitOnBrokenPipe(process.stderr);
  try {
    await serveMcp(flags, { stdout: process.stdout, stderr: process.stderr });
    return 0;
  } catch (err) {
    if (err instanceof Exit) return err.status;
    throw err;
  }
}
