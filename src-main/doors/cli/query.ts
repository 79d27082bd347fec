/**
 * `folio query FILE… SQL [--json] [--limit N]`: one SQL SELECT over the table
 * `log` of the files (the query operation). Prints a table as
 * `sqlite3 -header -separator $'\t'` does, a tab, a newline and a backslash in a
 * value written \t, \n and \\ (a row may hold a stack trace) and NULL as nothing;
 * or, with --json, one JSON object per row (JSON Lines). A capped answer says so
 * on stderr, so stdout stays the table.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { FolioError, handle } from '../../api/quick-handle.ts';
import { count } from './format.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';

const HUMAN = { kind: 'human', name: 'cli' } as const;

const cellText = (v: string | number | null) =>
  v === null ? '' : String(v).replace(/[\\\t\n\r]/g, (c) => (c === '\t' ? '\\t' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\\\'));

export function registerQuery(program: Command, io: CliIO): void {
  program
    .command('query')
    .description('One SQL SELECT (SQLite) over the lines of log files: table log, columns file, line, time, level, message, raw, fields and the keys found.')
    .argument('<file_and_sql...>', 'log files, then the SQL, e.g. folio query app.log "SELECT level, count(*) FROM log GROUP BY level"')
    .option('--limit <n>', 'at most this many rows (default 1000)', (v: string) => {
      if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError(`--limit takes a positive whole number, got "${v}"`);
      return Number(v);
    })
    .option('--json', 'one JSON object per row (JSON Lines)')
    .action(async (args: string[], f: { limit?: number; json?: boolean }) => {
      try {
        if (args.length < 2) throw new FolioError('invalid_input', 'give at least one file, then the SQL', { args });
        const sql = args[args.length - 1]!;
        const r = await handle('query', { paths: args.slice(0, -1), sql, ...(f.limit !== undefined ? { limit: f.limit } : {}) }, HUMAN);
        const out: string[] = [];
        if (f.json) {
          for (const row of r.rows) out.push(JSON.stringify(Object.fromEntries(r.columns.map((c, i) => [c, row[i]]))));
        } else {
          out.push(r.columns.map(cellText).join('\t'));
          for (const row of r.rows) out.push(row.map(cellText).join('\t'));
        }
        io.stdout.write(out.length ? out.join('\n') + '\n' : '');
        if (r.capped) io.stderr.write(`capped at ${count(r.rows.length)} rows: more matched (--limit, or LIMIT / GROUP BY in the SQL)\n`);
      } catch (err) {
        throw new Exit(printError(err, Boolean(f.json), io));
      }
    });
}
