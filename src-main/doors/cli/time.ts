/**
 * `folio time FILE TIME [--json]`: the first line at or after TIME in a log in
 * time order (time_seek). `folio histogram FILE [--buckets N] [--bucket-ms MS]
 * [--json]`: lines per level per time bucket over the whole file (histogram).
 */
import { InvalidArgumentError, type Command } from 'commander';
import { handle, type OpOutput } from '../../api/quick-handle.ts';
import { count } from './format.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';

const HUMAN = { kind: 'human', name: 'cli' } as const;
const LEVELS = ['error', 'warn', 'info', 'debug', 'other'] as const;

function positiveInt(flag: string) {
  return (v: string) => {
    if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError(`${flag} takes a positive whole number, got "${v}"`);
    return Number(v);
  };
}

function formatHistogram(r: OpOutput<'histogram'>): string {
  const rows = r.buckets.map((b, i) => {
    const at = new Date(r.origin_ms + i * r.bucket_ms).toISOString();
    return `${at}  ${LEVELS.map((l) => `${l} ${count(b[l])}`).join('  ')}`;
  });
  rows.push(`${count(r.lines)} lines, ${r.buckets.length} buckets of ${r.bucket_ms / 1000} s, ${r.format} stamps, ${Math.round(r.elapsed_ms)} ms`);
  if (r.order_break) rows.push(`not in time order from line ${count(r.order_break.line)} (${r.order_break.time} after ${r.order_break.time_before})`);
  return rows.join('\n') + '\n';
}

export function registerTime(program: Command, io: CliIO): void {
  program
    .command('time')
    .description('The first line at or after TIME in a log stamped in time order (ISO 8601, syslog, Apache/nginx, epoch).')
    .argument('<file>', 'log file')
    .argument('<time>', 'e.g. 2024-05-01T12:30:00Z, "2024-05-01 12:30", 12:30:05, "May  1 12:30:05"')
    .option('--json', 'print the response as one JSON object')
    .action(async (file: string, time: string, f: { json?: boolean }) => {
      try {
        const r = await handle('time_seek', { path: file, time }, HUMAN);
        io.stdout.write(f.json ? JSON.stringify(r) + '\n' : `line ${count(r.line)} (byte ${count(r.byte_offset)}) at ${r.time}\n`);
      } catch (err) {
        throw new Exit(printError(err, Boolean(f.json), io));
      }
    });
  program
    .command('histogram')
    .description('Lines per level (error, warn, info, debug, other) per time bucket over the whole log.')
    .argument('<file>', 'log file')
    .option('--buckets <n>', 'at most this many buckets (default 120)', positiveInt('--buckets'))
    .option('--bucket-ms <ms>', 'bucket width in milliseconds', positiveInt('--bucket-ms'))
    .option('--json', 'print the response as one JSON object')
    .action(async (file: string, f: { buckets?: number; bucketMs?: number; json?: boolean }) => {
      try {
        const r = await handle(
          'histogram',
          { path: file, ...(f.buckets !== undefined ? { max_buckets: f.buckets } : {}), ...(f.bucketMs !== undefined ? { bucket_ms: f.bucketMs } : {}) },
          HUMAN,
        );
        io.stdout.write(f.json ? JSON.stringify(r) + '\n' : formatHistogram(r));
      } catch (err) {
        throw new Exit(printError(err, Boolean(f.json), io));
      }
    });
}
