/** `folio list DIR [--depth N] [--glob G] [--max N] [--json]`: the files and directories under DIR (the list operation). */
import { InvalidArgumentError, type Command } from 'commander';
import { handle, type OpOutput } from '../../api/quick-handle.ts';
import { bytesHuman, count } from './format.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';

const HUMAN = { kind: 'human', name: 'cli' } as const;

const int = (flag: string) => (v: string) => {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`${flag} takes a whole number, got "${v}"`);
  return Number(v);
};

/** One line per entry: kind, size, lines (or -), path; directories end with '/'. */
export function formatList(r: OpOutput<'list'>): string {
  const rows = r.entries.map((e) =>
    e.kind === 'directory' ? ['dir', '-', '-', `${e.path}/`] : [e.kind, bytesHuman(e.size), e.lines === null ? '-' : count(e.lines), e.path],
  );
  const widths = [0, 1, 2].map((i) => Math.max(0, ...rows.map((row) => row[i]!.length)));
  const lines = rows.map((row) => row.map((c, i) => (i === 1 || i === 2 ? c.padStart(widths[i]!) : i === 0 ? c.padEnd(widths[0]!) : c)).join('  '));
  const tail = r.truncated
    ? `-- ${count(r.entries.length)} entries shown (cap reached; raise --max or narrow --glob)`
    : `-- ${count(r.entries.length)} entries`;
  return [...lines, tail].join('\n') + '\n';
}

export function registerList(program: Command, io: CliIO): void {
  program
    .command('list')
    .description('The files and directories under DIR: kind (text, binary, directory), size, lines when already indexed; .gitignore honoured.')
    .argument('[dir]', 'directory to list', '.')
    .option('--depth <n>', 'how deep (1: the directory itself; default 3)', int('--depth'))
    .option('--glob <glob>', 'only entries whose path (relative to DIR) matches, e.g. "**/*.md"')
    .option('--max <n>', 'most entries (default 1000)', int('--max'))
    .option('--json', 'print one JSON object')
    .action(async (dir: string, f: { depth?: number; glob?: string; max?: number; json?: boolean }) => {
      try {
        const r = await handle(
          'list',
          {
            path: dir,
            ...(f.depth !== undefined ? { depth: f.depth } : {}),
            ...(f.glob !== undefined ? { glob: f.glob } : {}),
            ...(f.max !== undefined ? { max: f.max } : {}),
          },
          HUMAN,
        );
        io.stdout.write(f.json ? JSON.stringify(r) + '\n' : formatList(r));
      } catch (err) {
        throw new Exit(printError(err, Boolean(f.json), io));
      }
    });
}
