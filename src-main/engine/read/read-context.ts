/**
 * One read in progress: the file's facts, codec and cap, the notes and the
 * invalid-byte report the answer gathers, and the byte-level steps every mode
 * shares (decode a span, hashline whole lines, find the last whole line that
 * fits, cut a line longer than the window).
 *
 * Every byte-level step goes through the file's codec (text/codec.ts): in UTF-16
 * newlines are LF units and boundaries are even offsets outside surrogate pairs;
 * legacy encodings decode with iconv-lite. Offsets are always file bytes.
 */
import { FolioError } from '../errors.ts';
import type { FileFacts } from './file-facts.ts';
import type { LineIndex } from '../index/line-index.ts';
import type { TextCodec } from '../text/codec.ts';
import { readBytes, type InvalidUtf8Report } from '../text/window.ts';
import { hashlineText } from '../text/hashline.ts';
import type { LineCut, ReadOptions } from './read-result.ts';

export interface ReadContext {
  facts: FileFacts;
  index: LineIndex;
  size: number;
  opts: ReadOptions;
  /** content bytes this answer may hold */
  cap: number;
  notes: string[];
  invalid?: InvalidUtf8Report;
  codec: TextCodec;
  /** bytes of the BOM (skipped in content) */
  bomLen: number;
}

export function invalidRange(message: string, details: Record<string, unknown>): FolioError {
  return new FolioError('invalid_range', message, details);
}

/** Throws invalid_range unless `v` is a whole number >= 0 (`name` as the wire calls it). */
export function checkNonNegInt(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 0) throw invalidRange(`${name} must be a whole number >= 0, got ${v}`, { [name]: v });
}

/** 0-based line -> its start byte; -1 if there is no such line. */
export function startOfLine(index: LineIndex, lineIdx: number): number {
  return index.lineStart(lineIdx);
}

/** Byte just past line lineIdx including its newline (or the file end). */
export function endOfLineWithNl(index: LineIndex, lineIdx: number, size: number): number {
  const e = index.lineEnd(lineIdx);
  return e < size ? Math.min(size, e + index.unit) : size;
}

/** Decode bytes read from file offset `fileOffset`, adding any invalid UTF-8 to the answer's report. */
function decodeInto(ctx: ReadContext, bytes: Uint8Array, fileOffset: number): string {
  const { text: t, invalid } = ctx.codec.decode(bytes, fileOffset, ctx.opts.invalidUtf8 ?? 'replace');
  if (invalid) {
    if (ctx.invalid) ctx.invalid.replaced += invalid.replaced;
    else ctx.invalid = { ...invalid };
  }
  return t;
}

/** Decoded text of [start, end) of the file, skipping a BOM, recording invalid bytes. */
export function spanText(ctx: ReadContext, start: number, end: number): string {
  let buf = readBytes(ctx.index.path, start, end);
  let from = start;
  if (start < ctx.bomLen) {
    buf = buf.subarray(Math.min(buf.length, ctx.bomLen - start));
    from = ctx.bomLen;
  }
  return decodeInto(ctx, buf, from);
}

/** Content of whole lines [start, end) starting at 1-based line `lineNo`, with hashlines if asked. */
export function linesText(ctx: ReadContext, start: number, end: number, lineNo: number, lastLineWhole: boolean): string {
  if (!ctx.opts.hashlines) return spanText(ctx, start, end);
  const s = Math.max(start, ctx.bomLen);
  const buf = readBytes(ctx.index.path, s, end);
  let at = s; // hashlineText decodes the lines in order: each from its own file offset
  return hashlineText(
    buf,
    lineNo,
    lastLineWhole,
    (bytes) => {
      const t = decodeInto(ctx, bytes, at);
      at += bytes.length;
      return t;
    },
    ctx.codec,
  );
}

/** The start of the last whole line that ends within [start, limit): the byte after the last newline. */
export function lastNewlineBefore(ctx: ReadContext, start: number, limit: number): number {
  const STEP = 4096;
  const unit = ctx.codec.unit;
  limit -= (limit - start) % unit;
  for (let hi = limit; hi > start; hi -= STEP) {
    const lo = Math.max(start, hi - STEP);
    const buf = readBytes(ctx.index.path, lo, hi);
    const at = ctx.codec.lastIndexOfNewline(buf);
    if (at >= 0) return lo + at + unit;
  }
  return -1;
}

/**
 * Bytes from `start` (a line start, or inside a line longer than the cap) up to at
 * most `budget` bytes, ending at a whole line if any fits; else a UTF-8-safe cut
 * inside the long line, with its marker.
 */
export function windowFrom(ctx: ReadContext, start: number, budget: number): { end: number; cut?: LineCut } {
  const { size, index } = ctx;
  if (start + budget >= size) return { end: size };
  const end = lastNewlineBefore(ctx, start, start + budget);
  if (end > start) return { end };
  // No line ends inside the budget: the line from `start` is longer than the cap.
  let cutAt = ctx.codec.snapBack(index.path, start, start + budget);
  if (cutAt <= start) cutAt = ctx.codec.snapForward(index.path, start, start + 1, size); // budget smaller than one character
  const lineIdx = index.lineAt(start);
  const lineStartByte = lineIdx === 0 ? 0 : startOfLine(index, lineIdx);
  return {
    end: cutAt,
    cut: {
      lineNo: lineIdx + 1,
      lineStartByte,
      lineEndByte: index.lineEnd(lineIdx),
      startsMidLine: start > lineStartByte,
      endsMidLine: true,
    },
  };
}

export function cutNote(cut: LineCut, end: number): string {
  return `line ${cut.lineNo} (bytes ${cut.lineStartByte}-${cut.lineEndByte}) is longer than the window: cut at byte ${end}; continue inside it with start_byte ${end}`;
}
