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
import { recoverInterruptedAppend } from './append-intent.ts';
import { appendBytes, removeStaleTemps, rewriteRange } from './atomic-write.ts';
import { FolioError, fromFsError } from '../errors.ts';
import { binaryFileError, factsOf, type FileFacts, type Version } from '../read/file-facts.ts';
import { etagOf } from '../index/identity.ts';
import { pinFile, renamedError } from '../index/pinned-file.ts';
import { openWriteTarget, type WriteTarget } from './write-target.ts';
import { resolveQuotedEdits, type QuotedEdit } from './quote-edit.ts';
import { dirname, resolve } from 'node:path';
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, unlinkSync } from 'node:fs';
import { createPatch } from 'diff';
import { fsyncDir } from './fsync-dir.ts';
import { withFileLock } from '../index/file-lock.ts';
import { dropStaleIndex, openIndex, rememberIndex } from '../index/store.ts';
import type { LineIndex } from '../index/line-index.ts';
import { codecFor, isLegacyEncoding, type TextCodec } from '../text/codec.ts';
import { readBytes } from '../text/window.ts';
import { affectedBy, lineChangesOf, previewOf, type AffectedCounts, type LineChange } from './diff-preview.ts';
import { editRegionOf, type EditRegion, type UpsertTarget } from './edit-region.ts';
import { checkPreconditions, hasPrecondition, requirePrecondition, type PreconditionReport, type Preconditions } from './preconditions.ts';

export type { Units, UpsertTarget } from './edit-region.ts';
export type { Preconditions } from './preconditions.ts';

/** One edit of an upsert: where, and the text that goes there. */
export interface UpsertEdit {
  target: UpsertTarget;
  content: string;
  /** write these bytes verbatim (see UpsertRequest.contentBytes) */
  contentBytes?: Uint8Array;
}

export interface UpsertRequest {
  /** the edit (with `edits`: the first of them) */
  target: UpsertTarget;
  content: string;
  /**
   * Several edits written at once, all or nothing, each placed on the same version
   * of the file (so line numbers are those of the version read, not shifted by the
   * edits before them). Overlapping edits are invalid_range naming the pair.
   */
  edits?: UpsertEdit[];
  preconditions: Preconditions;
  /** content takes the file's newline style (default true) */
  normalizeNewlines?: boolean;
  dryRun?: boolean;
  /**
   * Internal (the review journal): return the exact bytes that were replaced, read
   * under the lock, and the bytes written, as `removed` / `inserted`.
   */
  captureBytes?: boolean;
  /**
   * Internal (undo/redo of byte ranges): write these bytes verbatim instead of
   * `content` (no encoding, no newline normalisation). An exact inverse of an edit of
   * a UTF-16 file cannot travel as a UTF-8 string.
   */
  contentBytes?: Uint8Array;
  /**
   * Internal (the review journal's write-ahead intent): called under the file lock
   * after the preconditions passed, right before the file is written, with what the
   * write will do. If it throws, nothing is written.
   */
  onBeforeWrite?: (plan: WritePlan) => void | Promise<void>;
  /**
   * The caller resolved `path` and checked it against a policy (the agent guard; the
   * review journal writing what an agent proposed). The write is refused with
   * permission_denied unless the path still leads to itself when it is opened, and,
   * unless allowHardlinks, if the file has more than one link.
   */
  checked?: { allowHardlinks: boolean };
  /** With preconditions.ifNoneMatch: also create the missing folders of the path. */
  createParents?: boolean;
  /**
   * Edits by quoting text (quote-edit.ts), instead of target/content/edits: each
   * old text must be found exactly once (or, with replaceAll, at least once) in the
   * version under the lock; that match is the content precondition, so no other
   * precondition is required.
   */
  quoted?: QuotedEdit[];
  /** Internal (review's change model): a dry run also tells each edit's line hunks (`changes`). */
  describeChanges?: boolean;
  /**
   * Internal (review: a quote edit applies only on the lines it was proposed on):
   * called under the lock with each edit's line hunks once the preconditions passed;
   * if it throws, nothing is written.
   */
  checkChanges?: (changes: LineChange[]) => void;
}

