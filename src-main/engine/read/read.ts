/**
 * read: any window of any file, by line ranges, byte window, exact bytes, char
 * pages, head/tail, or the whole file under a limit. Every answer carries the
 * file's version, encoding, newline style and total lines (or indexing progress).
 *
 * Policies (documented in docs/API.md):
 * - Line ranges are 1-based and inclusive; overlapping or adjacent ranges merge. A
 *   range starting past the last line is out_of_bounds; an end past it is clamped
 *   (clamped: true).
 * - Byte windows start at the start of the line holding start_byte, unless that line
 *   is longer than max_bytes: then at start_byte itself (snapped back to a character
 *   start), so paging by next_start_byte visits every byte exactly once, long lines
 *   included. start_byte past the end is out_of_bounds; at the end, empty.
 * - Exact bytes snap start back and end forward to character boundaries, and clamp
 *   end to the file size and to the 256 KiB cap, each adjustment with its reason.
 * - Pages are planned in bytes (a character is at least one byte, so a page of
 *   B bytes never holds more than B characters), which lets page N be found from
 *   the index and page boundaries be remembered per version without reading content.
 * - Every answer is at most max_bytes (cap 256 KiB) of content, except `full` (up to
 *   its own limit); a longer answer is cut at a whole line with a note saying what to
 *   ask next, and a single line longer than the cap comes back as a bounded slice
 *   with an explicit `line_cut` marker and next_start_byte to continue inside it.
 * - The BOM is never part of content (`bom: true` says it is there).
 * - Every byte-level step goes through the file's codec (text-codec.ts): in UTF-16
 *   newlines are LF units and boundaries are even offsets outside surrogate pairs;
 *   legacy encodings decode with iconv-lite. Offsets are always file bytes.
 */
import { FolioError } from '../errors.ts';
import { binaryFileError, factsOf, type Encoding, type FileFacts, type Version } from './file-facts.ts';
import type { LineIndex, NewlineStyle } from '../index/line-index.ts';
import { codecFor, type TextCodec } from '../text/codec.ts';
import { codePoints, readBytes, type InvalidUtf8Policy, type InvalidUtf8Report } from '../text/window.ts';
import { hashlineText } from '../text/hashline.ts';

export const READ_LIMITS = {
  /** default byte window */
  defaultWindowBytes: 64 * 1024,
  /** hard cap of content bytes in one answer (not `full`) */
  maxWindowBytes: 256 * 1024,
  /** default char budget of a page */
  defaultPageChars: 50_000,
  /** largest file `full: true` returns */
  maxFullBytes: 8 * 1024 * 1024,
};

export type ReadRequest =
  | { mode: 'lines'; ranges: { start: number; end: number }[] }
  | { mode: 'bytes'; startByte: number; maxBytes?: number }
  | { mode: 'exact'; startByte: number; endByte: number }
  | { mode: 'page'; page: number; pageChars?: number }
  | { mode: 'head'; lines: number }
  | { mode: 'tail'; lines: number }
  | { mode: 'full' };

export interface ReadOptions {
  hashlines?: boolean;
  invalidUtf8?: InvalidUtf8Policy;
  /** read a file sniffed as binary anyway (decoded with replacement) */
  allowBinary?: boolean;
  /** content cap for this call (bytes), at most READ_LIMITS.maxWindowBytes */
  maxBytes?: number;
  /** largest file `full` returns for this call (a workspace cap), at most READ_LIMITS.maxFullBytes */
  maxFullBytes?: number;
}

export interface LineCut {
  /** 1-based line that is cut */
  line: number;
  line_start_byte: number;
  /** byte offset just past the line's content (its '\n' or the end of the file) */
  line_end_byte: number;
  starts_mid_line: boolean;
  ends_mid_line: boolean;
}

export interface RangeContent {
  start: number;
  end: number;
  start_byte: number;
  end_byte: number;
  content: string;
  clamped: boolean;
}

export interface Adjustment {
  edge: 'start' | 'end';
  from: number;
  to: number;
  reason: string;
}

