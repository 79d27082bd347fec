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

/** Largest old or new span a change carries its lines for; past it only the counts. */
const CHANGE_MAX_BYTES = 256 * 1024;

/** One line hunk of an edit: lines old_start.. (1-based; an insert: the line new_lines go before) become new_lines. */
export interface LineChange {
  /** the edit of the request it comes from (its index in `edits`, or the quote's) */
  edit: number;
  old_start: number;
  old_count: number;
  new_count: number;
  old_lines: string[];
  new_lines: string[];
  /** the bytes of the file the old lines stand on (an insert: none, at start_byte) */
  start_byte: number;
  end_byte: number;
  /** too big to carry the lines: only counts (and one hunk for the whole region) */
  truncated?: boolean;
}

/** The whole lines holding bytes [start, end) (an insert at a line start holds none): [spanStart, spanEnd) and its first line. */
function lineSpanOf(index: LineIndex, start: number, end: number): { spanStart: number; spanEnd: number; line: number } {
  const bomLen = index.bomLength;
  const line = index.lineAt(start) + 1;
  const spanStart = lineStartByte(index, line, bomLen);
  const endLine = index.lineAt(end) + 1;
  const atLineStart = end === lineStartByte(index, endLine, bomLen);
  const spanEnd = atLineStart && !(end === start && start > spanStart) ? end : lineStartByte(index, endLine + 1, bomLen);
  return { spanStart, spanEnd, line };
}

/**
 * What edit `edit` (region `r`) does to the file's lines: the whole lines it touches
 * before and after, split into hunks of changed lines (no context). The change
 * model of review is made of these, whatever form the edit came in.
 */
export function lineChangesOf(index: LineIndex, r: EditRegion, codec: TextCodec, edit: number): LineChange[] {
  const { spanStart, spanEnd, line } = lineSpanOf(index, r.start, r.end);
  if (spanEnd - spanStart > CHANGE_MAX_BYTES || r.content.length > CHANGE_MAX_BYTES) {
    const affected = affectedBy(index, r, codec);
    return [
      {
        edit,
        old_start: line,
        old_count: affected.lines.removed,
        new_count: affected.lines.inserted,
        old_lines: [],
        new_lines: [],
        start_byte: r.start,
        end_byte: r.end,
        truncated: true,
      },
    ];
  }
  const before = readBytes(index.path, spanStart, spanEnd);
  const after = Buffer.concat([before.subarray(0, r.start - spanStart), r.content, before.subarray(r.end - spanStart)]);
  const dec = (b: Uint8Array) => codec.decode(b, 0, 'replace').text;
  const oldText = dec(before);
  const patch = structuredPatch('a', 'b', oldText.replace(/\r\n/g, '\n'), dec(after).replace(/\r\n/g, '\n'), '', '', { context: 0 });
  // Byte offsets of the span's lines, to give each hunk the bytes it stands on.
  const offsets = [0];
  for (let i = 0; i < before.length;) {
    const nl = codec.indexOfNewline(before, i);
    if (nl < 0) break;
    i = nl + codec.unit;
    offsets.push(i);
  }
  const byteOfLine = (k: number) => spanStart + (k < offsets.length ? offsets[k]! : before.length);
  return patch.hunks.map((h) => {
    const old_lines = h.lines.filter((l) => l[0] === '-').map((l) => l.slice(1));
    const new_lines = h.lines.filter((l) => l[0] === '+').map((l) => l.slice(1));
    const k = h.oldStart - 1; // 0-based line in the span (an insert: the line it goes before)
    return {
      edit,
      old_start: line + k,
      old_count: old_lines.length,
      new_count: new_lines.length,
      old_lines,
      new_lines,
      start_byte: byteOfLine(k),
      end_byte: byteOfLine(k + old_lines.length),
    };
  });
}
