/**
 * upsert: insert / replace / delete / append at a position, only under a version
 * precondition (preconditions.ts), written atomically (atomic-write.ts), keeping
 * the file's newline style, BOM, encoding, mode and owner. The target becomes a
 * byte region (edit-region.ts); the answer carries the diff (diff-preview.ts).
 *
 * Encodings: valid UTF-8 and valid UTF-16LE/BE files are edited; content is
 * encoded in the file's encoding (a UTF-16 file's byte targets must be even and
 * outside surrogate pairs; newlines are units). Files in a detected legacy
 * encoding, 'unknown' ones and UTF-8/UTF-16 with invalid sequences are refused with
 * encoding_mismatch: writing them back would change or mix their encoding.
 */
import { compressionOf } from '../read/compression.ts';
import { recoverInterruptedAppend } from './append-intent.ts';
import { appendBytes, removeStaleTemps, rewriteRange } from './atomic-write.ts';
import { FolioError, fromFsError } from '../errors.ts';
import { binaryFileError, factsOf, type FileFacts, type Version } from '../read/file-facts.ts';
import { etagOf } from '../index/identity.ts';
import { pinFile, renamedError } from '../index/pinned-file.ts';
import { openWriteTarget, type WriteTarget } from './write-target.ts';
import { looseNote, resolveQuotedEdits, type LooseMatch } from './quote-edit.ts';
import { dirname, resolve } from 'node:path';
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, unlinkSync } from 'node:fs';
import { createPatch } from 'diff';
import { fsyncDir } from './fsync-dir.ts';
import { withFileLock } from '../index/file-lock.ts';
import { dropStaleIndex, openIndex, rememberIndex } from '../index/store.ts';
import type { LineIndex } from '../index/line-index.ts';
import { codecFor, isLegacyEncoding } from '../text/codec.ts';
import { readBytes } from '../text/window.ts';
import { lineChangesOf, previewOf, type LineChange } from './diff-preview.ts';
import type { EditRegion } from './edit-region.ts';
import { checkPreconditions, hasPrecondition, requirePrecondition } from './preconditions.ts';
import type { UpsertEdit, UpsertRequest, UpsertResult, WritePlan } from './upsert-types.ts';
import { editsOf, hunksOf, placeEdits, spanOf, sumAffected } from './place-edits.ts';

export type { Units, UpsertTarget } from './edit-region.ts';
export type { Preconditions } from './preconditions.ts';
export type { LineByteRange, UpsertEdit, UpsertHunk, UpsertRequest, UpsertResult, WritePiece, WritePlan } from './upsert-types.ts';
export { editsOf, MAX_EDIT_SPAN_BYTES } from './place-edits.ts';

function versionOf(index: LineIndex): Version {
  const id = index.identity;
  return { etag: etagOf(id), size: id.size, mtimeMs: id.mtimeMs };
}

/** encoding_mismatch unless the file is valid UTF-8 or valid UTF-16: the encodings upserts write back exactly. */
function refuseUneditableEncoding(path: string, encoding: string, confidence: number | undefined, index: LineIndex): void {
  const writable = encoding === 'utf-8' || encoding === 'utf-16le' || encoding === 'utf-16be';
  if (writable && index.facts.firstInvalid === null) return;
  if (isLegacyEncoding(encoding)) {
    throw new FolioError('encoding_mismatch', `${path} is in ${encoding}, not UTF-8 or UTF-16; Folio does not write legacy encodings`, {
      path,
      encoding,
      encoding_confidence: confidence,
      hint: `convert it to UTF-8 first (e.g. iconv -f ${encoding} -t UTF-8), or edit it with a tool that writes ${encoding}; reads decode it already`,
    });
  }
  throw new FolioError(
    'encoding_mismatch',
    `${path} is not valid ${writable ? encoding.toUpperCase() : 'UTF-8'} (${encoding}); upserts would change its encoding`,
    {
      path,
      encoding,
      first_invalid_offset: index.facts.firstInvalid,
    },
  );
}

/**
 * Write `r` into the locked file: `io` is its name in its opened directory, `file`
 * its pin (write-target.ts). The index after the write.
 */