export interface ReadResult {
  path: string;
  version: Version;
  encoding: Encoding;
  encoding_confidence?: number;
  bom: boolean;
  newline_style: NewlineStyle | null;
  total_lines: number | null;
  indexing: { bytesDone: number; totalBytes: number } | null;
  mode: ReadRequest['mode'];
  content: string;
  /** 1-based first and last line the content touches (null for an empty answer) */
  start_line: number | null;
  end_line: number | null;
  start_byte: number;
  end_byte: number;
  hashlines: boolean;
  notes: string[];
  truncated: boolean;
  line_cut?: LineCut;
  invalid_utf8?: InvalidUtf8Report;
  ranges?: RangeContent[];
  next_start_byte?: number | null;
  file_size?: number;
  requested_range?: { start_byte: number; end_byte: number };
  actual_range?: { start_byte: number; end_byte: number };
  adjustments?: Adjustment[];
  is_partial?: boolean;
  percent_of_file?: number;
  page?: number;
  lineStart?: number;
  lineEnd?: number;
  totalLines?: number | null;
  nextPage?: number | null;
  chars?: number;
}

// ---------------------------------------------------------------------------

interface Ctx {
  facts: FileFacts;
  index: LineIndex;
  size: number;
  opts: ReadOptions;
  cap: number;
  notes: string[];
  invalid?: InvalidUtf8Report;
  codec: TextCodec;
  /** bytes of the BOM (skipped in content) */
  bomLen: number;
}

function invalidRange(message: string, details: Record<string, unknown>): FolioError {
  return new FolioError('invalid_range', message, details);
}

function checkNonNegInt(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 0) throw invalidRange(`${name} must be a whole number >= 0, got ${v}`, { [name]: v });
}

/** 0-based line -> its start byte; -1 if there is no such line. */
function startOfLine(index: LineIndex, lineIdx: number): number {
  return index.lineStart(lineIdx);
}

/** Byte just past line lineIdx including its newline (or the file end). */
function endOfLineWithNl(index: LineIndex, lineIdx: number, size: number): number {
  const e = index.lineEnd(lineIdx);
  return e < size ? Math.min(size, e + index.unit) : size;
}

/** Decode bytes read from file offset `fileOffset`, adding any invalid UTF-8 to the answer's report. */
function decodeInto(ctx: Ctx, bytes: Uint8Array, fileOffset: number): string {
  const { text: t, invalid } = ctx.codec.decode(bytes, fileOffset, ctx.opts.invalidUtf8 ?? 'replace');
  if (invalid) {
    if (ctx.invalid) ctx.invalid.replaced += invalid.replaced;
    else ctx.invalid = { ...invalid };
  }
  return t;
}

/** Decode [start, end) of the file, skipping a BOM, recording invalid bytes. */
function text(ctx: Ctx, start: number, end: number): string {
  let buf = readBytes(ctx.index.path, start, end);
  let from = start;
  if (start < ctx.bomLen) {
    buf = buf.subarray(Math.min(buf.length, ctx.bomLen - start));
    from = ctx.bomLen;
  }
  return decodeInto(ctx, buf, from);
}

/** Content of whole lines [start, end) starting at 1-based line `lineNo`, with hashlines if asked. */
function linesText(ctx: Ctx, start: number, end: number, lineNo: number, lastLineWhole: boolean): string {
  if (!ctx.opts.hashlines) return text(ctx, start, end);
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
function lastNewlineBefore(ctx: Ctx, start: number, limit: number): number {
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

/** What a byte offset can be inside of, for adjustment reasons. */
function charWord(codec: TextCodec): string {
  return codec.unit === 2 ? 'UTF-16 code unit or surrogate pair' : 'multi-byte character';
}

/**
 * Bytes from `start` (a line start, or inside a line longer than the cap) up to at
 * most `budget` bytes, ending at a whole line if any fits; else a UTF-8-safe cut
 * inside the long line, with its marker.
 */
function windowFrom(ctx: Ctx, start: number, budget: number): { end: number; cut?: LineCut } {
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
      line: lineIdx + 1,
      line_start_byte: lineStartByte,
      line_end_byte: index.lineEnd(lineIdx),
      starts_mid_line: start > lineStartByte,
      ends_mid_line: true,
    },
  };
}

