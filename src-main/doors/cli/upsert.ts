/**
 * `folio upsert FILE (--insert-at L | --replace A-B | --delete A-B | --append) [--bytes]
 *  (--content TEXT | --content-file F | --content-stdin)
 *  (--if-match ETAG | --sha256 H | --anchors 12#a3f,13#9c1 | --range-sha256 H | --if-not-modified-since T)
 *  [--dry-run] [--no-normalize-newlines] [--json]`
 * A human at the keyboard: applies directly (no review queue). Line ranges are
 * inclusive; with --bytes, ranges are [A, B) like `folio read --range`.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { handle, type OpOutput } from '../../api/handle.ts';
import type { UpsertInput } from '../../api/schemas.ts';
import { count } from './format.ts';
import { Exit, printError, type CliIO } from './main.ts';

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

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
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
    .option('--append', 'append at the end of the file (O_APPEND)')
    .option('--bytes', 'positions are bytes: --insert-at P, --replace/--delete A-B as [A, B)')
    .option('--content <text>', 'the new text')
    .option('--content-file <file>', 'read the new text from a file')
    .option('--content-stdin', 'read the new text from standard input')
    .option('--if-match <etag>', 'precondition: the etag of your read')
    .option('--sha256 <hash>', 'precondition: SHA-256 of the whole file')
    .option('--anchors <list>', 'precondition: hashline anchors, e.g. 12#a3f,13#9c1')
    .option('--range-sha256 <hash>', 'precondition: SHA-256 of the bytes being replaced')
    .option('--if-not-modified-since <time>', 'precondition: ms since epoch or ISO 8601')
    .option('--dry-run', 'validate and show the diff, write nothing')
    .option('--no-normalize-newlines', "keep the content's newlines as given")
    .option('--json', 'print the response as one JSON object')
    .action(async (file: string, f: Flags) => {
      const targets = [f.insertAt !== undefined, f.replace, f.delete, f.append].filter(Boolean).length;
      if (targets !== 1) throw new Exit(usage(io, 'give exactly one of --insert-at, --replace, --delete, --append'));
      const sources = [f.content !== undefined, f.contentFile, f.contentStdin].filter(Boolean).length;
      if (sources > 1) throw new Exit(usage(io, 'give one of --content, --content-file, --content-stdin'));
      if (!f.delete && sources === 0) throw new Exit(usage(io, 'give the new text with --content, --content-file or --content-stdin'));
      const units = f.bytes ? 'bytes' : 'lines';
      const target: UpsertInput['target'] =
        f.insertAt !== undefined
          ? { insert: { at: f.insertAt, units } }
          : f.replace
            ? { replace: { ...f.replace, ...(f.bytes ? { units } : {}) } }
            : f.delete
              ? { delete: { ...f.delete, ...(f.bytes ? { units } : {}) } }
              : { append: { at_end: true } };
      try {
        const content = f.content ?? (f.contentFile ? readFileSync(f.contentFile, 'utf8') : f.contentStdin ? await readStdin() : undefined);
        const input: UpsertInput = {
          path: file,
          target,
          ...(content !== undefined ? { content } : {}),
          ...(f.ifMatch ? { if_match: f.ifMatch } : {}),
          ...(f.sha256 ? { expected_sha256: f.sha256 } : {}),
          ...(f.anchors ? { anchors: f.anchors.split(',').map((a) => a.trim()) } : {}),
          ...(f.rangeSha256 ? { expected_range_sha256: f.rangeSha256 } : {}),
          ...(f.ifNotModifiedSince ? { if_not_modified_since: /^\d+$/.test(f.ifNotModifiedSince) ? Number(f.ifNotModifiedSince) : f.ifNotModifiedSince } : {}),
          ...(f.dryRun ? { dry_run: true } : {}),
          ...(f.normalizeNewlines === false ? { normalize_newlines: false } : {}),
        };
        const r = await handle('upsert', input, HUMAN);
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