function written(io: string, file: string, index: LineIndex, r: EditRegion, append: boolean, notes: string[]): Promise<LineIndex> | LineIndex {
  if (append) {
    appendBytes(io, file, r.content);
    // Extends the index over the appended bytes only. The bytes are in: an index that
    // cannot follow them is rebuilt, never answered as a failed append (an agent
    // retries one of those, and would append twice).
    return openIndex(file).catch(() => {
      dropStaleIndex(file);
      return openIndex(file, { noCache: true });
    });
  }
  if (r.start === r.end && r.content.length === 0) {
    notes.push('empty insert: nothing written');
    return index;
  }
  const { index: after, pin } = rewriteRange(io, file, index.identity, r.start, r.end, r.content);
  try {
    rememberIndex(after);
  } finally {
    pin?.release();
  }
  if (after.layout !== index.layout) notes.push(`the file's head now reads as ${after.layout}, not ${index.layout} (it has no byte-order mark)`);
  return after;
}

/**
 * Every name the write makes is made inside the file's opened directory, and the
 * file is read, copied and appended to through its pin: a path swapped meanwhile
 * (a directory or the file turned into a symbolic or hard link) cannot redirect
 * the write or feed it another file's bytes (write-target.ts).
 */
export async function upsert(path: string, req: UpsertRequest): Promise<UpsertResult> {
  const t0 = performance.now();
  if (req.preconditions.expectedRangeSha256 !== undefined && (req.target.kind === 'insert' || req.target.kind === 'append')) {
    throw new FolioError('invalid_input', 'expected_range_sha256 guards the bytes being replaced: use it with replace or delete', {});
  }
  const create = req.preconditions.ifNoneMatch === '*';
  if (create && req.createParents) {
    // A dry run creates nothing, folders neither: a new file in new folders is only previewed.
    if (req.dryRun && !existsSync(dirname(resolve(path)))) return newFilePreview(resolve(path), req, t0);
    if (!req.dryRun) makeParents(path);
  }
  const target = openWriteTarget(path, req.checked !== undefined, { create });
  try {
    return await withFileLock(target.io, () => (create ? createAndWrite(target, req, t0) : lockedUpsert(target, req, t0)), { queueKey: target.path });
  } catch (err) {
    throw renamedError(err, [[target.dir, dirname(target.path)]]);
  } finally {
    target.close();
  }
}

function makeParents(path: string): void {
  try {
    mkdirSync(dirname(resolve(path)), { recursive: true });
  } catch (err) {
    throw fromFsError(err, dirname(resolve(path)));
  }
}

/** What a version of a file that does not exist yet is called in an answer. */
const ABSENT: Version = { etag: 'absent', size: 0, mtimeMs: 0 };

/**
 * if_none_match "*": create the file, under the lock, only if nothing is at the
 * path (O_CREAT | O_EXCL: a name that exists, even as a symlink, fails), then
 * write the text into the new empty file as an ordinary upsert. A dry run only
 * checks and previews. If the write fails, the empty file is removed again.
 */
