/**
 * Upsert preconditions, checked here and nowhere else.
 *
 * At least one is required, else precondition_required (requirePrecondition).
 * - whole-file: if_match (etag), expected_sha256, if_not_modified_since;
 * - range-scoped: expected_range_sha256 (SHA-256 of the bytes being replaced) and
 *   hashline anchors ("12#a3f");
 * - section-scoped: expected_section_sha256, checked when the api resolves a
 *   section address (checkResolvedVersion); the resolved upsert then carries a
 *   range or version guard of its own.
 * When range-scoped preconditions are given and match, the upsert applies even if
 * the whole-file ones differ (a growing log got appended); the answer says so.
 * Without range-scoped ones, every whole-file precondition must hold.
 * Failures carry the current version, the mismatched lines, the affected ranges
 * and their current text with hashline anchors (`current`), so an agent retries
 * at once without another read (and a ready-to-send read request, for bigger ones).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { closeFd, readAt } from '../index/byte-source.ts';
import { FolioError } from '../errors.ts';
import { openForRead } from '../index/identity.ts';
import type { LineIndex } from '../index/line-index.ts';
import type { Version } from '../read/file-facts.ts';
import type { TextCodec } from '../text/codec.ts';
import { hashlineText, lineHash } from '../text/hashline.ts';
import { readBytes } from '../text/window.ts';

export interface Preconditions {
  /** '*': create the file, only if nothing is at the path (upsert.ts) */
  ifNoneMatch?: '*';
  ifMatch?: string;
  expectedSha256?: string;
  /** ms since the epoch: the file's mtime must not be later (parsed once, where the wire input becomes a request) */
  ifNotModifiedSince?: number;
  expectedRangeSha256?: string;
  anchors?: string[];
}

/** What a caller may send before its address is resolved: the section hash is checked against the section found. */
export interface AddressPreconditions extends Preconditions {
  expectedSectionSha256?: string;
}

/** What the check found, as the upsert answer reports it. */
export interface PreconditionReport {
  checked: string[];
  whole_file: 'matched' | 'differed' | 'not_checked';
  range: 'matched' | 'not_checked';
}

/** The bytes an upsert replaces and their 1-based lines (endLine < startLine for an empty region). */
export interface CheckedRegion {
  start: number;
  end: number;
  startLine: number;
  endLine: number;
}

const ANCHOR = /^(\d+)#([0-9a-f]{3})$/;

export function hasPrecondition(p: AddressPreconditions): boolean {
  return [p.ifNoneMatch, p.ifMatch, p.expectedSha256, p.ifNotModifiedSince, p.expectedRangeSha256, p.anchors, p.expectedSectionSha256].some(
    (x) => x !== undefined,
  );
}

/** precondition_required (with the current version, and `extra` details) unless `p` names at least one precondition. */
export function requirePrecondition(p: AddressPreconditions, at: { path: string; version: Version }, extra: Record<string, unknown> = {}): void {
  if (hasPrecondition(p)) return;
  throw new FolioError(
    'precondition_required',
    'an upsert needs a precondition: if_match (the etag of your read), if_none_match: "*" (create a file), expected_sha256, if_not_modified_since, expected_range_sha256, hashline anchors, or expected_section_sha256 (section targets)',
    {
      path: at.path,
      current_version: at.version,
      hint: 'read the region first (with hashlines for anchors) and send its version back',
      ...extra,
    },
  );
}

/**
 * SHA-256 of the whole file at `path`. `known` is the version the caller holds:
 * when its digest is already known (file facts cache it per etag), that is the
 * answer and the file is not read again.
 */
export async function fileSha256(path: string, known?: Version): Promise<string> {
  if (known?.sha256) return known.sha256;
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Names of the whole-file preconditions of `p` that `version` fails. */
async function wholeFileFailures(p: Preconditions, path: string, version: Version): Promise<string[]> {
  const failed: string[] = [];
  if (p.ifMatch !== undefined && p.ifMatch !== version.etag) failed.push('if_match');
  if (p.expectedSha256 !== undefined && p.expectedSha256.toLowerCase() !== (await fileSha256(path, version))) failed.push('expected_sha256');
  if (p.ifNotModifiedSince !== undefined && version.mtimeMs > p.ifNotModifiedSince) failed.push('if_not_modified_since');
  return failed;
}

/**
 * An address (section, JSON value) was resolved on `at.version`: the caller's
 * whole-file preconditions and its section hash must hold for that version, else
 * precondition_failed with `details` (the section, the read to send).
 */
export async function checkResolvedVersion(
  p: AddressPreconditions,
  at: { path: string; version: Version; sectionSha256?: string },
  details: Record<string, unknown>,
): Promise<void> {
  const failed: string[] = [];
  if (p.expectedSectionSha256 !== undefined && at.sectionSha256 !== undefined && p.expectedSectionSha256.toLowerCase() !== at.sectionSha256) {
    failed.push('expected_section_sha256');
  }
  failed.push(...(await wholeFileFailures(p, at.path, at.version)));
  if (failed.length) {
    throw new FolioError('precondition_failed', `the file changed since it was read: ${failed.join(', ')} did not match`, {
      path: at.path,
      failed,
      current_version: at.version,
      ...details,
    });
  }
}

function rangeSha256(path: string, start: number, end: number): string {
  const fd = openForRead(path);
  const h = createHash('sha256');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let pos = start; pos < end;) {
      const n = readAt(fd, buf, 0, Math.min(buf.length, end - pos), pos);
      if (n <= 0) break;
      h.update(buf.subarray(0, n));
      pos += n;
    }
  } finally {
    closeFd(fd);
  }
  return h.digest('hex');
}

