/**
 * Char-budget pages. Pages are planned in bytes (a character is at least one
 * byte, so a page of B bytes never holds more than B characters), which lets page
 * N be found from the index and page boundaries be remembered per version without
 * reading content. One line longer than a page is its own page, shown up to the
 * cap with a LineCut.
 */
import { FolioError } from '../errors.ts';
import { codePoints } from '../text/window.ts';
import { endOfLineWithNl, invalidRange, lastNewlineBefore, linesText, spanText, windowFrom, type ReadContext } from './read-context.ts';
import type { LineCut, ReadResult } from './read-result.ts';

// Page start bytes per (version, budget): page k+1 starts where page k ends.
const pageStarts = new Map<string, number[]>();

function pagePlan(ctx: ReadContext, budget: number): { starts: number[]; step: (s: number) => number } {
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

export function readPage(ctx: ReadContext, page: number, pageChars: number): Partial<ReadResult> {
  if (!Number.isInteger(page) || page < 1) throw invalidRange(`page must be a whole number >= 1, got ${page}`, { page });
  if (!Number.isInteger(pageChars) || pageChars < 1) throw invalidRange(`page_chars must be >= 1, got ${pageChars}`, { page_chars: pageChars });
  const { index, size } = ctx;
  // Fits: the whole file is page 1 (checked in characters when the bytes could fit).
  if (size <= pageChars * 4) {
    const all = spanText(ctx, 0, size);
    if (codePoints(all) <= pageChars) {
      if (page > 1) throw new FolioError('beyond_end', `page ${page} is past the end: the file fits in page 1`, { page, last_page: 1 });
      const content = ctx.opts.hashlines ? linesText(ctx, 0, size, 1, true) : all;
      return {
        content,
        startLine: size ? 1 : null,
        endLine: size ? index.lineCount : null,
        startByte: 0,
        endByte: size,
        page: 1,
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
  const startLine = index.lineAt(start) + 1;
  let contentEnd = end;
  let cut: LineCut | undefined;
  if (end - start > Math.max(ctx.cap, pageChars)) {
    const w = windowFrom(ctx, start, pageChars);
    contentEnd = w.end;
    cut = w.cut;
    if (cut) ctx.notes.push(`page ${page} is one line of ${end - start} bytes: shown up to byte ${w.end}; continue inside it with start_byte ${w.end}`);
  }
  const content = cut ? spanText(ctx, start, contentEnd) : linesText(ctx, start, contentEnd, startLine, true);
  return {
    content,
    startLine,
    endLine: index.lineAt(end - 1) + 1,
    startByte: start,
    endByte: contentEnd,
    page,
    nextPage: end < size ? page + 1 : null,
    chars: codePoints(content),
    truncated: Boolean(cut),
    ...(cut ? { lineCut: cut, nextStartByte: contentEnd } : {}),
  };
}
