/**
 * Char-budget pages: the file cut into pages that cover every byte exactly once,
 * so pages joined back together equal the file whatever the budget.
 *
 * Page N+1 starts where page N ends. From its start, a page holds:
 * - the longest run of whole lines whose characters (code points, in the file's
 *   encoding; the BOM is not content) fit the budget and whose bytes fit the cap;
 * - else, when the first line alone is over the budget but within the cap, that
 *   whole line, over the budget (`overBudget`): a line is cut only when it must be;
 * - else (a line longer than the cap, or the rest of a line that an earlier page
 *   cut, over the budget), the longest piece of it within both, cut at a character
 *   boundary: the page ends mid-line and the next one continues the line.
 * So the budget holds except for a whole line alone on its page, and the cap always.
 *
 * Finding page N means walking pages 1..N-1 (their characters must be counted);
 * the page starts are remembered per version, budget and cap, so any page seen
 * once is one small read away.
 */
import { isUtf8 } from 'node:buffer';
import { FolioError } from '../errors.ts';
import { localKernels } from '../kernels/local-kernels.ts';
import { codePoints, readBytes } from '../text/window.ts';
import { endOfLineWithNl, invalidRange, linesText, spanText, startOfLine, type ReadContext } from './read-context.ts';
import type { LineCut, ReadResult } from './read-result.ts';

/** Bytes read at a time while counting a page's characters. */
const SCAN_STEP = 64 * 1024;
/** A character takes at most 4 bytes (UTF-8, UTF-16 pairs, GB18030), so `budget` characters fit in 4 * budget bytes. */
const MAX_BYTES_PER_CHAR = 4;

// Page start bytes per (version, budget, cap): page k+1 starts where page k ends.
const pageStarts = new Map<string, number[]>();

/** Characters of bytes [start, end) of the file, decoded as reads decode them (not reported: the answer's own decode reports). */
function charsOf(ctx: ReadContext, start: number, end: number): number {
  const s = Math.max(start, ctx.bomLen);
  if (end <= s) return 0;
  return codePoints(ctx.codec.decode(readBytes(ctx.index.path, s, end), s, 'replace').text);
}

/**
 * The end of the longest run of whole lines from `start` (its newline included; the
 * file's end counts for a last line without one), ending by `limit`, holding at most
 * `budget` characters; -1 if not even the first line fits.
 */
function wholeLinesEnd(ctx: ReadContext, start: number, limit: number, budget: number): number {
  const { codec, size } = ctx;
  const unit = codec.unit;
  let best = -1;
  let pos = Math.max(start, ctx.bomLen);
  let total = 0;
  let step = SCAN_STEP;
  while (pos < limit) {
    const hi = Math.min(limit, pos + step);
    const buf = readBytes(ctx.index.path, pos, hi);
    const last = codec.lastIndexOfNewline(buf);
    let upTo = last >= 0 ? last + unit : -1;
    if (upTo < 0 && hi === size) {
      upTo = buf.length; // the last line, without a newline
    } else if (upTo < 0 && hi === limit) {
      break; // no line ends before the limit
    } else if (upTo < 0) {
      step *= 2; // a line longer than the step: read more of it
      continue;
    }
    const seg = buf.subarray(0, upTo);
    const room = budget - total;
    if (room <= 0) return best;
    if (codec.encoding === 'utf-8' && isUtf8(seg)) {
      // Valid UTF-8 (most files): a character starts at every byte but a continuation byte; counted by the kernels.
      const k = localKernels();
      k.input.set(seg);
      const over = k.findNthChar(0, seg.length, room + 1);
      if (over < 0) {
        best = pos + upTo;
        total += k.countChars(0, seg.length);
        pos += upTo;
        step = SCAN_STEP;
        continue;
      }
      const nl = codec.lastIndexOfNewline(seg, over);
      return nl >= 0 ? pos + nl + unit : best;
    }
    // Any encoding: decode, and pair the k-th '\n' of the text with the k-th newline
    // unit of the bytes (a newline never belongs to another character).
    const text = codec.decode(seg, pos, 'replace').text;
    let at = 0;
    let from = 0;
    while (from < text.length) {
      const nl = text.indexOf('\n', from);
      const to = nl < 0 ? text.length : nl + 1;
      total += codePoints(text.slice(from, to));
      if (total > budget) return best;
      at = nl < 0 ? upTo : codec.indexOfNewline(seg, at) + unit;
      best = pos + at;
      from = to;
    }
    pos += upTo;
    step = SCAN_STEP;
  }
  return best;
}

