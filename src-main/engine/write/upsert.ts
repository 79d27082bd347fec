/**
 * upsert: insert / replace / delete / append at a position, only under a version
 * precondition, written atomically, keeping the file's newline style, BOM,
 * encoding, mode and owner.
 *
 * Preconditions (at least one, else precondition_required):
 * - whole-file: if_match (etag), expected_sha256, if_not_modified_since;
 * - range-scoped: expected_range_sha256 (SHA-256 of the bytes being replaced) and
 *   hashline anchors ("12#a3f").
 * When range-scoped preconditions are given and match, the upsert applies even if
 * the whole-file ones differ (a growing log got appended); the answer says so.
 * Without range-scoped ones, every whole-file precondition must hold.
 * Failures carry the current version, the mismatched lines, the affected ranges
 * and a ready-to-send read request for them (with hashlines), so an agent
 * re-reads and retries in one step.
 *
 * Line targets are 1-based and inclusive. Content given for line targets is whole
 * lines: a missing final newline is added (in the file's style), except at the end
 * of a file that has no final newline, which keeps having none. Byte targets must
 * lie on character boundaries and outside the BOM.
 *
 * Encodings: valid UTF-8 and valid UTF-16LE/BE files are edited; content is
 * encoded in the file's encoding (a UTF-16 file's byte targets must be even and
 * outside surrogate pairs; newlines are units). Files in a detected legacy
 * encoding, 'unknown' ones and UTF-8/UTF-16 with invalid sequences are refused with
 * encoding_mismatch: writing them back would change or mix their encoding.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, readSync } from 'node:fs';
import { formatPatch, structuredPatch } from 'diff';
import { appendBytes, removeStaleTemps, rewriteRange } from './atomic-write.ts';
import { FolioError } from '../errors.ts';
import { binaryFileError, factsOf, type Version } from '../read/file-facts.ts';
import { etagOf, openForRead, statRegularFile } from '../index/identity.ts';
import { withFileLock } from './file-lock.ts';
import { openIndex, rememberIndex } from '../index/store.ts';
import type { LineIndex } from '../index/line-index.ts';
import { codecFor, isLegacyEncoding, type TextCodec } from '../text/codec.ts';
import { lineHash, readBytes } from '../text/window.ts';

export type Units = 'lines' | 'bytes';

export type UpsertTarget =
  | { kind: 'insert'; at: number; units: Units }
  | { kind: 'replace'; start: number; end: number; units: Units }
  | { kind: 'delete'; start: number; end: number; units: Units }
  | { kind: 'append' };

export interface Preconditions {
  ifMatch?: string;
  expectedSha256?: string;
  /** ms since the epoch: the file's mtime must not be later */
  ifNotModifiedSince?: number;
  expectedRangeSha256?: string;
  anchors?: string[];
}

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
  affected: { bytes: { removed: number; inserted: number }; lines: { removed: number; inserted: number } };
  preconditions: { checked: string[]; whole_file: 'matched' | 'differed' | 'not_checked'; range: 'matched' | 'not_checked' };
  preview: string;
  notes: string[];
  elapsed_ms: number;
  /** only with captureBytes: the bytes replaced and the bytes written */
  removed?: Buffer;
  inserted?: Buffer;
}

const PREVIEW_MAX_BYTES = 256 * 1024;
const CONTEXT_LINES = 3;
const ANCHOR = /^(\d+)#([0-9a-f]{3})$/;

function invalidRange(message: string, details: Record<string, unknown>): FolioError {
  return new FolioError('invalid_range', message, details);
}

interface Resolved {
  start: number;
  end: number;
  content: Buffer;
  /** 1-based lines of the old region (end < start for an empty one) */
  startLine: number;
  endLine: number;
}

function nlOf(style: string, content: string): string {
  if (style === 'crlf') return '\r\n';
  if (style === 'lf' || style === 'none' || style === 'cr') return '\n';
  return content.includes('\r\n') ? '\r\n' : '\n'; // mixed: keep what the content uses
}

