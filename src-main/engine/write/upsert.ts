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
import { FolioError } from '../errors.ts';
import { binaryFileError, factsOf, type Version } from '../read/file-facts.ts';
import { etagOf } from '../index/identity.ts';
import { pinFile, renamedError } from '../index/pinned-file.ts';
import { openWriteTarget, type WriteTarget } from './write-target.ts';
import { dirname } from 'node:path';
import { withFileLock } from './file-lock.ts';
import { openIndex, rememberIndex } from '../index/store.ts';
import type { LineIndex } from '../index/line-index.ts';
import { codecFor, isLegacyEncoding, type TextCodec } from '../text/codec.ts';
import { readBytes } from '../text/window.ts';
import { affectedBy, previewOf, type AffectedCounts } from './diff-preview.ts';
import { editRegionOf, type EditRegion, type UpsertTarget } from './edit-region.ts';
import { checkPreconditions, hasPrecondition, requirePrecondition, type PreconditionReport, type Preconditions } from './preconditions.ts';

export type { Units, UpsertTarget } from './edit-region.ts';
export type { Preconditions } from './preconditions.ts';

export interface UpsertRequest {
  target: UpsertTarget;
  content: string;
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
}

export interface LineByteRange {
  start_line: number;
  end_line: number;
  start_byte: number;
  end_byte: number;
}

export interface UpsertResult {
  path: string;
  applied: boolean;
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
async function preconditionsOfMissedTarget(index: LineIndex, version: Version, req: UpsertRequest, codec: TextCodec): Promise<void> {
  const t = req.target;
  const first = t.kind === 'insert' ? t.at : t.kind === 'append' ? index.lineCount : t.start;
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
    return openIndex(file); // extends the index over the appended bytes only
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
  const target = openWriteTarget(path, req.checked !== undefined);
  try {
    return await withFileLock(target.io, () => lockedUpsert(target, req, t0), { queueKey: target.path });
  } catch (err) {
    throw renamedError(err, [[target.dir, dirname(target.path)]]);
  } finally {
    target.close();
  }
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
  const abs = target.path;
  const cut = recoverInterruptedAppend(target.io, file);
  if (cut) notes.push(`truncated ${cut} byte(s) an interrupted append left`);
  const facts = await factsOf(file, { hash: !hasPrecondition(req.preconditions) });
  requirePrecondition(req.preconditions, { path: abs, version: facts.version });
  if (facts.verdict.isBinary) throw binaryFileError(facts, 'Folio edits text files');
  const index = await openIndex(file);
  refuseUneditableEncoding(abs, facts.encoding, facts.encodingConfidence, index);
  const codec = codecFor(facts.encoding);
  const before = versionOf(index);
  // The digest file facts keep for this very version spares expected_sha256 a whole-file read.
  const checkedVersion = facts.version.etag === before.etag && facts.version.sha256 ? { ...before, sha256: facts.version.sha256 } : before;
  let r: EditRegion;
  try {
    r = editRegionOf(index, req, codec);
  } catch (err) {
    if (err instanceof FolioError && err.code === 'out_of_bounds') await preconditionsOfMissedTarget(index, checkedVersion, req, codec);
    throw err;
  }
  const pre = await checkPreconditions(index, checkedVersion, r, req.preconditions, codec);
  if (pre.whole_file === 'differed') notes.push('the whole-file version differed, but the range preconditions matched: applied');
  const affected = affectedBy(index, r, codec);
  const base = {
    path: abs,
    version_before: before,
    range_before: { start_line: r.startLine, end_line: r.endLine, start_byte: r.start, end_byte: r.end },
    affected,
    preconditions: pre,
    preview: previewOf(index, r, codec),
    notes,
  };
  const removedBytes = req.captureBytes || req.onBeforeWrite ? readBytes(file, r.start, r.end) : null;
  if (req.captureBytes) Object.assign(base, { removed: removedBytes, inserted: r.content });
  const endAfter = r.start + r.content.length;
  const plannedRange = { start_line: r.startLine, end_line: r.startLine + affected.lines.inserted - 1, start_byte: r.start, end_byte: endAfter };
  if (req.dryRun) {
    return { ...base, applied: false, dry_run: true, version_after: null, range_after: plannedRange, elapsed_ms: performance.now() - t0 };
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
    });
  }
  const after = await written(target.io, file, index, r, req.target.kind === 'append', notes);
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
    elapsed_ms: performance.now() - t0,
  };
}
