/**
 * A patch (engine/write/patch-parse.ts) as the upserts it stands for, one per file,
 * which the caller applies together, all or none (the table's several-file upsert,
 * or the agent guard's): an added file is a create (if_none_match "*"); an updated
 * file is its hunks placed on the version read (engine/write/patch-resolve.ts) as
 * line edits guarded by that version's etag, so a file that changed since it was
 * read fails precondition_failed and nothing is written.
 */
import { FolioError } from '../engine/errors.ts';
import { parsePatch, type PatchFormat } from '../engine/write/patch-parse.ts';
import { resolveHunks, type LineReplacement } from '../engine/write/patch-resolve.ts';
import type { UpsertEditInput, UpsertInput } from './schemas.ts';
import type { PatchInput } from './schemas/patch.ts';

/**
 * A file's version (etag) and, when `withText`, its text as read for placing hunks;
 * null when there is no such file. A delete or rename that shows no lines needs the
 * version only: its file is not read, whatever its size.
 */
export type PatchReader = (path: string, withText: boolean) => Promise<{ text: string; etag: string } | null>;

/**
 * A whole-file change of a patch: a delete, a move (after the update of the same
 * file, `after`: its index in wires), with the etag of the version whose text the
 * patch checked (a unified diff's deleted lines, a moved file's hunks), else of the
 * version read when the patch was placed (`checked: false`: the patch said nothing
 * of the file's text).
 */
export interface PatchFileOp {
  op: 'delete' | 'move';
  path: string;
  to?: string;
  etag: string;
  checked: boolean;
  after?: number;
}

export interface PatchWires {
  format: PatchFormat;
  /** one upsert per added or updated file, in the patch's order */
  wires: UpsertInput[];
  /** the deletes and moves, applied after the upserts */
  ops: PatchFileOp[];
  /** what the answer says besides the upserts' own notes (hunks found loosely) */
  notes: string[];
}

