/**
 * Next / previous line matching a pattern over the whole file, from a line, with
 * the engine's search (never only the loaded window): the lines right after (or
 * before) the current one first, then byte slices growing eightfold, so a match
 * nearby answers in one small search and one far away costs a few big ones.
 * Backwards, the last match of a slice is found by halving the slice while it
 * holds more matches than one answer carries. Past the end it wraps around.
 */

/** The subset of the `search` operation this needs (renderer: `call('search', …)`; tests: the api). */
export type StepSearch = (input: {
  pattern: string;
  start_line?: number;
  end_line?: number;
  start_byte?: number;
  end_byte?: number;
  max: number;
}) => Promise<{ matches: { line: number }[]; truncated: boolean; next_start_byte: number | null; scanned: { start_byte: number; end_byte: number } }>;

export interface StepRequest {
  pattern: string;
  /** the current line (1-based); the step starts after (or before) it */
  fromLine: number;
  direction: 1 | -1;
  totalLines: number;
  fileBytes: number;
}

/** The line found, and whether it was found by going around the end of the file; null when no line matches. */
export type StepResult = { lineNo: number; wrapped: boolean } | null;

/** Lines searched first, next to the current one. */
export const NEAR_LINES = 2_000;
export const FIRST_SLICE_BYTES = 1 << 20;
export const MAX_SLICE_BYTES = 256 << 20;
/** Matches per backward search: past it the slice is halved. */
const BACK_MAX = 1_000;
/** Below this a slice is paged through instead of halved. */
const MIN_HALVING_BYTES = 64 << 10;

const grow = (slice: number) => Math.min(MAX_SLICE_BYTES, slice * 8);

/** The first matching line in [fromByte, toByte), slice by slice. */
async function firstIn(search: StepSearch, pattern: string, fromByte: number, toByte: number): Promise<number | null> {
  let pos = fromByte;
  let slice = FIRST_SLICE_BYTES;
  while (pos < toByte) {
    const r = await search({ pattern, start_byte: pos, end_byte: Math.min(toByte, pos + slice), max: 1 });
    if (r.matches[0]) return r.matches[0].line;
    pos = Math.max(r.scanned.end_byte, pos + 1);
    slice = grow(slice);
  }
  return null;
}

/** The last matching line in [fromByte, toByte). */
async function lastInRange(search: StepSearch, pattern: string, fromByte: number, toByte: number): Promise<number | null> {
  let lo = fromByte;
  let hi = toByte;
  for (;;) {
    const r = await search({ pattern, start_byte: lo, end_byte: hi, max: BACK_MAX });
    if (!r.truncated) {
      const last = r.matches.at(-1)?.line ?? null;
      if (last !== null || lo === fromByte) return last;
      // [lo, hi) holds none, so [fromByte, lo) holds the many that made us halve.
      hi = lo;
      lo = fromByte;
      continue;
    }
    if (hi - lo <= MIN_HALVING_BYTES) {
      let page = r;
      while (page.truncated && page.next_start_byte !== null) {
        const next = await search({ pattern, start_byte: page.next_start_byte, end_byte: hi, max: BACK_MAX });
        if (next.matches.length === 0) break;
        page = next;
      }
      return page.matches.at(-1)?.line ?? null;
    }
    fromByte = lo;
    lo = lo + Math.floor((hi - lo) / 2);
  }
}

/** The last matching line in [fromByte, toByte), slices growing from the end. */
async function lastIn(search: StepSearch, pattern: string, fromByte: number, toByte: number): Promise<number | null> {
  let pos = toByte;
  let slice = FIRST_SLICE_BYTES;
  while (pos > fromByte) {
    const start = Math.max(fromByte, pos - slice);
    const found = await lastInRange(search, pattern, start, pos);
    if (found !== null) return found;
    // The search snaps `start` back to its line start: continue from there.
    const r = await search({ pattern, start_byte: start, end_byte: start, max: 1 });
    pos = Math.min(start, r.scanned.start_byte);
    slice = grow(slice);
  }
  return null;
}

export async function stepToMatch(search: StepSearch, req: StepRequest): Promise<StepResult> {
  const { pattern, fromLine, totalLines, fileBytes } = req;
  if (totalLines === 0) return null;
  if (req.direction > 0) {
    let afterByte = fileBytes;
    if (fromLine < totalLines) {
      const near = await search({ pattern, start_line: fromLine + 1, end_line: Math.min(totalLines, fromLine + NEAR_LINES), max: 1 });
      if (near.matches[0]) return { lineNo: near.matches[0].line, wrapped: false };
      afterByte = near.scanned.start_byte;
      const later = await firstIn(search, pattern, near.scanned.end_byte, fileBytes);
      if (later !== null) return { lineNo: later, wrapped: false };
    }
    const wrapped = await firstIn(search, pattern, 0, afterByte);
    return wrapped === null ? null : { lineNo: wrapped, wrapped: true };
  }
  let fromByte = 0;
  if (fromLine > 1) {
    const near = await search({ pattern, start_line: Math.max(1, fromLine - NEAR_LINES), end_line: fromLine - 1, max: 1 });
    fromByte = near.scanned.end_byte;
    const nearLast = await lastInRange(search, pattern, near.scanned.start_byte, near.scanned.end_byte);
    if (nearLast !== null) return { lineNo: nearLast, wrapped: false };
    const earlier = await lastIn(search, pattern, 0, near.scanned.start_byte);
    if (earlier !== null) return { lineNo: earlier, wrapped: false };
  }
  const wrapped = await lastIn(search, pattern, fromByte, fileBytes);
  return wrapped === null ? null : { lineNo: wrapped, wrapped: true };
}
