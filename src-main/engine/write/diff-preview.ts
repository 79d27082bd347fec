/**
 * What an upsert changes, told before (dry run) or as it writes: the unified diff
 * of the edited region with context, and the lines it removes and inserts.
 */
import { formatPatch, structuredPatch } from 'diff';
import type { LineIndex } from '../index/line-index.ts';
import type { TextCodec } from '../text/codec.ts';
import { readBytes } from '../text/window.ts';
import { lineStartByte, type EditRegion } from './edit-region.ts';

const PREVIEW_MAX_BYTES = 256 * 1024;
const CONTEXT_LINES = 3;

export interface AffectedCounts {
  bytes: { removed: number; inserted: number };
  lines: { removed: number; inserted: number };
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

/** Bytes and lines `r` removes and inserts (the removed lines counted from the index, without reading them). */
export function affectedBy(index: LineIndex, r: EditRegion, codec: TextCodec): AffectedCounts {
  return {
    bytes: { removed: r.end - r.start, inserted: r.content.length },
    lines: { removed: linesIn(index, r.start, r.end, codec), inserted: countLines(r.content, codec) },
  };
}

/** Unified diff of the edited region with CONTEXT_LINES of context, numbered as in the file. */
export function previewOf(index: LineIndex, r: EditRegion, codec: TextCodec, name = index.path): string {
  const bomLen = index.bomLength;
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
  const patch = structuredPatch(name, name, dec(before), dec(after), 'before', 'after', { context: CONTEXT_LINES });
  const offset = index.lineAt(from);
  for (const h of patch.hunks) {
    h.oldStart += offset;
    h.newStart += offset;
  }
  return formatPatch(patch);
}