function normalize(content: string, style: string, on: boolean): string {
  if (!on || style === 'mixed') return content;
  return content.replace(/\r\n|\r|\n/g, nlOf(style, content));
}

/** Why `pos` is not a character boundary of the file, or null if it is one. */
function notBoundary(path: string, pos: number, size: number, codec: TextCodec): string | null {
  if (codec.unit === 2 && pos % 2 === 1) return 'odd: UTF-16 code units are 2 bytes, at even offsets';
  if (pos <= 0 || pos >= size) return null;
  if (codec.unit === 2) return codec.snapBack(path, 0, pos) === pos ? null : 'inside a UTF-16 surrogate pair';
  const b = readBytes(path, pos, pos + 1)[0]!;
  return (b & 0xc0) !== 0x80 ? null : 'inside a multi-byte character';
}

/** Start byte of 1-based line `line` (line total+1 means the end of the file). */
function lineStartByte(index: LineIndex, line: number, bomLen: number): number {
  if (line === 1) return Math.min(bomLen, index.size);
  const s = index.lineStart(line - 1);
  return s < 0 ? index.size : s;
}

function resolve(index: LineIndex, req: UpsertRequest, style: string, bomLen: number, codec: TextCodec): Resolved {
  const { target } = req;
  const size = index.size;
  const total = index.lineCount;
  const finalNewline = index.finalNewline;
  const nl = nlOf(style, req.content);
  let text = normalize(req.content, style, req.normalizeNewlines !== false);
  const raw = req.contentBytes;
  const encode = (t: string): Buffer => (raw ? Buffer.from(raw) : codec.encode(t));
  if (target.kind === 'append') {
    return { start: size, end: size, content: encode(text), startLine: total + 1, endLine: total };
  }
  if (target.kind === 'delete' && req.content !== '') {
    throw new FolioError('invalid_input', 'delete takes no content', { content_length: req.content.length });
  }
  const endsWithNl = (t: string) => t.endsWith('\n') || t.endsWith('\r');
  if (target.units === 'bytes') {
    const check = (name: string, v: number) => {
      if (!Number.isInteger(v) || v < 0) throw invalidRange(`${name} must be a whole number >= 0, got ${v}`, { [name]: v });
      if (v > size) throw new FolioError('out_of_bounds', `${name} ${v} is past the end of the file (${size} bytes)`, { [name]: v, size });
      if (v < bomLen) throw invalidRange(`${name} ${v} is inside the byte-order mark`, { [name]: v });
      const why = notBoundary(index.path, v, size, codec);
      if (why) throw invalidRange(`${name} ${v} is not a character boundary: ${why}`, { [name]: v, encoding: codec.encoding });
    };
    let start: number;
    let end: number;
    if (target.kind === 'insert') {
      check('at', target.at);
      start = end = target.at;
    } else {
      check('start', target.start);
      check('end', target.end);
      if (target.start > target.end) throw invalidRange(`byte range ${target.start}-${target.end} is invalid: start after end`, { start: target.start, end: target.end });
      start = target.start;
      end = target.end;
    }
    return {
      start,
      end,
      content: encode(text),
      startLine: index.lineAt(start) + 1,
      endLine: end > start ? index.lineAt(end - 1) + 1 : index.lineAt(start),
    };
  }
  // Line units.
  if (target.kind === 'insert') {
    const at = target.at;
    if (!Number.isInteger(at) || at < 1) throw invalidRange(`insert line must be >= 1, got ${at}`, { at });
    if (at > total + 1) {
      throw new FolioError('out_of_bounds', `cannot insert before line ${at}: the file has ${total} lines (insert at ${total + 1} to add at the end)`, {
        at,
        total_lines: total,
      });
    }
    const pos = lineStartByte(index, at, bomLen);
    if (text !== '') {
      if (at <= total) {
        if (!endsWithNl(text)) text += nl;
      } else if (size > bomLen && !finalNewline) {
        text = nl + text; // the old last line needs its end before the new lines
      } else if (!endsWithNl(text)) {
        text += nl;
      }
    }
    return { start: pos, end: pos, content: encode(text), startLine: at, endLine: at - 1 };
  }
  const { start: a, end: b } = target;
  if (!Number.isInteger(a) || !Number.isInteger(b) || a < 1 || b < a) {
    throw invalidRange(`line range ${a}-${b} is invalid: lines are 1-based and start <= end`, { start: a, end: b });
  }
  if (b > total) {
    throw new FolioError('out_of_bounds', `line range ${a}-${b} goes past the end of the file (${total} lines)`, { start: a, end: b, total_lines: total });
  }
  const start = lineStartByte(index, a, bomLen);
  const end = b < total ? lineStartByte(index, b + 1, bomLen) : size;
  if (text !== '' && !endsWithNl(text) && (b < total || finalNewline)) text += nl;
  return { start, end, content: encode(text), startLine: a, endLine: b };
}