/** `text` as lines without their newlines (a final newline ends the last line; it does not start another). */
export function linesOfText(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

const block = (lines: string[]) => lines.map((l) => `${l}\n`).join('');

/** The line edits (UpsertInput targets, 1-based, on the version read) of the replacements. */
function targetsOf(replacements: LineReplacement[]): UpsertEditInput[] {
  return replacements.map((r) => {
    if (r.oldCount === 0) return { insert: { at: r.start + 1 }, content: block(r.newLines) };
    const span = { start: r.start + 1, end: r.start + r.oldCount };
    return r.newLines.length ? { replace: span, content: block(r.newLines) } : { delete: span };
  });
}

function missing(path: string, what: string): FolioError {
  return new FolioError('not_found', `${path}: no such file to ${what}`, { path });
}

/**
 * The upserts of `input.patch`. `read` gives each updated file's text and version;
 * `normalize`: the new lines take the file's newline style (the table's option;
 * agents' text always does).
 */
export async function patchWiresOf(input: PatchInput, read: PatchReader, normalize = true): Promise<PatchWires> {
  const parsed = parsePatch(input.patch, input.path);
  const notes: string[] = [];
  const dry = input.dry_run ? { dry_run: true } : {};
  const nl = normalize ? { normalize_newlines: true } : {};
  const seen = new Set<string>();
  const wires: UpsertInput[] = [];
  const ops: PatchFileOp[] = [];
  for (const f of parsed.files) {
    for (const name of [f.path, ...(f.moveTo !== undefined ? [f.moveTo] : [])]) {
      if (seen.has(name)) throw new FolioError('invalid_input', `the patch names ${name} twice: give all its changes in one place`, { path: name });
      seen.add(name);
    }
    if (f.op === 'delete') {
      const now = await read(f.path, f.hunks.length > 0);
      if (now === null) throw missing(f.path, 'delete');
      // A unified diff deletes lines it shows: the file must still be those lines.
      const shown = f.hunks.flatMap((h) => h.old);
      const checked = f.hunks.length > 0;
      if (checked && JSON.stringify(linesOfText(now.text)) !== JSON.stringify(shown)) {
        throw new FolioError('precondition_failed', `${f.path} is not the text the diff deletes: read it again`, { path: f.path, failed: ['content'] });
      }
      ops.push({ op: 'delete', path: f.path, etag: now.etag, checked });
      continue;
    }
    if (f.op === 'add') {
      wires.push({ path: f.path, target: { whole_file: true }, content: f.content ?? '', if_none_match: '*', ...nl, ...dry });
      continue;
    }
    const now = await read(f.path, f.hunks.length > 0);
    if (f.moveTo !== undefined && f.hunks.length === 0) {
      // A rename alone (git's "rename from/to" without hunks).
      if (now === null) throw missing(f.path, 'move');
      ops.push({ op: 'move', path: f.path, to: f.moveTo, etag: now.etag, checked: false });
      continue;
    }
    if (now === null) {
      if (f.createIfMissing) {
        wires.push({ path: f.path, target: { whole_file: true }, content: block(f.hunks[0]!.new), if_none_match: '*', ...nl, ...dry });
        continue;
      }
      throw new FolioError('not_found', `${f.path}: no such file to update (a new file goes in '*** Add File:' or an empty SEARCH)`, { path: f.path });
    }
    const replacements = resolveHunks(linesOfText(now.text), f.hunks, parsed.format, f.path);
    for (const [i, r] of replacements.entries()) {
      if (!r.loose || replacements.findIndex((x) => x.hunk === r.hunk) !== i) continue;
      const { start, count } = r.found;
      notes.push(`hunk ${r.hunk + 1} of ${f.path} matched lines ${start + 1}-${start + count} loosely (differs: ${r.loose.join(', ')})`);
    }
    if (replacements.length === 0) {
      if (f.moveTo !== undefined) ops.push({ op: 'move', path: f.path, to: f.moveTo, etag: now.etag, checked: true });
      else notes.push(`${f.path}: its hunks change nothing`);
      continue;
    }
    wires.push({ path: f.path, targets: targetsOf(replacements), if_match: now.etag, ...nl, ...dry });
    if (f.moveTo !== undefined) ops.push({ op: 'move', path: f.path, to: f.moveTo, etag: now.etag, checked: true, after: wires.length - 1 });
  }
  if (wires.length === 0 && ops.length === 0) {
    throw new FolioError('invalid_input', 'the patch changes nothing: its new lines are its old lines', { format: parsed.format });
  }
  return { format: parsed.format, wires, ops, notes };
}

/** Largest file a patch updates: its text is read whole to place the hunks. */
export const PATCH_MAX_FILE_BYTES = 64 * 1024 * 1024;

/** The version of `path` (a local file) and, when `withText`, its text, for placing hunks; null if it does not exist. */
export async function readPatchTarget(path: string, withText: boolean): Promise<{ text: string; etag: string } | null> {
  const [{ factsOf, binaryFileError }, { codecFor }, { readFile }, { isFolioError }] = await Promise.all([
    import('../engine/read/file-facts.ts'),
    import('../engine/text/codec.ts'),
    import('node:fs/promises'),
    import('../engine/errors.ts'),
  ]);
  let facts;
  try {
    facts = await factsOf(path);
  } catch (err) {
    if (isFolioError(err) && err.code === 'not_found') return null;
    throw err;
  }
  if (!withText) return { text: '', etag: facts.version.etag };
  if (facts.verdict.isBinary) throw binaryFileError(facts, 'Folio patches text files');
  if (facts.identity.size > PATCH_MAX_FILE_BYTES) {
    throw new FolioError('too_large', `${path} is over ${PATCH_MAX_FILE_BYTES} bytes, the most a patch updates: edit it with edit (quotes) or upsert (lines)`, {
      path,
      size: facts.identity.size,
      max_bytes: PATCH_MAX_FILE_BYTES,
    });
  }
  // Read after the facts: if the file changed in between, the upsert's if_match (this etag) fails and nothing is written.
  const bytes = await readFile(path);
  const bom = facts.index.bomLength;
  return { text: codecFor(facts.encoding).decode(bytes.subarray(bom), bom, 'replace').text, etag: facts.version.etag };
}
