/**
 * Reads addressed by lines: ranges (1-based, inclusive; overlapping or adjacent
 * ranges merge), head and tail. A range starting past the last line is
 * out_of_bounds; an end past it is clamped (clamped: true). Answers stop at the
 * cap at a whole line, with a note saying what to ask next; a single line longer
 * than the cap comes back cut, with a LineCut and nextStartByte to continue.
 */
import { FolioError } from '../errors.ts';
import { readBytes } from '../text/window.ts';
import { checkNonNegInt, cutNote, invalidRange, linesText, spanText, startOfLine, windowFrom, type ReadContext } from './read-context.ts';
import type { LineCut, RangeContent, ReadResult } from './read-result.ts';

export function readLines(ctx: ReadContext, ranges: { start: number; end: number }[]): Partial<ReadResult> {
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
        ctx.notes.push(
          `lines ${r.start}-${r.end} cut after line ${endLine} at the ${ctx.cap}-byte cap; continue with ranges [{start: ${endLine + 1}, end: ${r.end}}]`,
        );
      }
    }
    const content = linesText(ctx, startByte, endByte, r.start, !cut);
    out.push({ startLine: r.start, endLine, startByte, endByte, content, clamped });
    budget -= endByte - startByte;
    if (clamped) ctx.notes.push(`range ${r.start}-${r.end} clamped to the last line, ${endLine}`);
  }
  const first = out[0]!;
  const last = out.at(-1)!;
  // Each text is sent once: one range is the answer's content; several are ranges[i].content (content then empty).
  return {
    content: out.length === 1 ? first.content : '',
    ...(out.length > 1 ? { ranges: out } : {}),
    startLine: first.startLine,
    endLine: last.endLine,
    startByte: first.startByte,
    endByte: last.endByte,
    truncated,
    ...(cut ? { lineCut: cut, nextStartByte: nextStart ?? null } : {}),
  };
}

export function readHead(ctx: ReadContext, n: number): Partial<ReadResult> {
  checkNonNegInt('head', n);
  if (n === 0 || ctx.size === 0) return { content: '', startLine: null, endLine: null, startByte: 0, endByte: 0 };
  const r = readLines(ctx, [{ start: 1, end: n }]);
  delete r.ranges;
  return r;
}

/** Start byte of the last n lines, found by scanning back from the end (no index needed). */
function tailStart(ctx: ReadContext, n: number): number {
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

export function readTail(ctx: ReadContext, n: number): Partial<ReadResult> {
  checkNonNegInt('tail', n);
  const { index, size } = ctx;
  if (n === 0 || size === 0) return { content: '', startLine: null, endLine: null, startByte: size, endByte: size };
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
        content: spanText(ctx, start, size),
        startLine: lineIdx + 1,
        endLine: lineIdx + 1,
        startByte: start,
        endByte: size,
        truncated: true,
        lineCut: {
          lineNo: lineIdx + 1,
          lineStartByte: startOfLine(index, lineIdx),
          lineEndByte: index.lineEnd(lineIdx),
          startsMidLine: true,
          endsMidLine: false,
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
    startLine,
    endLine,
    startByte: start,
    endByte: size,
    truncated,
  };
}