/**
 * The end of the longest piece of [start, end) (inside one line, start a character
 * boundary) holding at most `budget` characters, at a character boundary; at least
 * one character.
 */
function cutAt(ctx: ReadContext, start: number, end: number, budget: number): number {
  const { codec } = ctx;
  const path = ctx.index.path;
  const floor = Math.max(start, ctx.bomLen);
  // Fast path: decode once, take `budget` characters, and check that they encode back to the same bytes.
  const buf = readBytes(path, floor, end);
  const text = codec.decode(buf, floor, 'replace').text;
  let i = 0;
  for (let n = 0; n < budget && i < text.length; n++) i += (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
  const prefix = codec.encode(text.slice(0, i));
  let cut: number;
  if (prefix.length <= buf.length && Buffer.compare(prefix, buf.subarray(0, prefix.length)) === 0 && !text.slice(0, i).includes('\uFFFD')) {
    cut = floor + prefix.length;
  } else {
    // Invalid bytes or an encoding that does not round-trip: search the byte offset.
    let lo = floor;
    let hi = end;
    while (lo < hi) {
      const mid = codec.snapBack(path, floor, Math.ceil((lo + hi + 1) / 2));
      if (mid <= lo) break;
      if (charsOf(ctx, floor, mid) <= budget) lo = mid;
      else hi = mid - 1;
    }
    cut = codec.snapBack(path, floor, lo);
  }
  if (cut <= floor) cut = codec.snapForward(path, floor, floor + codec.unit, end);
  return Math.min(cut, end);
}

/** Where the page starting at `start` ends, and whether it is one whole line over the budget. */
function pageEnd(ctx: ReadContext, start: number, budget: number): { end: number; overBudget: boolean } {
  const { index, size, cap } = ctx;
  const limit = Math.min(size, Math.max(start, ctx.bomLen) + Math.min(cap, MAX_BYTES_PER_CHAR * budget));
  const fit = wholeLinesEnd(ctx, start, limit, budget);
  if (fit > start) return { end: fit, overBudget: false };
  // The first line does not fit: whole if it is whole and within the cap, else cut.
  const lineIdx = index.lineAt(start);
  const eol = endOfLineWithNl(index, lineIdx, size);
  if (start <= Math.max(startOfLine(index, lineIdx), ctx.bomLen) && eol - start <= cap) return { end: eol, overBudget: true };
  return { end: cutAt(ctx, start, Math.min(eol, start + cap), budget), overBudget: false };
}

function pageStartsOf(ctx: ReadContext, budget: number): number[] {
  // The encoding too: a verdict made before the index finished may change once it has (encoding-detect.ts).
  const key = `${ctx.facts.version.etag}:${ctx.codec.encoding}:${ctx.bomLen}:${budget}:${ctx.cap}`;
  let starts = pageStarts.get(key);
  if (!starts) {
    if (pageStarts.size > 256) pageStarts.clear();
    pageStarts.set(key, (starts = [0]));
  }
  return starts;
}

export function readPage(ctx: ReadContext, page: number, pageChars: number): Partial<ReadResult> {
  if (!Number.isInteger(page) || page < 1) throw invalidRange(`page must be a whole number >= 1, got ${page}`, { page });
  if (!Number.isInteger(pageChars) || pageChars < 1) throw invalidRange(`page_chars must be >= 1, got ${pageChars}`, { page_chars: pageChars });
  const { index, size } = ctx;
  if (size <= ctx.bomLen) {
    if (page > 1) throw new FolioError('beyond_end', `page ${page} is past the end: the file fits in page 1`, { page, last_page: 1 });
    return {
      content: '',
      startLine: null,
      endLine: null,
      startByte: 0,
      endByte: size,
      page: 1,
      nextPage: null,
      chars: 0,
      startsMidLine: false,
      endsMidLine: false,
    };
  }
  const starts = pageStartsOf(ctx, pageChars);
  const step = (s: number) => pageEnd(ctx, s, pageChars).end;
  while (starts.length < page && starts.at(-1)! < size) starts.push(step(starts.at(-1)!));
  const start = starts[page - 1];
  if (start === undefined || start >= size) {
    while (starts.at(-1)! < size) starts.push(step(starts.at(-1)!));
    const last = starts.length - 1;
    throw new FolioError('beyond_end', `page ${page} is past the end: the last page is ${last}`, { page, last_page: last });
  }
  const { end, overBudget } = pageEnd(ctx, start, pageChars);
  if (starts.length === page) starts.push(end);

  const lineIdx = index.lineAt(start);
  const lineNo = lineIdx + 1;
  const lineStart = startOfLine(index, lineIdx);
  const startsMidLine = start > Math.max(lineStart, ctx.bomLen);
  const lastIdx = index.lineAt(end - 1);
  const lastEol = endOfLineWithNl(index, lastIdx, size);
  const endsMidLine = end < lastEol;
  // A piece of the line the page starts in, then whole lines (the last maybe cut).
  const firstEnd = startsMidLine ? Math.min(end, endOfLineWithNl(index, lineIdx, size)) : start;
  let content = '';
  if (startsMidLine) content += (ctx.opts.hashlines ? `${lineNo}#???|` : '') + spanText(ctx, start, firstEnd);
  if (firstEnd < end) content += linesText(ctx, firstEnd, end, index.lineAt(firstEnd) + 1, !endsMidLine);

  const cutLine = startsMidLine ? lineIdx : endsMidLine ? lastIdx : -1;
  let lineCut: LineCut | undefined;
  if (cutLine >= 0) {
    const cutStart = startOfLine(index, cutLine);
    lineCut = {
      lineNo: cutLine + 1,
      lineStartByte: cutStart,
      lineEndByte: index.lineEnd(cutLine),
      startsMidLine: cutLine === lineIdx && startsMidLine,
      endsMidLine: cutLine === lastIdx && endsMidLine,
    };
  }
  const chars = charsOf(ctx, start, end);
  if (pageChars > ctx.cap) ctx.notes.push(`page_chars ${pageChars} is over the ${ctx.cap}-byte cap: a page holds at most ${ctx.cap} bytes`);
  if (startsMidLine)
    ctx.notes.push(`page ${page} starts inside line ${lineNo} (bytes ${lineStart}-${index.lineEnd(lineIdx)}), continued from page ${page - 1}`);
  if (endsMidLine) {
    ctx.notes.push(
      `page ${page} ends inside line ${lastIdx + 1} (bytes ${startOfLine(index, lastIdx)}-${index.lineEnd(lastIdx)}) at byte ${end}; page ${page + 1} continues it`,
    );
  }
  if (overBudget)
    ctx.notes.push(`page ${page} is line ${lineNo} alone, ${chars} characters: over the ${pageChars}-character budget, a whole line within the cap is not cut`);
  return {
    content,
    startLine: lineNo,
    endLine: lastIdx + 1,
    startByte: start,
    endByte: end,
    page,
    nextPage: end < size ? page + 1 : null,
    chars,
    startsMidLine,
    endsMidLine,
    ...(overBudget ? { overBudget } : {}),
    truncated: endsMidLine,
    ...(lineCut ? { lineCut } : {}),
    ...(endsMidLine ? { nextStartByte: end } : {}),
  };
}