function compact(lines: number[]): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (const l of [...new Set(lines)].sort((x, y) => x - y)) {
    const last = out.at(-1);
    if (last && l <= last.end + 1) last.end = Math.max(last.end, l);
    else out.push({ start: l, end: l });
  }
  return out;
}

async function fileSha256(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return h.digest('hex');
}

function versionOf(index: LineIndex): Version {
  const id = index.identity;
  return { etag: etagOf(id), size: id.size, mtimeMs: id.mtimeMs };
}

/** Hash of line `line` (1-based) as hashline reads show it, or null past the end. */
function currentLineHash(index: LineIndex, line: number, codec: TextCodec): string | null {
  if (line < 1 || line > index.lineCount) return null;
  const s = line === 1 ? Math.min(index.bomLength, index.size) : index.lineStart(line - 1);
  const e = index.lineEnd(line - 1);
  return lineHash(readBytes(index.path, s, e), 0, e - s, codec);
}

async function checkPreconditions(
  index: LineIndex,
  r: Resolved,
  req: UpsertRequest,
  codec: TextCodec,
): Promise<UpsertResult['preconditions']> {
  const p = req.preconditions;
  const version = versionOf(index);
  const checked: string[] = [];
  const wholeFailed: string[] = [];
  if (p.ifMatch !== undefined) {
    checked.push('if_match');
    if (p.ifMatch !== version.etag) wholeFailed.push('if_match');
  }
  if (p.expectedSha256 !== undefined) {
    checked.push('expected_sha256');
    if (p.expectedSha256.toLowerCase() !== (await fileSha256(index.path))) wholeFailed.push('expected_sha256');
  }
  if (p.ifNotModifiedSince !== undefined) {
    checked.push('if_not_modified_since');
    if (index.identity.mtimeMs > p.ifNotModifiedSince) wholeFailed.push('if_not_modified_since');
  }
  const rangeFailed: string[] = [];
  const mismatched: { line: number; expected: string; actual: string | null }[] = [];
  if (p.expectedRangeSha256 !== undefined) {
    checked.push('expected_range_sha256');
    const fd = openForRead(index.path);
    const h = createHash('sha256');
    try {
      const buf = Buffer.allocUnsafe(1 << 20);
      for (let pos = r.start; pos < r.end; ) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, r.end - pos), pos);
        if (n <= 0) break;
        h.update(buf.subarray(0, n));
        pos += n;
      }
    } finally {
      closeSync(fd);
    }
    if (h.digest('hex') !== p.expectedRangeSha256.toLowerCase()) rangeFailed.push('expected_range_sha256');
  }
  if (p.anchors !== undefined) {
    checked.push('anchors');
    for (const a of p.anchors) {
      const m = ANCHOR.exec(a.trim());
      if (!m) throw new FolioError('invalid_input', `anchor "${a}" is not LINE#HASH (3 hex digits), as hashline reads print them`, { anchor: a });
      const line = Number(m[1]);
      const actual = currentLineHash(index, line, codec);
      if (actual !== m[2]) mismatched.push({ line, expected: m[2]!, actual });
    }
    if (mismatched.length) rangeFailed.push('anchors');
  }
  const hasRange = p.expectedRangeSha256 !== undefined || p.anchors !== undefined;
  const failed = hasRange ? rangeFailed : wholeFailed;
  if (failed.length) {
    const targetLines = { start: Math.max(1, r.startLine), end: Math.max(r.startLine, r.endLine) };
    const affected = mismatched.length ? compact(mismatched.map((m) => m.line).filter((l) => l <= index.lineCount)) : [];
    const ranges = affected.length ? affected : index.lineCount ? [{ start: Math.min(targetLines.start, index.lineCount), end: Math.min(targetLines.end, index.lineCount) }] : [];
    throw new FolioError('precondition_failed', `the file changed since it was read: ${failed.join(', ')} did not match`, {
      path: index.path,
      failed,
      current_version: version,
      ...(mismatched.length ? { mismatched_lines: mismatched } : {}),
      affected_ranges: ranges,
      read: { path: index.path, ranges, hashlines: true },
    });
  }
  return {
    checked,
    whole_file: wholeFailed.length ? 'differed' : checked.some((c) => !c.startsWith('expected_range') && c !== 'anchors') ? 'matched' : 'not_checked',
    range: hasRange ? 'matched' : 'not_checked',
  };
}