/** Hash of line `line` (1-based) as hashline reads show it, or null past the end. */
export function currentLineHash(index: LineIndex, line: number, codec: TextCodec): string | null {
  if (line < 1 || line > index.lineCount) return null;
  const s = line === 1 ? Math.min(index.bomLength, index.size) : index.lineStart(line - 1);
  const e = index.lineEnd(line - 1);
  return lineHash(readBytes(index.path, s, e), 0, e - s, codec);
}

/** What a failure shows of the current text at most. */
const CURRENT_MAX_LINES = 200;
const CURRENT_MAX_BYTES = 64 * 1024;

/** The current text of line ranges, with hashlines, within the caps (truncated says if a range was cut). */
function currentText(
  index: LineIndex,
  ranges: { start: number; end: number }[],
  codec: TextCodec,
): { ranges: { start: number; end: number; text: string }[]; truncated: boolean } {
  const out: { start: number; end: number; text: string }[] = [];
  let lines = 0;
  let bytes = 0;
  let truncated = false;
  for (const r of ranges) {
    let end = Math.min(r.end, index.lineCount, r.start + CURRENT_MAX_LINES - lines - 1);
    if (end < r.start) {
      truncated = true;
      break;
    }
    const from = r.start === 1 ? Math.min(index.bomLength, index.size) : index.lineStart(r.start - 1);
    let to = index.lineEnd(end - 1);
    while (end > r.start && to - from > CURRENT_MAX_BYTES - bytes) to = index.lineEnd(--end - 1);
    if (to - from > CURRENT_MAX_BYTES - bytes) {
      truncated = true;
      break;
    }
    if (end < r.end) truncated = true;
    const text = hashlineText(readBytes(index.path, from, to), r.start, true, (b) => codec.decode(b, from, 'replace').text, codec);
    out.push({ start: r.start, end, text });
    lines += end - r.start + 1;
    bytes += to - from;
    if (truncated) break;
  }
  return { ranges: out, truncated };
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

/**
 * Under the file lock: check `p` against the indexed file (`version` is the
 * index's, with its SHA-256 when file facts know it) for an edit of `region`.
 * precondition_failed with the read to send if they fail.
 */
export async function checkPreconditions(
  index: LineIndex,
  version: Version,
  region: CheckedRegion,
  p: Preconditions,
  codec: TextCodec,
): Promise<PreconditionReport> {
  const checked: string[] = [];
  if (p.ifMatch !== undefined) checked.push('if_match');
  if (p.expectedSha256 !== undefined) checked.push('expected_sha256');
  if (p.ifNotModifiedSince !== undefined) checked.push('if_not_modified_since');
  const wholeFailed = await wholeFileFailures(p, index.path, version);
  const rangeFailed: string[] = [];
  const mismatched: { line: number; expected: string; actual: string | null }[] = [];
  if (p.expectedRangeSha256 !== undefined) {
    checked.push('expected_range_sha256');
    if (rangeSha256(index.path, region.start, region.end) !== p.expectedRangeSha256.toLowerCase()) rangeFailed.push('expected_range_sha256');
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
    const targetLines = { start: Math.max(1, region.startLine), end: Math.max(region.startLine, region.endLine) };
    const affected = mismatched.length ? compact(mismatched.map((m) => m.line).filter((l) => l <= index.lineCount)) : [];
    const ranges = affected.length
      ? affected
      : index.lineCount
        ? [{ start: Math.min(targetLines.start, index.lineCount), end: Math.min(targetLines.end, index.lineCount) }]
        : [];
    const current = currentText(index, ranges, codec);
    throw new FolioError(
      'precondition_failed',
      `the file changed since it was read: ${failed.join(', ')} did not match. details.current has the current text of the lines (with anchors): retry with it`,
      {
        path: index.path,
        failed,
        current_version: { etag: version.etag, size: version.size, mtimeMs: version.mtimeMs },
        ...(mismatched.length ? { mismatched_lines: mismatched } : {}),
        affected_ranges: ranges,
        current: current.ranges,
        ...(current.truncated ? { current_truncated: true } : {}),
        read: { path: index.path, ranges, hashlines: true },
      },
    );
  }
  const wholeChecked = checked.some((c) => c !== 'expected_range_sha256' && c !== 'anchors');
  return {
    checked,
    whole_file: wholeFailed.length ? 'differed' : wholeChecked ? 'matched' : 'not_checked',
    range: hasRange ? 'matched' : 'not_checked',
  };
}
