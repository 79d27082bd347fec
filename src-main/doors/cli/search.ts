/**
 * `folio search FILE REGEX [--max N] [-i] [--count] [--lines A-B] [--start-byte N] [--json]`
 * `folio search DIR REGEX [--glob G] [-C N] [--max N] [-i] [--count] [--cursor C] [--json]`: every file under DIR
 * (search_tree), printed like rg: path:line:text, context lines as path-line-text.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { handle, type OpOutput } from '../../api/quick-handle.ts';
import type { SearchInput } from '../../api/schemas.ts';
import { isDirectoryPath } from '../../api/tree-wire.ts';
import { posix } from 'node:path';
import { count, progressBar } from './format.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';

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

/** A match path as the person named the directory: `folio search src X` prints src/a.ts, `folio search . X` prints a.ts (like rg). */
function shownPath(dir: string, rel: string): string {
  const d = dir.replace(/\/+$/, '');
  return d === '.' || d === '' ? rel : posix.join(d, rel);
}

export function formatTreeSearch(r: OpOutput<'search_tree'>, dir: string, countOnly: boolean): string {
  if (countOnly) return r.files.map((f) => `${shownPath(dir, f.path)}:${f.count}\n`).join('');
  const out: string[] = [];
  for (const m of r.matches) {
    const p = shownPath(dir, m.path);
    const before = m.context_before ?? [];
    before.forEach((t, i) => out.push(`${p}-${m.line - before.length + i}-${t}`));
    out.push(`${p}:${m.line}:${m.text}${m.text_truncated ? ' [...]' : ''}`);
    (m.context_after ?? []).forEach((t, i) => out.push(`${p}-${m.line + 1 + i}-${t}`));
    if (m.context_before || m.context_after) out.push('--');
  }
  const files = `${count(r.files.length)} file${r.files.length === 1 ? '' : 's'}`;
  const tail = r.truncated
    ? `-- ${count(r.matches.length)} matching lines shown in ${files} (cap reached); continue with --cursor '${r.next_cursor}'`
    : `-- ${count(r.count)} matching line${r.count === 1 ? '' : 's'} in ${files} (${count(r.files_searched)} searched)`;
  return [...out, tail].join('\n') + '\n';
}

export function registerSearch(program: Command, io: CliIO): void {
  program
    .command('search')
    .description(
      'Regex search of FILE: matching lines with their line numbers (like grep -n), capped, with a cursor to continue. ' +
        'Of a DIR: every file under it like rg (path:line:text; .gitignore honoured, binary files skipped).',
    )
    .argument('<file>', 'file (or directory) to search')
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
    .option('--glob <glob>', 'directory: only files whose path (relative to DIR) matches, e.g. "**/*.ts"')
    .option('-C, --context <n>', 'directory: lines of context around each match', int('--context'))
    .option('--cursor <cursor>', 'directory: continue from a next_cursor')
    .option('--json', 'print the response as one JSON object')
    .action(
      async (
        file: string,
        regex: string,
        f: {
          max?: number;
          ignoreCase?: boolean;
          count?: boolean;
          lines?: { start: number; end: number };
          startByte?: number;
          json?: boolean;
          glob?: string;
          context?: number;
          cursor?: string;
        },
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
        const tree = {
          ...(f.glob !== undefined ? { glob: f.glob } : {}),
          ...(f.context !== undefined ? { context: f.context } : {}),
          ...(f.cursor !== undefined ? { cursor: f.cursor } : {}),
        };
        if (isDirectoryPath(process.cwd(), file)) {
          try {
            const r = await handle('search_tree', { ...input, ...tree }, HUMAN);
            io.stdout.write(f.json ? JSON.stringify(r) + '\n' : formatTreeSearch(r, file, Boolean(f.count)));
          } catch (err) {
            throw new Exit(printError(err, Boolean(f.json), io));
          }
          return;
        }
        Object.assign(input, tree); // refused for a file (invalid_input), not silently dropped
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
