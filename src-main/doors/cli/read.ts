/**
 * `folio read FILE [--lines 10-20,40-50 | --bytes START[+MAX] | --range START-END |
 *  --page N | --head N | --tail N | --full | --section "A > B" | --json-path P [--jsonl-line N] |
 *  --tokens A-B | --page-tokens N [--page K]] [--tokenizer NAME] [--hashlines] [--json]`
 * Human output: a short header (path, range, total), then the content.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { handle, type OpOutput } from '../../api/quick-handle.ts';
import type { ReadInput } from '../../api/schemas.ts';
import { bytesHuman, count } from './format.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';

const HUMAN = { kind: 'human', name: 'cli' } as const;

function int(flag: string, allowNegative = false) {
  return (v: string): number => {
    if (!/^-?\d+$/.test(v) || (!allowNegative && v.startsWith('-'))) throw new InvalidArgumentError(`${flag} takes a whole number, got "${v}"`);
    return Number(v);
  };
}

/** "10-20,40-50" or "7" -> ranges */
export function parseLineRanges(v: string): { start: number; end: number }[] {
  return v.split(',').map((part) => {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) throw new InvalidArgumentError(`--lines takes ranges like 10-20,40-50, got "${part}"`);
    return { start: Number(m[1]), end: Number(m[2] ?? m[1]) };
  });
}

/** "START" or "START+MAX" */
function parseBytes(v: string): { start_byte: number; max_bytes?: number } {
  const m = /^(\d+)(?:\+(\d+))?$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError(`--bytes takes START or START+MAX, got "${v}"`);
  return m[2] === undefined ? { start_byte: Number(m[1]) } : { start_byte: Number(m[1]), max_bytes: Number(m[2]) };
}

/** "START-END" (end exclusive); negatives are passed on so the engine names them. */
function parseRange(v: string): { start_byte: number; end_byte: number } {
  const m = /^(-?\d+)-(-?\d+)$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError(`--range takes START-END (bytes, end exclusive), got "${v}"`);
  return { start_byte: Number(m[1]), end_byte: Number(m[2]) };
}

export function formatReadHeader(r: OpOutput<'read'>): string {
  const lines =
    r.ranges && r.ranges.length > 1
      ? r.ranges.map((x) => `${count(x.start)}-${count(x.end)}`).join(', ')
      : r.start_line === null
        ? 'none'
        : `${count(r.start_line)}-${count(r.end_line ?? r.start_line)}`;
  const total =
    r.total_lines === null
      ? `indexing ${((100 * (r.indexing?.bytes_done ?? 0)) / Math.max(1, r.indexing?.total_bytes ?? 1)).toFixed(0)}%`
      : `${count(r.total_lines)} lines`;
  const rows = [
    '---',
    `path: ${r.path}`,
    `range: lines ${lines} (bytes ${count(r.start_byte)}-${count(r.end_byte)})` +
      (r.page ? `, page ${r.page}${r.next_page ? ` (next: --page ${r.next_page})` : ' (last)'}` : ''),
    `total: ${total}, ${bytesHuman(r.version.size)}`,
    `version: ${r.version.etag}`,
  ];
  // UTF-8 is the rule and goes unsaid; anything else (UTF-16, a detected legacy encoding) is worth a line.
  if (r.encoding !== 'utf-8')
    rows.push(`encoding: ${r.encoding}${r.bom ? ' (BOM)' : ''}${r.encoding_confidence !== undefined ? `, confidence ${r.encoding_confidence}` : ''}`);
  if (r.next_start_byte !== undefined && r.next_start_byte !== null) rows.push(`next: --bytes ${r.next_start_byte}`);
  if (r.line_cut)
    rows.push(`cut: line ${count(r.line_cut.line)} is longer than the window (bytes ${count(r.line_cut.line_start_byte)}-${count(r.line_cut.line_end_byte)})`);
  if (r.invalid_utf8) rows.push(`invalid utf-8: ${r.invalid_utf8.replaced} replaced with U+FFFD, first at byte ${count(r.invalid_utf8.first_offset)}`);
  for (const a of r.adjustments ?? []) rows.push(`adjusted ${a.edge}: ${count(a.from)} -> ${count(a.to)} (${a.reason})`);
  if (r.section) rows.push(`section: ${r.section.path} (lines ${count(r.section.line)}-${count(r.section.end_line)}, sha256 ${r.section.sha256})`);
  if (r.json)
    rows.push(
      `json: ${r.json.matches.length} match(es) of ${r.json.json_path}: ${r.json.matches
        .slice(0, 5)
        .map((m) => m.pointer || '/')
        .join(', ')}${r.json.matches.length > 5 ? ', ...' : ''}`,
    );
  if (r.tokens) {
    const t = r.tokens;
    rows.push(
      `tokens: ${count(t.count)} (${t.tokenizer})` +
        (t.start_token !== undefined
          ? `, file tokens ${count(t.start_token)}-${count(t.end_token ?? t.start_token)} (next: --tokens ${t.end_token}-...)`
          : '') +
        (t.page !== undefined ? `, page ${t.page}${t.next_page ? ` (next: --page ${t.next_page})` : ' (last)'}` : ''),
    );
  }
  for (const n of r.notes) rows.push(`note: ${n}`);
  rows.push('---');
  return rows.join('\n') + '\n';
}

