/**
 * The edits of one upsert placed on the indexed file: each target becomes a byte
 * region (edit-region.ts), in file order, overlaps refused; the span they are
 * written as (one region, the bytes between edits read back); their counts; and
 * where each lands after the write.
 */
import { FolioError } from '../errors.ts';
import type { Version } from '../read/file-facts.ts';
import type { LineIndex } from '../index/line-index.ts';
import type { TextCodec } from '../text/codec.ts';
import { readBytes } from '../text/window.ts';
import { affectedBy, type AffectedCounts } from './diff-preview.ts';
import { editRegionOf, type EditRegion, type UpsertTarget } from './edit-region.ts';
import { checkPreconditions } from './preconditions.ts';
import type { UpsertEdit, UpsertHunk, UpsertRequest } from './upsert-types.ts';

/** Bytes between the first and the last edit of one call, at most: the journal keeps them to undo the call. */
export const MAX_EDIT_SPAN_BYTES = 64 * 1024 * 1024;

export interface Placed {
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
export async function placeEdits(index: LineIndex, version: Version, req: UpsertRequest, codec: TextCodec): Promise<Placed[]> {
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
export function spanOf(file: string, index: LineIndex, placed: Placed[]): EditRegion {
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

export function sumAffected(placed: Placed[]): AffectedCounts {
  const sum = (f: (a: AffectedCounts) => number) => placed.reduce((n, p) => n + f(p.affected), 0);
  return {
    bytes: { removed: sum((a) => a.bytes.removed), inserted: sum((a) => a.bytes.inserted) },
    lines: { removed: sum((a) => a.lines.removed), inserted: sum((a) => a.lines.inserted) },
  };
}

/** Each edit's place after the write (`after`: the new index; null for a dry run, whose line numbers are computed). */
export function hunksOf(placed: Placed[], after: LineIndex | null): UpsertHunk[] {
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
