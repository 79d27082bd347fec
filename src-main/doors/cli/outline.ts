/**
 * `folio outline FILE [--max-level N] [--json]`: the headings of a markdown file, or
 * a log's lines per level per time bucket (its outline for an agent, too).
 * Human output: one line per heading, indented by level, with its line range and
 * the start of its section hash.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { handle, type OpOutput } from '../../api/quick-handle.ts';
import { count } from './format.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';

const HUMAN = { kind: 'human', name: 'cli' } as const;

/** A log's outline: its span, then one row per bucket (its start and counts per level). */
function formatLog(r: OpOutput<'outline'>, log: NonNullable<OpOutput<'outline'>['log']>): string {
  const rows = [`${log.format} log, ${log.first_time} .. ${log.last_time}, ${count(log.lines)} lines; ${log.levels.join(' / ')} per bucket:`];
  for (const b of log.buckets) rows.push(`  ${b.time}  ${b.counts.join(' / ')}`);
  if (log.out_of_order_at_line !== null) rows.push(`stamps go back in time at line ${count(log.out_of_order_at_line)}`);
  rows.push(`version ${r.version.etag}`);
  return rows.join('\n') + '\n';
}

function formatOutline(r: OpOutput<'outline'>): string {
  if (r.log) return formatLog(r, r.log);
  const fm = r.front_matter;
  const top = fm ? [`${fm.section} (${fm.kind})  (lines ${count(fm.line)}-${count(fm.end_line)}, sha256 ${fm.sha256.slice(0, 12)})`] : [];
  const rows = top.concat(
    r.headings.map(
      (h) => `${'  '.repeat(h.level - 1)}${'#'.repeat(h.level)} ${h.text}  (lines ${count(h.line)}-${count(h.end_line)}, sha256 ${h.sha256.slice(0, 12)})`,
    ),
  );
  rows.push(`${r.headings.length} heading(s), ${count(r.total_lines)} lines, version ${r.version.etag}`);
  return rows.join('\n') + '\n';
}

export function registerOutline(program: Command, io: CliIO): void {
  program
    .command('outline')
    .description(
      'The headings of a markdown FILE with their line ranges and section hashes (paths for read --section); of a log, its lines per level per time bucket.',
    )
    .argument('<file>', 'markdown file')
    .option('--max-level <n>', 'only headings up to this level (1-6)', (v: string) => {
      if (!/^[1-6]$/.test(v)) throw new InvalidArgumentError(`--max-level takes 1 to 6, got "${v}"`);
      return Number(v);
    })
    .option('--json', 'print the response as one JSON object')
    .action(async (file: string, f: { maxLevel?: number; json?: boolean }) => {
      try {
        const r = await handle('outline', { path: file, ...(f.maxLevel !== undefined ? { max_level: f.maxLevel } : {}) }, HUMAN);
        io.stdout.write(f.json ? JSON.stringify(r) + '\n' : formatOutline(r));
      } catch (err) {
        throw new Exit(printError(err, Boolean(f.json), io));
      }
    });
}