function cutNote(cut: LineCut, end: number): string {
  return `line ${cut.line} (bytes ${cut.line_start_byte}-${cut.line_end_byte}) is longer than the window: cut at byte ${end}; continue inside it with start_byte ${end}`;
}

// ---------------------------------------------------------------------------
// Modes

function readLines(ctx: Ctx, ranges: { start: number; end: number }[]): Partial<ReadResult> {
  if (ranges.length === 0) throw invalidRange('ranges must hold at least one {start, end}', { ranges });
  for (const r of ranges) {
    if (!Number.isInteger(r.start) || !Number.isInteger(r.end) || r.start < 1 || r.end < r.start) {
      throw invalidRange(`line range ${r.start}-${r.end} is invalid: lines are 1-based and start <= end`, { start: r.start, end: r.end });
    }
  }
  const merged: { start: number; end: number }[] = [];
  for (const r of [...ranges].sort((a, b) => a.start - b.start)) {
    const last = merged.at(-1);
    if (last && r.start <= last.end + 1) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  const { index, size } = ctx;
  const out: RangeContent[] = [];
  let budget = ctx.cap;
  let truncated = false;
  let cut: LineCut | undefined;
  let nextStart: number | undefined;
  for (const r of merged) {
    const startByte = startOfLine(index, r.start - 1);
    if (startByte < 0) {
      const total = index.complete ? index.lineCount : null;
      throw new FolioError('out_of_bounds', `line ${r.start} is past the end of the file (${total ?? 'unknown'} lines)`, {
        start: r.start,
        total_lines: total,
      });
    }
    if (budget <= 0) {
      truncated = true;
      ctx.notes.push(`range ${r.start}-${r.end} not read: the ${ctx.cap}-byte cap was reached; ask for it in another call`);
      continue;
    }
    // End of the requested last line (or the file).
    let endLine = r.end;
    let endByte = startOfLine(index, r.end);
    let clamped = false;
    if (endByte < 0) {
      endByte = size;
      const total = index.lineCount;
      clamped = r.end > total;
      endLine = Math.min(r.end, total);
    }
    if (endByte - startByte > budget) {
      const w = windowFrom(ctx, startByte, budget);
      truncated = true;
      if (w.cut) {
        cut = w.cut;
        nextStart = w.end;
        endByte = w.end;
        endLine = r.start;
        ctx.notes.push(cutNote(w.cut, w.end));
      } else {
        endByte = w.end;
        endLine = index.lineAt(endByte - 1) + 1;
        ctx.notes.push(`lines ${r.start}-${r.end} cut after line ${endLine} at the ${ctx.cap}-byte cap; continue with ranges [{start: ${endLine + 1}, end: ${r.end}}]`);
      }
    }
    const content = linesText(ctx, startByte, endByte, r.start, !cut);
    out.push({ start: r.start, end: endLine, start_byte: startByte, end_byte: endByte, content, clamped });
    budget -= endByte - startByte;
    if (clamped) ctx.notes.push(`range ${r.start}-${r.end} clamped to the last line, ${endLine}`);
  }
  const first = out[0]!;
  const last = out.at(-1)!;
  // Each text is sent once: one range is the answer's content; several are ranges[i].content (content then empty).
  return {
    content: out.length === 1 ? first.content : '',
    ...(out.length > 1 ? { ranges: out } : {}),
    start_line: first.start,
    end_line: last.end,
    start_byte: first.start_byte,
    end_byte: last.end_byte,
    truncated,
    ...(cut ? { line_cut: cut, next_start_byte: nextStart ?? null } : {}),
  };
}

function readByteWindow(ctx: Ctx, startByte: number, maxBytes: number): Partial<ReadResult> {
  checkNonNegInt('start_byte', startByte);
  if (!Number.isInteger(maxBytes) || maxBytes < 1) throw invalidRange(`max_bytes must be >= 1, got ${maxBytes}`, { max_bytes: maxBytes });
  const { index, size } = ctx;
  if (startByte > size) {
    throw new FolioError('out_of_bounds', `start_byte ${startByte} is past the end of the file (${size} bytes)`, { start_byte: startByte, size });
  }
  if (startByte === size) {
    return { content: '', start_line: null, end_line: null, start_byte: size, end_byte: size, next_start_byte: null };
  }
  const lineIdx = index.lineAt(startByte);
  const lineStartByte = startOfLine(index, lineIdx);
  const lineLen = endOfLineWithNl(index, lineIdx, size) - lineStartByte;
  const start = lineLen > maxBytes ? ctx.codec.snapBack(index.path, lineStartByte, startByte) : lineStartByte;
  const w = windowFrom(ctx, start, maxBytes);
  let cut = w.cut;
  if (!cut && start > lineStartByte) {
    // The tail of a long line, continued from a cursor.
    cut = { line: lineIdx + 1, line_start_byte: lineStartByte, line_end_byte: index.lineEnd(lineIdx), starts_mid_line: true, ends_mid_line: false };
  }
  if (w.cut) ctx.notes.push(cutNote(w.cut, w.end));
  const whole = start === lineStartByte;
  const content = whole && !w.cut ? linesText(ctx, start, w.end, lineIdx + 1, true) : text(ctx, start, w.end);
  return {
    content,
    start_line: lineIdx + 1,
    end_line: w.end > start ? index.lineAt(w.end - 1) + 1 : lineIdx + 1,
    start_byte: start,
    end_byte: w.end,
    next_start_byte: w.end < size ? w.end : null,
    truncated: Boolean(w.cut),
    ...(cut ? { line_cut: cut } : {}),
  };
}

function readExact(ctx: Ctx, startByte: number, endByte: number): Partial<ReadResult> {
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
  const content = end > start ? text(ctx, start, end) : '';
  return {
    content,
    start_line: end > start ? index.lineAt(start) + 1 : null,
    end_line: end > start ? index.lineAt(end - 1) + 1 : null,
    start_byte: start,
    end_byte: end,
    file_size: size,
    requested_range: { start_byte: startByte, end_byte: endByte },
    actual_range: { start_byte: start, end_byte: end },
    adjustments,
    is_partial: !(start === 0 && end === size),
    percent_of_file: size === 0 ? 100 : Math.round(((end - start) / size) * 10000) / 100,
  };
}

// Page boundaries per (version, budget): page k+1 starts where page k ends.
const pageStarts = new Map<string, number[]>();

function pagePlan(ctx: Ctx, budget: number): { starts: number[]; step: (s: number) => number } {
  const key = `${ctx.facts.version.etag}:${budget}`;
  let starts = pageStarts.get(key);
  if (!starts) {
    if (pageStarts.size > 256) pageStarts.clear();
    pageStarts.set(key, (starts = [0]));
  }
  const { index, size } = ctx;
  const step = (s: number): number => {
    if (s + budget >= size) return size;
    const e = lastNewlineBefore(ctx, s, s + budget);
    if (e > s) return e;
    return endOfLineWithNl(index, index.lineAt(s), size); // one oversized line is its own page
  };
  return { starts, step };
}

function readPage(ctx: Ctx, page: number, pageChars: number): Partial<ReadResult> {
  if (!Number.isInteger(page) || page < 1) throw invalidRange(`page must be a whole number >= 1, got ${page}`, { page });
  if (!Number.isInteger(pageChars) || pageChars < 1) throw invalidRange(`page_chars must be >= 1, got ${pageChars}`, { page_chars: pageChars });
  const { index, size } = ctx;
  const totalLines = index.complete ? index.lineCount : null;
  // Fits: the whole file is page 1 (checked in characters when the bytes could fit).
  if (size <= pageChars * 4) {
    const all = text(ctx, 0, size);
    if (codePoints(all) <= pageChars) {
      if (page > 1) throw new FolioError('beyond_end', `page ${page} is past the end: the file fits in page 1`, { page, last_page: 1 });
      const content = ctx.opts.hashlines ? linesText(ctx, 0, size, 1, true) : all;
      return {
        content,
        start_line: size ? 1 : null,
        end_line: size ? index.lineCount : null,
        start_byte: 0,
        end_byte: size,
        page: 1,
        lineStart: size ? 1 : 0,
        lineEnd: size ? index.lineCount : 0,
        totalLines,
        nextPage: null,
        chars: codePoints(all),
      };
    }
  }
  const { starts, step } = pagePlan(ctx, pageChars);
  while (starts.length < page && starts.at(-1)! < size) starts.push(step(starts.at(-1)!));
  const start = starts[page - 1];
  if (start === undefined || start >= size) {
    while (starts.at(-1)! < size) starts.push(step(starts.at(-1)!));
    const last = starts.length - 1;
    throw new FolioError('beyond_end', `page ${page} is past the end: the last page is ${last}`, { page, last_page: last });
  }
  const end = step(start);
  if (starts.length === page) starts.push(end);
  const lineStartNo = index.lineAt(start) + 1;
  let contentEnd = end;
  let cut: LineCut | undefined;
  if (end - start > Math.max(ctx.cap, pageChars)) {
    const w = windowFrom(ctx, start, pageChars);
    contentEnd = w.end;
    cut = w.cut;
    if (cut) ctx.notes.push(`page ${page} is one line of ${end - start} bytes: shown up to byte ${w.end}; continue inside it with start_byte ${w.end}`);
  }
  const content = cut ? text(ctx, start, contentEnd) : linesText(ctx, start, contentEnd, lineStartNo, true);
  const lineEndNo = index.lineAt(end - 1) + 1;
  return {
    content,
    start_line: lineStartNo,
    end_line: lineEndNo,
    start_byte: start,
    end_byte: contentEnd,
    page,
    lineStart: lineStartNo,
    lineEnd: lineEndNo,
    totalLines,
    nextPage: end < size ? page + 1 : null,
    chars: codePoints(content),
    truncated: Boolean(cut),
    ...(cut ? { line_cut: cut, next_start_byte: contentEnd } : {}),
  };
}

function readHead(ctx: Ctx, n: number): Partial<ReadResult> {
  checkNonNegInt('head', n);
  if (n === 0 || ctx.size === 0) return { content: '', start_line: null, end_line: null, start_byte: 0, end_byte: 0 };
  const r = readLines(ctx, [{ start: 1, end: n }]);
  delete r.ranges;
  return r;
}

/** Start byte of the last n lines, found by scanning back from the end (no index needed). */
function tailStart(ctx: Ctx, n: number): number {
  const STEP = 64 * 1024;
  const { codec, size } = ctx;
  const path = ctx.index.path;
  const unit = codec.unit;
  let need = n;
  let hi = size - (size % unit);
  // A final newline ends the last line; it does not start a new one.
  if (ctx.index.finalNewline) hi -= unit;
  while (hi > 0) {
    const lo = Math.max(0, hi - STEP);
    const buf = readBytes(path, lo, hi);
    for (let i = codec.lastIndexOfNewline(buf); i >= 0; i = codec.lastIndexOfNewline(buf, i)) {
      if (--need === 0) return lo + i + unit;
    }
    hi = lo;
  }
  return 0;
}

function readTail(ctx: Ctx, n: number): Partial<ReadResult> {
  checkNonNegInt('tail', n);
  const { index, size } = ctx;
  if (n === 0 || size === 0) return { content: '', start_line: null, end_line: null, start_byte: size, end_byte: size };
  const { codec } = ctx;
  let start = tailStart(ctx, n);
  let truncated = false;
  if (size - start > ctx.cap) {
    // Keep the last whole lines that fit: from the first line start inside the cap.
    truncated = true;
    const from = size - ctx.cap + ((size - ctx.cap) % codec.unit);
    const buf = readBytes(index.path, from, size);
    const nl = codec.indexOfNewline(buf.subarray(0, buf.length - (index.finalNewline ? codec.unit : 0)));
    if (nl < 0) {
      // The last line alone is longer than the cap: show its end.
      const floor = codec.selfSynchronizing ? from : startOfLine(index, index.lineAt(from));
      start = codec.snapForward(index.path, floor, from, size);
      const lineIdx = index.lineAt(start);
      ctx.notes.push(`the last line is longer than the ${ctx.cap}-byte cap: showing its last ${size - start} bytes`);
      return {
        content: text(ctx, start, size),
        start_line: lineIdx + 1,
        end_line: lineIdx + 1,
        start_byte: start,
        end_byte: size,
        truncated: true,
        line_cut: {
          line: lineIdx + 1,
          line_start_byte: startOfLine(index, lineIdx),
          line_end_byte: index.lineEnd(lineIdx),
          starts_mid_line: true,
          ends_mid_line: false,
        },
      };
    }
    start = from + nl + codec.unit;
  }
  const startLine = index.lineAt(start) + 1;
  const endLine = index.lineAt(size - 1) + 1;
  if (truncated) ctx.notes.push(`tail ${n} cut to lines ${startLine}-${endLine} at the ${ctx.cap}-byte cap`);
  return {
    content: linesText(ctx, start, size, startLine, true),
    start_line: startLine,
    end_line: endLine,
    start_byte: start,
    end_byte: size,
    truncated,
  };
}

function readFull(ctx: Ctx): Partial<ReadResult> {
  const { size, index } = ctx;
  const limit = Math.min(ctx.opts.maxFullBytes ?? READ_LIMITS.maxFullBytes, READ_LIMITS.maxFullBytes);
  if (size > limit) {
    throw new FolioError('too_large', `the file is ${size} bytes; full reads are limited to ${limit}`, {
      size,
      limit,
      hint: 'read it by pages, byte windows or line ranges',
    });
  }
  return {
    content: size ? linesText(ctx, 0, size, 1, true) : '',
    start_line: size ? 1 : null,
    end_line: size ? index.lineCount : null,
    start_byte: 0,
    end_byte: size,
  };
}

// ---------------------------------------------------------------------------

/**
 * All the text an answer holds, whatever its shape: several line ranges carry
 * their text in ranges[i].content (content is then empty), every other answer in
 * content. For callers that look at the text (redaction, token counts).
 */
export function answerText(r: Pick<ReadResult, 'content' | 'ranges'>): string {
  return r.ranges ? r.ranges.map((x) => x.content).join('') : r.content;
}

/** Read `path` as `req` asks. */
export async function read(path: string, req: ReadRequest, opts: ReadOptions = {}): Promise<ReadResult> {
  const facts = await factsOf(path);
  if (facts.verdict.isBinary && !opts.allowBinary) throw binaryFileError(facts);
  const cap = Math.min(opts.maxBytes ?? READ_LIMITS.maxWindowBytes, READ_LIMITS.maxWindowBytes);
  const codec = codecFor(facts.encoding);
  const bomLen = facts.encoding === 'binary' ? 0 : facts.index.bomLength;
  const ctx: Ctx = { facts, index: facts.index, size: facts.identity.size, opts, cap, notes: [], codec, bomLen };
  let part: Partial<ReadResult>;
  switch (req.mode) {
    case 'lines':
      part = readLines(ctx, req.ranges);
      break;
    case 'bytes': {
      let max = req.maxBytes ?? READ_LIMITS.defaultWindowBytes;
      if (max > READ_LIMITS.maxWindowBytes) {
        ctx.notes.push(`max_bytes ${max} clamped to the ${READ_LIMITS.maxWindowBytes}-byte cap`);
        max = READ_LIMITS.maxWindowBytes;
      }
      part = readByteWindow(ctx, req.startByte, max);
      break;
    }
    case 'exact':
      part = readExact(ctx, req.startByte, req.endByte);
      break;
    case 'page':
      part = readPage(ctx, req.page, req.pageChars ?? READ_LIMITS.defaultPageChars);
      break;
    case 'head':
      part = readHead(ctx, req.lines);
      break;
    case 'tail':
      part = readTail(ctx, req.lines);
      break;
    case 'full':
      part = readFull(ctx);
      break;
  }
  const index = facts.index;
  return {
    path: facts.identity.path,
    version: facts.version,
    encoding: facts.encoding,
    ...(facts.encodingConfidence !== undefined ? { encoding_confidence: facts.encodingConfidence } : {}),
    bom: facts.bom,
    newline_style: index.complete ? index.newlineStyle : null,
    total_lines: index.complete ? index.lineCount : null,
    indexing: facts.indexing,
    mode: req.mode,
    content: '',
    start_line: null,
    end_line: null,
    start_byte: 0,
    end_byte: 0,
    hashlines: Boolean(opts.hashlines),
    truncated: false,
    ...part,
    notes: ctx.notes,
    ...(ctx.invalid ? { invalid_utf8: ctx.invalid } : {}),
  };
}