async function createAndWrite(target: WriteTarget, req: UpsertRequest, t0: number): Promise<UpsertResult> {
  const exists = () => {
    try {
      lstatSync(target.io);
      return true;
    } catch {
      return false;
    }
  };
  const refuse = () =>
    new FolioError('precondition_failed', `${target.path} exists: if_none_match "*" creates only new files; read it and edit it with if_match`, {
      path: target.path,
      failed: ['if_none_match'],
    });
  const { ifNoneMatch: _create, ...rest } = req.preconditions;
  if (req.dryRun) {
    if (exists()) throw refuse();
    return newFilePreview(target.path, req, t0);
  }
  let fd: number;
  try {
    fd = openSync(target.io, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw refuse();
    throw fromFsError(err, target.path);
  }
  const made = fstatSync(fd);
  closeSync(fd);
  fsyncDir(target.dir);
  try {
    // Made under the lock just now: the empty file is the version this write is for.
    const onBeforeWrite = req.onBeforeWrite && ((plan: WritePlan) => req.onBeforeWrite!({ ...plan, created: true }));
    const r = await lockedUpsert(
      target,
      { ...req, preconditions: { ...rest, ifNotModifiedSince: Number.MAX_SAFE_INTEGER }, ...(onBeforeWrite ? { onBeforeWrite } : {}) },
      t0,
    );
    r.notes.unshift('created the file');
    return { ...r, created: true, preconditions: { ...r.preconditions, checked: ['if_none_match'] } };
  } catch (err) {
    try {
      const now = lstatSync(target.io);
      if (now.ino === made.ino && now.size === 0) unlinkSync(target.io);
    } catch {
      // gone already
    }
    throw err;
  }
}

/** A dry run of creating `path` with the request's text (UTF-8, lines as given, a final newline added for line targets). */
export function newFilePreview(path: string, req: UpsertRequest, t0: number): UpsertResult {
  const edits = editsOf(req);
  const whole = edits.length === 1 && edits[0]!.target.kind === 'whole';
  let text = edits.map((e) => e.content).join('');
  if (!whole && text !== '' && !text.endsWith('\n')) text += '\n';
  const bytes = Buffer.byteLength(text);
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  return {
    path,
    applied: false,
    dry_run: true,
    created: false,
    version_before: ABSENT,
    version_after: null,
    range_before: { start_line: 1, end_line: 0, start_byte: 0, end_byte: 0 },
    range_after: { start_line: 1, end_line: lines, start_byte: 0, end_byte: bytes },
    affected: { bytes: { removed: 0, inserted: bytes }, lines: { removed: 0, inserted: lines } },
    preconditions: { checked: ['if_none_match'], whole_file: 'matched', range: 'not_checked' },
    preview: createPatch(path, '', text, 'absent', 'new file'),
    ...(req.describeChanges ? { changes: [newFileChange(text)] } : {}),
    notes: ['creates the file'],
    elapsed_ms: performance.now() - t0,
  };
}

/** A new file's text as one hunk of added lines. */
function newFileChange(text: string): LineChange {
  const big = Buffer.byteLength(text) > 256 * 1024;
  const lines = text === '' ? [] : text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  return {
    edit: 0,
    old_start: 1,
    old_count: 0,
    new_count: lines.length,
    old_lines: [],
    new_lines: big ? [] : lines,
    start_byte: 0,
    end_byte: 0,
    ...(big ? { truncated: true } : {}),
  };
}

async function lockedUpsert(target: WriteTarget, req: UpsertRequest, t0: number): Promise<UpsertResult> {
  const abs = target.path;
  const notes: string[] = [];
  const removed = removeStaleTemps(target.io);
  if (removed.length) notes.push(`removed ${removed.length} temp file(s) left by an interrupted write`);
  const pin = pinFile(abs, { via: target.io, refuseLinks: req.checked !== undefined && !req.checked.allowHardlinks });
  try {
    return await pinnedUpsert(target, pin.path, req, notes, t0);
  } catch (err) {
    throw renamedError(err, [[pin.path, abs]]);
  } finally {
    pin.release();
  }
}

/** The upsert proper, under the lock: `file` is the pinned file. */
async function pinnedUpsert(target: WriteTarget, file: string, req: UpsertRequest, notes: string[], t0: number): Promise<UpsertResult> {
  const cut = recoverInterruptedAppend(target.io, file);
  if (cut) notes.push(`truncated ${cut} byte(s) an interrupted append left`);
  const io: UpsertIo = {
    path: target.path,
    file,
    facts: () => factsOf(file, { hash: !hasPrecondition(req.preconditions) && !req.quoted }),
    index: () => openIndex(file),
    write: async (index, r, append) => ({ after: await written(target.io, file, index, r, append, notes) }),
  };
  return upsertOn(io, req, notes, t0);
}

/**
 * Where an upsert reads and writes: the pinned local file under its lock, or a
 * remote value (engine/backend/remote.ts, whose write is one conditional splice).
 */
export interface UpsertIo {
  /** the name answers carry */
  path: string;
  /** the name the engine reads through */
  file: string;
  facts(): Promise<FileFacts>;
  /** the complete line index of the version `facts` describes */
  index(): Promise<LineIndex>;
  /**
   * Write `r` (`append`: at the end). Returns the index after the write, or only
   * the new version when the writer has no index of it yet (a remote value): the
   * answer's line numbers after are then computed from the edit.
   */
  write(index: LineIndex, r: EditRegion, append: boolean): Promise<{ after: LineIndex } | { version: Version }>;
}

/** The upsert proper: place the edits, check the preconditions, write through `io`. */
export async function upsertOn(io: UpsertIo, req: UpsertRequest, notes: string[], t0: number): Promise<UpsertResult> {
  const abs = io.path;
  const file = io.file;
  const facts = await io.facts();
  // A compressed log's version an agent holds is its decompressed text's: no precondition matches, so this comes first.
  if (facts.verdict.isBinary && compressionOf(abs)) throw binaryFileError(facts);
  if (!req.quoted) requirePrecondition(req.preconditions, { path: abs, version: facts.version });
  if (facts.verdict.isBinary) throw binaryFileError(facts, 'Folio edits text files');
  const index = await io.index();
  refuseUneditableEncoding(abs, facts.encoding, facts.encodingConfidence, index);
  const codec = codecFor(facts.encoding);
  const before = versionOf(index);
  // The digest file facts keep for this very version spares expected_sha256 a whole-file read.
  const checkedVersion = facts.version.etag === before.etag && facts.version.sha256 ? { ...before, sha256: facts.version.sha256 } : before;
  // Quoted edits become byte replacements of this very version, under the lock.
  const quoteOf: number[] = [];
  const looseMatches: LooseMatch[] = [];
  if (req.quoted) {
    const resolved = await resolveQuotedEdits(index, facts.encoding, req.quoted);
    const edits: UpsertEdit[] = resolved.map((q) => ({
      target: { kind: 'replace', start: q.start, end: q.end, units: 'bytes' },
      content: '',
      contentBytes: q.content,
    }));
    quoteOf.push(...resolved.map((q) => q.edit));
    looseMatches.push(...resolved.flatMap((q) => (q.loose ? [q.loose] : [])));
    for (const l of looseMatches) notes.push(looseNote(l));
    req = { ...req, target: edits[0]!.target, content: '', edits };
  }
  const placed = await placeEdits(index, checkedVersion, req, codec);
  if (req.quoted) for (const p of placed) p.edit = quoteOf[p.edit]!;
  const r = spanOf(file, index, placed);
  const pre = await checkPreconditions(index, checkedVersion, r, req.preconditions, codec);
  if (req.quoted) pre.checked.unshift('old_text');
  if (pre.whole_file === 'differed') notes.push('the whole-file version differed, but the range preconditions matched: applied');
  if (req.checkChanges) req.checkChanges(placed.flatMap((p) => lineChangesOf(index, p.region, codec, p.edit)));
  const affected = sumAffected(placed);
  const base = {
    path: abs,
    version_before: before,
    range_before: { start_line: r.startLine, end_line: r.endLine, start_byte: r.start, end_byte: r.end },
    affected,
    preconditions: pre,
    preview: placed.map((p) => previewOf(index, p.region, codec, abs)).join(''),
    notes,
    ...(looseMatches.length > 0 ? { loose_matches: looseMatches } : {}),
  };
  const several = placed.length > 1;
  const removedBytes = req.captureBytes || req.onBeforeWrite ? readBytes(file, r.start, r.end) : null;
  if (req.captureBytes) Object.assign(base, { removed: removedBytes, inserted: r.content });
  const endAfter = r.start + r.content.length;
  // Several edits: the span keeps the lines between them.
  const plannedEndLine = several ? r.endLine + affected.lines.inserted - affected.lines.removed : r.startLine + affected.lines.inserted - 1;
  const plannedRange = { start_line: r.startLine, end_line: plannedEndLine, start_byte: r.start, end_byte: endAfter };
  if (req.dryRun) {
    return {
      ...base,
      applied: false,
      dry_run: true,
      version_after: null,
      range_after: plannedRange,
      ...(several ? { hunks: hunksOf(placed, null) } : {}),
      ...(req.describeChanges ? { changes: placed.flatMap((p) => lineChangesOf(index, p.region, codec, p.edit)) } : {}),
      elapsed_ms: performance.now() - t0,
    };
  }
  if (req.onBeforeWrite) {
    const sizeAfter = index.size - (r.end - r.start) + r.content.length;
    await req.onBeforeWrite({
      path: abs,
      startByte: r.start,
      removed: removedBytes!,
      inserted: r.content,
      sizeBefore: index.size,
      sizeAfter,
      version_before: before,
      range_before: base.range_before,
      range_after: plannedRange,
      pieces: placed.map((p) => ({
        startByte: p.region.start,
        endByte: p.region.end,
        newBytes: p.region.content.length,
        lineDelta: p.affected.lines.inserted - p.affected.lines.removed,
      })),
    });
  }
  const append = !several && editsOf(req)[0]!.target.kind === 'append';
  const out = await io.write(index, r, append);
  if (!('after' in out)) {
    return {
      ...base,
      applied: true,
      dry_run: false,
      version_after: out.version,
      range_after: plannedRange,
      ...(several ? { hunks: hunksOf(placed, null) } : {}),
      elapsed_ms: performance.now() - t0,
    };
  }
  const after = out.after;
  const startLine = after.size === 0 ? 1 : after.lineAt(Math.min(r.start, after.size)) + 1;
  return {
    ...base,
    applied: true,
    dry_run: false,
    version_after: versionOf(after),
    range_after: {
      start_line: startLine,
      end_line: r.content.length ? after.lineAt(endAfter - 1) + 1 : startLine - 1,
      start_byte: r.start,
      end_byte: endAfter,
    },
    ...(several ? { hunks: hunksOf(placed, after) } : {}),
    elapsed_ms: performance.now() - t0,
  };
}
