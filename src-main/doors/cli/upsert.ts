/**
 * `folio upsert FILE (--insert-at L | --replace A-B | --delete A-B | --append) [--bytes]
 *  (--content TEXT | --content-file F | --content-stdin)
 *  (--if-match ETAG | --sha256 H | --anchors 12#a3f,13#9c1 | --range-sha256 H | --if-not-modified-since T)
 *  [--dry-run] [--no-normalize-newlines] [--root DIR] [--json]`
 * or addressed: `--section PATH (--section-replace [--body-only] | --section-insert | --section-append)
 *  --section-sha256 H` (markdown), `--json-path P (--json-set VALUE | --json-insert VALUE [--index I] |
 *  --json-delete) [--jsonl-line N]` (JSON; VALUE is JSON text).
 * A human at the keyboard: applies directly (no review queue), journaled in the
 * workspace at --root (default: the current directory, as `folio review`), so
 * `folio review undo FILE` takes it back. Line ranges are inclusive; with --bytes,
 * ranges are [A, B) like `folio read --range`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { FolioError, handle, type OpOutput } from '../../api/quick-handle.ts';
import type { UpsertInput } from '../../api/schemas.ts';
import { count } from './format.ts';
import { Exit, printError, type CliIO } from './cli-io.ts';

const HUMAN = { kind: 'human', name: 'cli' } as const;

const int = (flag: string) => (v: string) => {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`${flag} takes a whole number, got "${v}"`);
  return Number(v);
};
const span = (flag: string) => (v: string) => {
  const m = /^(\d+)-(\d+)$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError(`${flag} takes A-B, got "${v}"`);
  return { start: Number(m[1]), end: Number(m[2]) };
};

interface Flags {
  insertAt?: number;
  replace?: { start: number; end: number };
  delete?: { start: number; end: number };
  append?: boolean;
  bytes?: boolean;
  content?: string;
  contentFile?: string;
  contentStdin?: boolean;
  ifMatch?: string;
  sha256?: string;
  anchors?: string;
  rangeSha256?: string;
  ifNotModifiedSince?: string;
  dryRun?: boolean;
  normalizeNewlines?: boolean;
  json?: boolean;
  section?: string;
  sectionReplace?: boolean;
  sectionInsert?: boolean;
  sectionAppend?: boolean;
  bodyOnly?: boolean;
  sectionSha256?: string;
  jsonPath?: string;
  jsonSet?: unknown;
  jsonInsert?: unknown;
  jsonDelete?: boolean;
  index?: number;
  jsonlLine?: number;
  root?: string;
  ifNoneMatch?: string;
  wholeFile?: boolean;
}

const jsonValue =
  (flag: string) =>
  (v: string): unknown => {
    try {
      return JSON.parse(v) as unknown;
    } catch {
      throw new InvalidArgumentError(`${flag} takes a JSON value (quote strings: '"text"'), got ${v}`);
    }
  };

/** The target the flags name, or a usage message. */
function targetOf(f: Flags): UpsertInput['target'] | string {
  const units = f.bytes ? 'bytes' : 'lines';
  const positions = [f.insertAt !== undefined, f.replace, f.delete, f.append, f.wholeFile].filter(Boolean).length;
  // Creating a file writes its whole text.
  if (positions === 0 && f.ifNoneMatch !== undefined && f.section === undefined && f.jsonPath === undefined) return { whole_file: true };
  const sectionOps = [f.sectionReplace, f.sectionInsert, f.sectionAppend].filter(Boolean).length;
  const jsonOps = [f.jsonSet !== undefined, f.jsonInsert !== undefined, f.jsonDelete].filter(Boolean).length;
  if (positions + (f.section !== undefined ? 1 : 0) + (f.jsonPath !== undefined ? 1 : 0) !== 1) {
    return 'give exactly one of --insert-at, --replace, --delete, --append, --whole-file, --section, --json-path';
  }
  if (f.section !== undefined) {
    if (sectionOps !== 1) return 'with --section give one of --section-replace, --section-insert, --section-append';
    const position = f.sectionReplace ? 'replace' : f.sectionInsert ? 'insert' : 'append';
    return { section: { path: f.section, position, ...(f.bodyOnly ? { include_heading: false } : {}) } };
  }
  if (f.jsonPath !== undefined) {
    if (jsonOps !== 1) return 'with --json-path give one of --json-set, --json-insert, --json-delete';
    const line = f.jsonlLine !== undefined ? { jsonl_line: f.jsonlLine } : {};
    if (f.jsonDelete) return { json: { path: f.jsonPath, op: 'delete', ...line } };
    if (f.jsonInsert !== undefined)
      return { json: { path: f.jsonPath, op: 'insert', value: f.jsonInsert, ...(f.index !== undefined ? { index: f.index } : {}), ...line } };
    return { json: { path: f.jsonPath, op: 'set', value: f.jsonSet, ...line } };
  }
  if (f.wholeFile) return { whole_file: true };
  return f.insertAt !== undefined
    ? { insert: { at: f.insertAt, units } }
    : f.replace
      ? { replace: { ...f.replace, ...(f.bytes ? { units } : {}) } }
      : f.delete
        ? { delete: { ...f.delete, ...(f.bytes ? { units } : {}) } }
        : { append: { at_end: true, ...(f.bytes ? { units } : {}) } };
}