/** What an upsert is about to write: enough to tell the file before from after by the region alone. */
export interface WritePlan {
  path: string;
  startByte: number;
  /** the bytes replaced (read under the lock) and the bytes written there */
  removed: Buffer;
  inserted: Uint8Array;
  sizeBefore: number;
  sizeAfter: number;
  version_before: Version;
  range_before: LineByteRange;
  range_after: LineByteRange;
  /** each edit's region in the file before the write (file order), with what it does to the line count */
  pieces: WritePiece[];
  /** the write fills the empty file this upsert just made (if_none_match "*"): the file did not exist before */
  created?: boolean;
}

/** One edit of a write: bytes [startByte, endByte) become newBytes bytes; the lines after it move by lineDelta. */
export interface WritePiece {
  startByte: number;
  endByte: number;
  newBytes: number;
  lineDelta: number;
}

export interface LineByteRange {
  start_line: number;
  end_line: number;
  start_byte: number;
  end_byte: number;
}

/** One edit's place before and after, in a multi-edit upsert's answer (in file order). */
export interface UpsertHunk {
  /** the edit's index in the request's `edits` */
  edit: number;
  range_before: LineByteRange;
  range_after: LineByteRange;
  affected: AffectedCounts;
}

export interface UpsertResult {
  path: string;
  applied: boolean;
  /** if_none_match: the file was created by this upsert */
  created?: boolean;
  dry_run: boolean;
  version_before: Version;
  version_after: Version | null;
  range_before: LineByteRange;
  range_after: LineByteRange;
  affected: AffectedCounts;
  preconditions: PreconditionReport;
  preview: string;
  notes: string[];
  elapsed_ms: number;
  /** with several edits: each edit's place (range_before/range_after span them all) */
  hunks?: UpsertHunk[];
  /** only with describeChanges: each edit's line hunks, in file order (diff-preview.ts) */
  changes?: LineChange[];
  /** only with captureBytes: the bytes replaced and the bytes written */
  removed?: Buffer;
  inserted?: Buffer;
}

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
 * The edit `req.target` names could not be placed (out_of_bounds): when the file
 * changed under the writer, a failed precondition (with the current version and the
 * read to send) helps it more, so check the preconditions on the lines it aimed at.
 */
