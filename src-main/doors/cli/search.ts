/** `folio search FILE REGEX [--max N] [-i] [--count] [--lines A-B] [--start-byte N] [--json]` */
import { InvalidArgumentError, type Command } from 'commander';
import { handle, type OpOutput } from '../../api/handle.ts';
import type { SearchInput } from '../../api/schemas.ts';
import { count, progressBar } from './format.ts';
import { Exit, printError, type CliIO } from './main.ts';

const HUMAN = { kind: 'human', name: 'cli' } as const;

const int = (flag: string) => (v: string) => {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`${flag} takes a whole number, got "${v}"`);
  return Number(v);
};

function formatSearch(r: OpOutput<'search'>, countOnly: boolean): string {
  if (countOnly) return `${r.count}\n`;
  const out = r.matches.map((m) => `${m.line}:${m.text}${m.text_truncated ? ' [...]' : ''}`);
  const tail = r.truncated
    ? `-- ${count(r.matches.length)} matching lines shown (cap reached); continue with --start-byte ${r.next_start_byte}`
    : `-- ${count(r.count)} matching line${r.count === 1 ? '' : 's'}`;
  return [...out, tail].join('\n') + '\n';
}

export function registerSearch(program: Command, io: CliIO): void {
  program
    .command('search')
    .description('Regex search of FILE: matching lines with their line numbers (like grep -n), capped, with a cursor to continue.')
    .argument('<file>', 'file to search')
    .argument('<regex>', 'JavaScript regular expression, matched against each line')
    .option('--max <n>', 'most matching lines to return (default 100, at most 10000)', int('--max'))
    .option('-i, --ignore-case', 'case-insensitive')
    .option('--count', 'only count matching lines (like grep -c)')
    .option('--lines <a-b>', 'search only lines A to B', (v: string) => {
      const m = /^(\d+)-(\d+)$/.exec(v);
      if (!m) throw new InvalidArgumentError(`--lines takes A-B, got "${v}"`);
      return { start: Number(m[1]), end: Number(m[2]) };
    })
    .option('--start-byte <n>', 'start at this byte (a next_start_byte cursor)', int('--start-byte'))
    .option('--json', 'print the response as one JSON object')
    .action(
      async (
        file: string,
        regex: string,
        f: { max?: number; ignoreCase?: boolean; count?: boolean; lines?: { start: number; end: number }; startByte?: number; json?: boolean },
      ) => {
        const input: SearchInput = {
          path: file,
          pattern: regex,
          ...(f.ignoreCase ? { flags: 'i' } : {}),
          ...(f.max !== undefined ? { max: f.max } : {}),
          ...(f.count ? { count_only: true } : {}),
          ...(f.lines ? { start_line: f.lines.start, end_line: f.lines.end } : {}),
          ...(f.startByte !== undefined ? { start_byte: f.startByte } : {}),
        };
        const bar = f.json ? undefined : progressBar(io.stderr, 'searching');
        try {
          const r = await handle('search', input, HUMAN, { onProgress: (p) => bar?.update(p.bytesDone, p.totalBytes) });
          bar?.clear();
          io.stdout.write(f.json ? JSON.stringify(r) + '\n' : formatSearch(r, Boolean(f.count)));
        } catch (err) {
          bar?.clear();
          throw new Exit(printError(err, Boolean(f.json), io));
        }
      },
    );
}