function formatRead(r: OpOutput<'read'>): string {
  let body: string;
  if (r.ranges && r.ranges.length > 1) {
    body = r.ranges.map((x, i) => (i ? `--- lines ${count(x.start)}-${count(x.end)} ---\n` : '') + x.content + (x.content.endsWith('\n') ? '' : '\n')).join('');
  } else {
    body = r.content + (r.content === '' || r.content.endsWith('\n') ? '' : '\n');
  }
  return formatReadHeader(r) + body;
}

interface ReadFlags {
  lines?: { start: number; end: number }[];
  bytes?: { start_byte: number; max_bytes?: number };
  range?: { start_byte: number; end_byte: number };
  page?: number;
  pageChars?: number;
  time?: string;
  limit?: number;
  head?: number;
  tail?: number;
  full?: boolean;
  hashlines?: boolean;
  invalidUtf8?: 'replace' | 'error';
  allowBinary?: boolean;
  encoding?: string;
  section?: string;
  jsonPath?: string;
  jsonlLine?: number;
  tokens?: { token_start: number; token_end: number };
  pageTokens?: number;
  tokenizer?: string;
  json?: boolean;
}

/** "A-B": tokens [A, B), 0-based */
function parseTokens(v: string): { token_start: number; token_end: number } {
  const m = /^(\d+)-(\d+)$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError(`--tokens takes A-B (0-based token offsets, end exclusive), got "${v}"`);
  return { token_start: Number(m[1]), token_end: Number(m[2]) };
}

