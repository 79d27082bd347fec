/** `folio info FILE [--json]`: what a file is (size, lines, encoding, newlines, validity, binary verdict, index). */
import type { Command } from 'commander';
import { handle, type OpOutput } from '../../api/quick-handle.ts';
import { bytesHuman, count, progressBar } from './format.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';

const HUMAN: { kind: 'human'; name: string } = { kind: 'human', name: 'cli' };

function utf8Line(u: OpOutput<'file_info'>['utf8']): string {
  const plural = (n: number, what: string) => `${count(n)} ${what}${n === 1 ? '' : 's'}`;
  const chars = u.multibyte_chars !== null ? `, ${plural(u.multibyte_chars, 'multi-byte character')}` : '';
  if (u.valid) return `valid${chars}`;
  const bad = u.invalid_sequences !== null ? `${plural(u.invalid_sequences, 'invalid sequence')}, the first ` : 'invalid ';
  return `${bad}at byte ${count(u.first_invalid_offset ?? 0)}${chars}`;
}

export function formatInfo(info: OpOutput<'file_info'>): string {
  const yes = (b: boolean) => (b ? 'yes' : 'no');
  const rows: [string, string][] = [
    ['path', info.path],
    ['size', `${bytesHuman(info.size)} (${count(info.size)} bytes)`],
    ['lines', `${count(info.lines)} (${count(info.newlines)} newlines)`],
    ['encoding', info.encoding + (info.bom ? ' with BOM' : '')],
    [
      'newline style',
      `${info.newline_style} (${count(info.newline_counts.lf)} LF, ${count(info.newline_counts.crlf)} CRLF, ${count(info.newline_counts.cr)} lone CR)`,
    ],
    ['final newline', yes(info.final_newline)],
    ['utf-8', utf8Line(info.utf8)],
    ['binary', info.binary.is_binary ? `yes: ${info.binary.type ?? 'unknown type'} (${info.binary.reason})` : `no (${info.binary.reason})`],
    [
      'index',
      `${bytesHuman(info.index.memory_bytes)} in memory, ${count(info.index.blocks)} blocks, ` +
        (info.index.from_cache
          ? `loaded from ${info.backend ? 'the sidecar' : 'cache'} in ${info.index.build_ms.toFixed(1)} ms`
          : `built in ${info.index.build_ms.toFixed(1)} ms`),
    ],
    ['version', info.version.etag],
    ...(info.backend
      ? [['backend', `${info.backend.scheme}, version ${info.backend.version}, index from ${info.backend.index_from}`] as [string, string]]
      : []),
  ];
  const w = Math.max(...rows.map(([k]) => k.length)) + 1;
  return rows.map(([k, v]) => `${(k + ':').padEnd(w)} ${v}`).join('\n') + '\n';
}

export function registerInfo(program: Command, io: CliIO): void {
  program
    .command('info')
    .description('Size, lines, encoding, newline style, BOM, final newline, UTF-8 validity, binary verdict and index figures of FILE.')
    .argument('<file>', 'file to describe')
    .option('--json', 'print one JSON object')
    .action(async (file: string, opts: { json?: boolean }) => {
      const bar = opts.json ? undefined : progressBar(io.stderr, 'indexing');
      try {
        const info = await handle('file_info', { path: file }, HUMAN, {
          onProgress: (p) => bar?.update(p.bytesDone, p.totalBytes),
        });
        bar?.clear();
        io.stdout.write(opts.json ? JSON.stringify(info) + '\n' : formatInfo(info));
      } catch (err) {
        bar?.clear();
        throw new Exit(printError(err, Boolean(opts.json), io));
      }
    });
}
