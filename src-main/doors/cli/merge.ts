/**
 * `folio merge FILE… [--from TIME] [--to TIME] [--match REGEX [-i]] [--tag] [--json]`: several logs
 * as one stream in time order (the merge operation's order), written as it is
 * read: the raw lines (as `LC_ALL=C sort -m -s -k1,1` writes ISO-stamped logs),
 * each after its file's name (--tag), or as JSON Lines (--json).
 */
import type { Command } from 'commander';
import { Exit, printError, type CliIO } from './cli-io.ts';

interface MergeFlags {
  from?: string;
  to?: string;
  match?: string;
  ignoreCase?: boolean;
  tag?: boolean;
  json?: boolean;
}

export function registerMerge(program: Command, io: CliIO): void {
  program
    .command('merge')
    .description('Several logs as one, in time order (an unstamped line stays with the line above; equal times keep file order).')
    .argument('<files...>', "log files, in the order that breaks ties; a directory or a quoted glob ('logs/*.log') gives its stamped files by name")
    .option('--from <time>', 'start at the first line stamped at or after TIME (bisection in each file)')
    .option('--to <time>', 'end after the last line stamped at or before TIME')
    .option('--match <regex>', 'only the lines this JavaScript regex matches (as grep -E after the merge)')
    .option('-i, --ignore-case', 'match ignoring case')
    .option('--tag', 'put each line after its file name and a colon')
    .option('--json', 'one JSON object per line: file, path, line, time, text')
    .action(async (files: string[], f: MergeFlags) => {
      try {
        const { mergeStream } = await import('../../api/merge-wire.ts');
        // Wait for the reader when the pipe is full: the merge goes no faster than its reader, in bounded memory.
        const write = (chunk: Buffer) => (io.stdout.write(chunk) ? undefined : new Promise<void>((resolve) => io.stdout.once('drain', resolve)));
        await mergeStream(
          { paths: files, from: f.from, to: f.to, match: f.match, match_flags: f.ignoreCase ? 'i' : undefined },
          f.json ? 'json' : f.tag ? 'tag' : 'raw',
          write,
        );
      } catch (err) {
        throw new Exit(printError(err, Boolean(f.json), io));
      }
    });
}