export function registerRead(program: Command, io: CliIO): void {
  program
    .command('read')
    .description('Read a window of FILE: line ranges, a byte window, exact bytes, a page, head or tail (default: page 1).')
    .argument('<file>', 'file to read')
    .option('--lines <ranges>', 'line ranges, 1-based inclusive: 10-20,40-50', parseLineRanges)
    .option('--bytes <start[+max]>', 'byte window from START (snapped to its line), MAX bytes (default 65536)', parseBytes)
    .option('--range <start-end>', 'exact bytes [START, END), snapped to UTF-8 characters', parseRange)
    .option('--page <n>', 'page N of char-budget pages', int('--page'))
    .option('--page-chars <n>', 'page budget in characters (default 50000)', int('--page-chars'))
    .option('--time <time>', 'a log from the first line stamped at or after TIME (e.g. 2024-05-14T10:00), --limit lines')
    .option('--limit <n>', 'with --time: this many lines (default 100)', int('--limit'))
    .option('--head <n>', 'first N lines', int('--head'))
    .option('--tail <n>', 'last N lines', int('--tail'))
    .option('--full', 'the whole file (at most 8 MiB)')
    .option('--hashlines', 'prefix lines with LINE#HASH| anchors for upserts')
    .option('--invalid-utf8 <policy>', "'replace' (default) or 'error'", (v: string) => {
      if (v !== 'replace' && v !== 'error') throw new InvalidArgumentError(`--invalid-utf8 takes replace or error, got "${v}"`);
      return v;
    })
    .option('--allow-binary', 'read a binary file anyway')
    .option('--encoding <name>', 'decode as this encoding when detection is wrong: utf-8, windows-1252, iso-8859-2, shift_jis …')
    .option('--section <path>', 'markdown: the section under this heading path, e.g. "Install > Linux" (see folio outline)')
    .option('--json-path <path>', 'JSON: values at this JSONPath (RFC 9535: $.a.b, $..c[?@.n > 1]) or JSON Pointer (/a/b)')
    .option('--jsonl-line <n>', 'JSON Lines: with --json-path, the path inside line N', int('--jsonl-line'))
    .option('--tokens <a-b>', 'whole lines covering tokens [A, B) of the file', parseTokens)
    .option('--page-tokens <n>', 'pages of whole lines of at most N tokens (with --page K)', int('--page-tokens'))
    .option('--tokenizer <name>', 'o200k_base (default) or cl100k_base; reports the token count')
    .option('--json', 'print the response as one JSON object')
    .action(async (file: string, f: ReadFlags) => {
      const input: ReadInput = {
        path: file,
        ...(f.lines ? { ranges: f.lines } : {}),
        ...(f.bytes ?? {}),
        ...(f.range ?? {}),
        ...(f.page !== undefined ? { page: f.page } : {}),
        ...(f.pageChars !== undefined ? { page_chars: f.pageChars } : {}),
        ...(f.time !== undefined ? { time: f.time } : {}),
        ...(f.limit !== undefined ? { limit: f.limit } : {}),
        ...(f.head !== undefined ? { head: f.head } : {}),
        ...(f.tail !== undefined ? { tail: f.tail } : {}),
        ...(f.full ? { full: true } : {}),
        ...(f.hashlines ? { hashlines: true } : {}),
        ...(f.invalidUtf8 ? { invalid_utf8: f.invalidUtf8 } : {}),
        ...(f.allowBinary ? { allow_binary: true } : {}),
        ...(f.encoding !== undefined ? { encoding: f.encoding } : {}),
        ...(f.section !== undefined ? { section: f.section } : {}),
        ...(f.jsonPath !== undefined ? { json_path: f.jsonPath } : {}),
        ...(f.jsonlLine !== undefined ? { jsonl_line: f.jsonlLine } : {}),
        ...(f.tokens ?? {}),
        ...(f.pageTokens !== undefined ? { page_tokens: f.pageTokens } : {}),
        // The CLI passes the name on; the api names the known ones in its error.
        ...(f.tokenizer !== undefined ? { tokenizer: f.tokenizer as ReadInput['tokenizer'] } : {}),
      };
      const modes = ['lines', 'bytes', 'range', 'time', 'head', 'tail', 'full', 'section', 'jsonPath', 'tokens', 'pageTokens'].filter(
        (m) => f[m as keyof ReadFlags] !== undefined,
      );
      if (f.page !== undefined && f.pageTokens === undefined) modes.push('page');
      // --head N --tail M together: both ends of the file in one read.
      if (modes.length === 2 && modes.includes('head') && modes.includes('tail')) modes.pop();
      if (modes.length > 1)
        throw new Exit(usage(io, `give one read mode, got --${modes.map((m) => m.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())).join(' and --')}`));
      try {
        const r = await handle('read', input, HUMAN);
        io.stdout.write(f.json ? JSON.stringify(r) + '\n' : formatRead(r));
      } catch (err) {
        throw new Exit(printError(err, Boolean(f.json), io));
      }
    });
}

function usage(io: CliIO, message: string): number {
  io.stderr.write(`folio: usage: ${message}\n`);
  return 2;
}