function formatUpsert(r: OpOutput<'upsert'>): string {
  const a = r.affected;
  const verb = r.applied ? 'applied' : 'dry run (nothing written)';
  const where = `lines ${count(r.range_after.start_line)}-${count(r.range_after.end_line)}`;
  const lines = [
    r.preview.trimEnd(),
    `${verb}: ${where}; ${a.lines.removed} line(s) removed, ${a.lines.inserted} inserted (${a.bytes.removed} -> ${a.bytes.inserted} bytes)`,
    `version: ${r.version_before.etag}${r.version_after ? ` -> ${r.version_after.etag}` : ''}`,
    ...r.notes.map((n) => `note: ${n}`),
  ];
  return lines.join('\n') + '\n';
}

/**
 * Largest --content-stdin accepted. The content becomes one JS string (V8 caps
 * those near 512 Mi characters) and is encoded again for the write, so without a
 * limit 1 GiB of input grew to 2 GB of memory before failing as `internal`.
 */
export const MAX_STDIN_BYTES = 256 * 1024 * 1024;

/** Standard input as text; `too_large` as soon as it passes MAX_STDIN_BYTES (leaving the for-await stops reading it). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const c of process.stdin) {
    total += (c as Buffer).length;
    if (total > MAX_STDIN_BYTES) {
      throw new FolioError('too_large', `standard input exceeds ${MAX_STDIN_BYTES} bytes, the most --content-stdin takes`, { maxBytes: MAX_STDIN_BYTES });
    }
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function registerUpsert(program: Command, io: CliIO): void {
  program
    .command('upsert')
    .description('Insert, replace, delete or append text in FILE, atomically, only if it is still the version you name.')
    .argument('<file>', 'file to edit')
    .option('--insert-at <line>', 'insert before this line (total+1 appends after the last line)', int('--insert-at'))
    .option('--replace <a-b>', 'replace lines A to B (inclusive)', span('--replace'))
    .option('--delete <a-b>', 'delete lines A to B (inclusive)', span('--delete'))
    .option('--append', 'append lines at the end of the file (O_APPEND; with --bytes the text exactly as given)')
    .option('--whole-file', 'replace the whole text (with --if-match), or write a new file (with --if-none-match)')
    .option('--bytes', 'positions are bytes: --insert-at P, --replace/--delete A-B as [A, B)')
    .option('--content <text>', 'the new text')
    .option('--content-file <file>', 'read the new text from a file')
    .option('--content-stdin', 'read the new text from standard input')
    .option('--if-match <etag>', 'precondition: the etag of your read')
    .option('--if-none-match <star>', "create FILE: only if nothing is at the path ('*'); missing folders are created")
    .option('--sha256 <hash>', 'precondition: SHA-256 of the whole file')
    .option('--anchors <list>', 'precondition: hashline anchors, e.g. 12#a3f,13#9c1')
    .option('--range-sha256 <hash>', 'precondition: SHA-256 of the bytes being replaced')
    .option('--if-not-modified-since <time>', 'precondition: ms since epoch or ISO 8601')
    .option('--dry-run', 'validate and show the diff, write nothing')
    .option('--no-normalize-newlines', "keep the content's newlines as given")
    .option('--section <path>', 'markdown: the section under this heading path, e.g. "Install > Linux"')
    .option('--section-replace', 'replace the section (heading included; --body-only keeps the heading)')
    .option('--body-only', 'with --section-replace: replace only the lines under the heading')
    .option('--section-insert', 'insert right after the section heading')
    .option('--section-append', 'append at the end of the section, before the next heading')
    .option('--section-sha256 <hash>', 'precondition: the section sha256 from folio outline or read --section')
    .option('--json-path <path>', 'JSON: the value at this JSONPath (RFC 9535: $.a.b) or JSON Pointer (/a/b)')
    .option('--json-set <value>', 'set it to this JSON value (creates a missing member)', jsonValue('--json-set'))
    .option('--json-insert <value>', 'insert this JSON value into the array at --json-path', jsonValue('--json-insert'))
    .option('--index <i>', 'with --json-insert: position in the array (default: the end)', int('--index'))
    .option('--json-delete', 'delete the value at --json-path')
    .option('--jsonl-line <n>', 'JSON Lines: the line the path is inside', int('--jsonl-line'))
    .option('--root <dir>', 'workspace root whose .folio/review journal records the edit (default: the current directory)')
    .option('--json', 'print the response as one JSON object')
    .action(async (file: string, f: Flags) => {
      const target = targetOf(f);
      if (typeof target === 'string') throw new Exit(usage(io, target));
      const sources = [f.content !== undefined, f.contentFile, f.contentStdin].filter(Boolean).length;
      if (sources > 1) throw new Exit(usage(io, 'give one of --content, --content-file, --content-stdin'));
      if (!f.delete && f.jsonPath === undefined && sources === 0)
        throw new Exit(usage(io, 'give the new text with --content, --content-file or --content-stdin'));
      try {
        const content = f.content ?? (f.contentFile ? readFileSync(f.contentFile, 'utf8') : f.contentStdin ? await readStdin() : undefined);
        const input: UpsertInput = {
          path: file,
          target,
          ...(content !== undefined ? { content } : {}),
          ...(f.ifMatch ? { if_match: f.ifMatch } : {}),
          ...(f.ifNoneMatch !== undefined ? { if_none_match: f.ifNoneMatch as '*' } : {}),
          ...(f.sha256 ? { expected_sha256: f.sha256 } : {}),
          ...(f.anchors ? { anchors: f.anchors.split(',').map((a) => a.trim()) } : {}),
          ...(f.rangeSha256 ? { expected_range_sha256: f.rangeSha256 } : {}),
          ...(f.ifNotModifiedSince ? { if_not_modified_since: /^\d+$/.test(f.ifNotModifiedSince) ? Number(f.ifNotModifiedSince) : f.ifNotModifiedSince } : {}),
          ...(f.sectionSha256 ? { expected_section_sha256: f.sectionSha256 } : {}),
          ...(f.dryRun ? { dry_run: true } : {}),
          ...(f.normalizeNewlines === false ? { normalize_newlines: false } : {}),
        };
        const r = await handle('upsert', input, HUMAN, { workspace: resolve(f.root ?? process.cwd()), deferJournal: true });
        io.stdout.write(f.json ? JSON.stringify(r) + '\n' : formatUpsert(r));
      } catch (err) {
        throw new Exit(printError(err, Boolean(f.json), io));
      }
    });
}

function usage(io: CliIO, message: string): number {
  io.stderr.write(`folio: usage: ${message}\n`);
  return 2;
}