/** Lines of bytes [start, end) of the indexed file, counted as countLines counts them, from the index: the region is never read. */
function linesIn(index: LineIndex, start: number, end: number, codec: TextCodec): number {
  if (end <= start) return 0;
  const newlines = index.lineAt(end) - index.lineAt(start);
  const u = codec.unit;
  return newlines + (end - start >= u && codec.unitIs(readBytes(index.path, end - u, end), 0, 10) ? 0 : 1);
}

function countLines(b: Uint8Array, codec: TextCodec): number {
  let n = 0;
  for (let i = codec.indexOfNewline(b); i >= 0; i = codec.indexOfNewline(b, i + codec.unit)) n++;
  const u = codec.unit;
  return n + (b.length > 0 && !(b.length >= u && codec.unitIs(b, b.length - u, 10)) ? 1 : 0);
}

/** Unified diff of the edited region with CONTEXT_LINES of context, numbered as in the file. */
function previewOf(index: LineIndex, r: Resolved, bomLen: number, codec: TextCodec): string {
  if (r.end - r.start > PREVIEW_MAX_BYTES || r.content.length > PREVIEW_MAX_BYTES) {
    return `(no preview: the region is larger than ${PREVIEW_MAX_BYTES} bytes; ${r.end - r.start} bytes removed, ${r.content.length} inserted)`;
  }
  const total = index.lineCount;
  const firstLine = Math.max(1, Math.min(r.startLine, total + 1) - CONTEXT_LINES);
  const ctxStart = lineStartByte(index, Math.min(firstLine, total + 1), bomLen);
  const lastLine = Math.min(total, Math.max(r.endLine, r.startLine) + CONTEXT_LINES);
  const ctxEnd = lastLine >= total ? index.size : lineStartByte(index, lastLine + 1, bomLen);
  const from = Math.min(ctxStart, r.start);
  const before = readBytes(index.path, from, Math.max(ctxEnd, r.end));
  const after = Buffer.concat([before.subarray(0, r.start - from), r.content, before.subarray(r.end - from)]);
  const dec = (b: Uint8Array) => codec.decode(b, 0, 'replace').text;
  const patch = structuredPatch(index.path, index.path, dec(before), dec(after), 'before', 'after', { context: CONTEXT_LINES });
  const offset = index.lineAt(from);
  for (const h of patch.hunks) {
    h.oldStart += offset;
    h.newStart += offset;
  }
  return formatPatch(patch);
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
  throw new FolioError('encoding_mismatch', `${path} is not valid ${writable ? encoding.toUpperCase() : 'UTF-8'} (${encoding}); upserts would change its encoding`, {
    path,
    encoding,
    first_invalid_offset: index.facts.firstInvalid,
  });
}

