/**
 * Reads addressed by bytes.
 * - Byte windows start at the start of the line holding startByte, unless that
 *   line is longer than maxBytes: then at startByte itself (snapped back to a
 *   character start), so paging by nextStartByte visits every byte exactly once,
 *   long lines included. startByte past the end is out_of_bounds; at the end, empty.
 * - Exact bytes snap start back and end forward to character boundaries, and clamp
 *   end to the file size and to the cap, each adjustment with its reason.
 */
import { FolioError } from '../errors.ts';
import type { TextCodec } from '../text/codec.ts';
import { checkNonNegInt, cutNote, endOfLineWithNl, invalidRange, linesText, spanText, startOfLine, windowFrom, type ReadContext } from './read-context.ts';
import type { Adjustment, ReadResult } from './read-result.ts';

/** What a byte offset can be inside of, for adjustment reasons. */
function charWord(codec: TextCodec): string {
  return codec.unit === 2 ? 'UTF-16 code unit or surrogate pair' : 'multi-byte character';
}

export function readByteWindow(ctx: ReadContext, startByte: number, maxBytes: number): Partial<ReadResult> {
  checkNonNegInt('start_byte', startByte);
  if (!Number.isInteger(maxBytes) || maxBytes < 1) throw invalidRange(`max_bytes must be >= 1, got ${maxBytes}`, { max_bytes: maxBytes });
  const { index, size } = ctx;
  if (startByte > size) {
    throw new FolioError('out_of_bounds', `start_byte ${startByte} is past the end of the file (${size} bytes)`, { start_byte: startByte, size });
  }
  if (startByte === size) {
    return { content: '', startLine: null, endLine: null, startByte: size, endByte: size, nextStartByte: null };
  }
  const lineIdx = index.lineAt(startByte);
  const lineStartByte = startOfLine(index, lineIdx);
  const lineLen = endOfLineWithNl(index, lineIdx, size) - lineStartByte;
  const start = lineLen > maxBytes ? ctx.codec.snapBack(index.path, lineStartByte, startByte) : lineStartByte;
  const w = windowFrom(ctx, start, maxBytes);
  let cut = w.cut;
  if (!cut && start > lineStartByte) {
    // The tail of a long line, continued from a cursor.
    cut = { lineNo: lineIdx + 1, lineStartByte, lineEndByte: index.lineEnd(lineIdx), startsMidLine: true, endsMidLine: false };
  }
  if (w.cut) ctx.notes.push(cutNote(w.cut, w.end));
  const whole = start === lineStartByte;
  const content = whole && !w.cut ? linesText(ctx, start, w.end, lineIdx + 1, true) : spanText(ctx, start, w.end);
  return {
    content,
    startLine: lineIdx + 1,
    endLine: w.end > start ? index.lineAt(w.end - 1) + 1 : lineIdx + 1,
    startByte: start,
    endByte: w.end,
    nextStartByte: w.end < size ? w.end : null,
    truncated: Boolean(w.cut),
    ...(cut ? { lineCut: cut } : {}),
  };
}

export function readExact(ctx: ReadContext, startByte: number, endByte: number): Partial<ReadResult> {
  if (!Number.isInteger(startByte) || !Number.isInteger(endByte) || startByte < 0 || endByte < 0 || startByte > endByte) {
    throw invalidRange(`byte range ${startByte}-${endByte} is invalid: need 0 <= start_byte <= end_byte`, {
      start_byte: startByte,
      end_byte: endByte,
    });
  }
  const { index, size } = ctx;
  if (startByte > size) {
    throw new FolioError('out_of_bounds', `start_byte ${startByte} is past the end of the file (${size} bytes)`, { start_byte: startByte, size });
  }
  const adjustments: Adjustment[] = [];
  let start = startByte;
  let end = endByte;
  if (end > size) {
    adjustments.push({ edge: 'end', from: end, to: size, reason: `end_byte is past the end of the file (${size} bytes)` });
    end = size;
  }
  if (end - start > ctx.cap) {
    adjustments.push({ edge: 'end', from: end, to: start + ctx.cap, reason: `at most ${ctx.cap} bytes per read` });
    end = start + ctx.cap;
  }
  const { codec } = ctx;
  // Multi-byte legacy encodings are decoded forward from the line start to find boundaries.
  const floor = codec.selfSynchronizing || start >= size ? 0 : startOfLine(index, index.lineAt(start));
  const s = start < size ? codec.snapBack(index.path, floor, start) : start;
  if (s !== start) {
    adjustments.push({ edge: 'start', from: start, to: s, reason: `start_byte ${start} is inside a ${charWord(codec)} that starts at ${s}` });
    start = s;
  }
  const e = end > start && end < size ? codec.snapForward(index.path, start, end, size) : end;
  if (e !== end) {
    adjustments.push({ edge: 'end', from: end, to: e, reason: `end_byte ${end} is inside a ${charWord(codec)} that ends at ${e}` });
    end = e;
  }
  if (start < ctx.bomLen && end > 0) {
    adjustments.push({ edge: 'start', from: start, to: Math.min(ctx.bomLen, end), reason: 'the byte-order mark is not content' });
  }
  const content = end > start ? spanText(ctx, start, end) : '';
  return {
    content,
    startLine: end > start ? index.lineAt(start) + 1 : null,
    endLine: end > start ? index.lineAt(end - 1) + 1 : null,
    startByte: start,
    endByte: end,
    fileSize: size,
    requestedRange: { startByte, endByte },
    actualRange: { startByte: start, endByte: end },
    adjustments,
    isPartial: !(start === 0 && end === size),
    percentOfFile: size === 0 ? 100 : Math.round(((end - start) / size) * 10000) / 100,
  };
}