async function preconditionsOfMissedTarget(index: LineIndex, version: Version, req: UpsertRequest, t: UpsertTarget, codec: TextCodec): Promise<void> {
  const first = t.kind === 'insert' ? t.at : t.kind === 'append' || t.kind === 'whole' ? index.lineCount : t.start;
  const last = t.kind === 'replace' || t.kind === 'delete' ? t.end : first;
  const clamp = (l: number) => Math.max(1, Math.min(l, index.lineCount));
  const probe = { start: index.size, end: index.size, startLine: clamp(first), endLine: clamp(last) };
  await checkPreconditions(index, version, probe, { ...req.preconditions, expectedRangeSha256: undefined }, codec);
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
/** Bytes between the first and the last edit of one call, at most: the journal keeps them to undo the call. */
export const MAX_EDIT_SPAN_BYTES = 64 * 1024 * 1024;

interface Placed {
  /** index in the request's edits */
  edit: number;
  region: EditRegion;
  affected: AffectedCounts;
}

/** The request's edits: `edits`, or its one target and content. */
export function editsOf(req: Pick<UpsertRequest, 'target' | 'content' | 'contentBytes' | 'edits'>): UpsertEdit[] {
  return req.edits ?? [{ target: req.target, content: req.content, ...(req.contentBytes ? { contentBytes: req.contentBytes } : {}) }];
}

const linesOf = (r: EditRegion) => (r.endLine < r.startLine ? `before line ${r.startLine}` : `lines ${r.startLine}-${r.endLine}`);

/** Every edit of `req` placed on the indexed file, in file order; overlapping edits are invalid_range naming the pair. */
async function placeEdits(index: LineIndex, version: Version, req: UpsertRequest, codec: TextCodec): Promise<Placed[]> {
  const edits = editsOf(req);
  if (edits.length === 0) throw new FolioError('invalid_input', 'edits is empty: give at least one edit', {});
  if (edits.length > 1 && req.preconditions.expectedRangeSha256 !== undefined) {
    throw new FolioError('invalid_input', 'expected_range_sha256 guards one range: with several edits use hashline anchors or if_match', {});
  }
  const placed: Placed[] = [];
  for (const [i, e] of edits.entries()) {
    let region: EditRegion;
    try {
      region = editRegionOf(index, { ...e, normalizeNewlines: req.normalizeNewlines }, codec);
    } catch (err) {
      if (err instanceof FolioError && err.code === 'out_of_bounds') await preconditionsOfMissedTarget(index, version, req, e.target, codec);
      if (err instanceof FolioError && edits.length > 1) throw new FolioError(err.code, `edits[${i}]: ${err.message}`, { ...err.details, edit: i });
      throw err;
    }
    placed.push({ edit: i, region, affected: affectedBy(index, region, codec) });
  }
  // File order; at one position an insert goes before a replace, and inserts keep the order they were given in.
  placed.sort((a, b) => a.region.start - b.region.start || a.region.end - b.region.end || a.edit - b.edit);
  for (let k = 1; k < placed.length; k++) {
    const a = placed[k - 1]!;
    const b = placed[k]!;
    if (b.region.start < a.region.end) {
      throw new FolioError('invalid_range', `edits[${a.edit}] (${linesOf(a.region)}) and edits[${b.edit}] (${linesOf(b.region)}) overlap`, {
        edits: [a.edit, b.edit].sort((x, y) => x - y),
        ranges: [a, b].map((p) => ({
          edit: p.edit,
          start_line: p.region.startLine,
          end_line: p.region.endLine,
          start_byte: p.region.start,
          end_byte: p.region.end,
        })),
      });
    }
  }
  return placed;
}

/** The one region every placed edit lies in, with the new bytes of all of it (the untouched bytes between edits read from `file`). */
function spanOf(file: string, index: LineIndex, placed: Placed[]): EditRegion {
  if (placed.length === 1) return placed[0]!.region;
  const start = placed[0]!.region.start;
  const end = Math.max(...placed.map((p) => p.region.end));
  if (end - start > MAX_EDIT_SPAN_BYTES) {
    throw new FolioError('too_large', `the edits of one call must lie within ${MAX_EDIT_SPAN_BYTES >> 20} MiB of each other; these span ${end - start} bytes`, {
      span_bytes: end - start,
      max_span_bytes: MAX_EDIT_SPAN_BYTES,
      hint: 'split the edits into calls by region',
    });
  }
  const parts: Uint8Array[] = [];
  let pos = start;
  for (const p of placed) {
    if (p.region.start > pos) parts.push(readBytes(file, pos, p.region.start));
    parts.push(p.region.content);
    pos = Math.max(pos, p.region.end);
  }
  return {
    start,
    end,
    content: Buffer.concat(parts),
    startLine: placed[0]!.region.startLine,
    endLine: end > start ? index.lineAt(end - 1) + 1 : placed[0]!.region.endLine,
  };
}

function sumAffected(placed: Placed[]): AffectedCounts {
  const sum = (f: (a: AffectedCounts) => number) => placed.reduce((n, p) => n + f(p.affected), 0);
  return {
    bytes: { removed: sum((a) => a.bytes.removed), inserted: sum((a) => a.bytes.inserted) },
    lines: { removed: sum((a) => a.lines.removed), inserted: sum((a) => a.lines.inserted) },
  };
}

/** Each edit's place after the write (`after`: the new index; null for a dry run, whose line numbers are computed). */
function hunksOf(placed: Placed[], after: LineIndex | null): UpsertHunk[] {
  let byteShift = 0;
  let lineShift = 0;
  return placed.map((p) => {
    const r = p.region;
    const start = r.start + byteShift;
    const end = start + r.content.length;
    let startLine = r.startLine + lineShift;
    let endLine = startLine + p.affected.lines.inserted - 1;
    if (after) {
      startLine = after.size === 0 ? 1 : after.lineAt(Math.min(start, after.size)) + 1;
      endLine = r.content.length ? after.lineAt(end - 1) + 1 : startLine - 1;
    }
    byteShift += r.content.length - (r.end - r.start);
    lineShift += p.affected.lines.inserted - p.affected.lines.removed;
    return {
      edit: p.edit,
      range_before: { start_line: r.startLine, end_line: r.endLine, start_byte: r.start, end_byte: r.end },
      range_after: { start_line: startLine, end_line: endLine, start_byte: start, end_byte: end },
      affected: p.affected,
    };
  });
}

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
  if (req.quoted) {
    const resolved = await resolveQuotedEdits(index, facts.encoding, req.quoted);
    const edits: UpsertEdit[] = resolved.map((q) => ({
      target: { kind: 'replace', start: q.start, end: q.end, units: 'bytes' },
      content: '',
      contentBytes: q.content,
    }));
    quoteOf.push(...resolved.map((q) => q.edit));
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