export async function upsert(path: string, req: UpsertRequest): Promise<UpsertResult> {
  const t0 = performance.now();
  const p = req.preconditions;
  if (p.ifMatch === undefined && p.expectedSha256 === undefined && p.ifNotModifiedSince === undefined && p.expectedRangeSha256 === undefined && p.anchors === undefined) {
    const facts = await factsOf(path);
    throw new FolioError('precondition_required', 'an upsert needs a precondition: if_match (the etag of your read), expected_sha256, if_not_modified_since, expected_range_sha256 or hashline anchors', {
      path: facts.identity.path,
      current_version: facts.version,
      hint: 'read the region first (with hashlines for anchors) and send its version back',
    });
  }
  if (p.expectedRangeSha256 !== undefined && (req.target.kind === 'insert' || req.target.kind === 'append')) {
    throw new FolioError('invalid_input', 'expected_range_sha256 guards the bytes being replaced: use it with replace or delete', {});
  }
  const abs = statRegularFile(path).path;
  return withFileLock(abs, async () => {
    const notes: string[] = [];
    const removed = removeStaleTemps(abs);
    if (removed.length) notes.push(`removed ${removed.length} temp file(s) left by an interrupted write`);
    const facts = await factsOf(abs, { hash: false });
    if (facts.verdict.isBinary) throw binaryFileError(facts, 'Folio edits text files');
    const index = await openIndex(abs);
    refuseUneditableEncoding(abs, facts.encoding, facts.encodingConfidence, index);
    const codec = codecFor(facts.encoding);
    const bomLen = index.bomLength;
    const style = index.newlineStyle;
    let r: Resolved;
    try {
      r = resolve(index, req, style, bomLen, codec);
    } catch (err) {
      // A writer whose target is gone because the file changed under it: a failed
      // precondition (with the current version and the read to send) helps it more
      // than out_of_bounds does.
      if (err instanceof FolioError && err.code === 'out_of_bounds') {
        const t = req.target;
        const first = t.kind === 'insert' ? t.at : t.kind === 'append' ? index.lineCount : t.start;
        const last = t.kind === 'replace' || t.kind === 'delete' ? t.end : first;
        const clamp = (l: number) => Math.max(1, Math.min(l, index.lineCount));
        const probe: Resolved = { start: index.size, end: index.size, content: Buffer.alloc(0), startLine: clamp(first), endLine: clamp(last) };
        await checkPreconditions(index, probe, { ...req, preconditions: { ...req.preconditions, expectedRangeSha256: undefined } }, codec);
      }
      throw err;
    }
    const pre = await checkPreconditions(index, r, req, codec);
    if (pre.whole_file === 'differed') notes.push('the whole-file version differed, but the range preconditions matched: applied');
    const preview = previewOf(index, r, bomLen, codec);
    const affected = {
      bytes: { removed: r.end - r.start, inserted: r.content.length },
      lines: { removed: linesIn(index, r.start, r.end, codec), inserted: countLines(r.content, codec) },
    };
    const before = versionOf(index);
    const rangeBefore = { start_line: r.startLine, end_line: r.endLine, start_byte: r.start, end_byte: r.end };
    const base = {
      path: abs,
      version_before: before,
      range_before: rangeBefore,
      affected,
      preconditions: pre,
      preview,
      notes,
      ...(req.captureBytes ? { removed: readBytes(abs, r.start, r.end), inserted: r.content } : {}),
    };
    if (req.dryRun) {
      const endAfter = r.start + r.content.length;
      return {
        ...base,
        applied: false,
        dry_run: true,
        version_after: null,
        range_after: { start_line: r.startLine, end_line: r.startLine + affected.lines.inserted - 1, start_byte: r.start, end_byte: endAfter },
        elapsed_ms: performance.now() - t0,
      };
    }
    let after: LineIndex;
    if (req.target.kind === 'append') {
      appendBytes(abs, r.content);
      after = await openIndex(abs); // extends the index over the appended bytes only
    } else if (r.start === r.end && r.content.length === 0) {
      after = index; // nothing to write
      notes.push('empty insert: nothing written');
    } else {
      after = rewriteRange(abs, index.identity, r.start, r.end, r.content).index;
      rememberIndex(after);
      if (after.layout !== index.layout) notes.push(`the file's head now reads as ${after.layout}, not ${index.layout} (it has no byte-order mark)`);
    }
    const endAfter = r.start + r.content.length;
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
  });
}
