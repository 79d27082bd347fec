/**
 * The whole-file search both the find panel (find-store.ts) and the filter view
 * (filter-store.ts) run: the engine's `search` in byte slices, so that results
 * fill in and progress shows while a big file is searched, each slice starting
 * where the last one stopped; and a count of the rest of the file (count_only)
 * for the total. Each store keeps its own policy (page sizes, what a stale answer
 * does, how errors show); this is the slicing they share.
 */
import type { SearchOutput } from '../../src-main/api/schemas.ts';
import { call } from '../transport.ts';

/** Bytes searched by the first call of a run: small enough that results fill in soon on a big file. */
export const SLICE_BYTES = 128 * 1024 * 1024;
/** The most bytes one call searches. */
export const MAX_SLICE_BYTES = 512 * 1024 * 1024;

/**
 * The slice after one of `bytes`: twice as long, up to MAX_SLICE_BYTES. Each call
 * costs a round trip and a start of the server's search workers (16 calls of 128
 * MiB made a find with no match over 2 GiB 814 ms against 444 ms for one call);
 * doubling keeps the first results as soon and progress moving, in 6 calls; the cap bounds what a stale call (the pattern changed) still costs the server.
 */
export const nextSliceBytes = (bytes: number) => Math.min(MAX_SLICE_BYTES, bytes * 2);

/** The pattern and file a search is for. */
export interface SearchTarget {
  path: string;
  pattern: string;
  caseSensitive: boolean;
}

/** The `search` input for `target` over [startByte, endByte): the one place a run's calls are built. */
const searchInputOf = (target: SearchTarget, startByte: number, endByte: number) => ({
  path: target.path,
  pattern: target.pattern,
  ...(target.caseSensitive ? {} : { flags: 'i' }),
  start_byte: startByte,
  end_byte: endByte,
});

/**
 * Up to `max` matching lines in [startByte, endByte), and where the next slice
 * starts: after the last line returned when the answer was cut at `max`, else
 * after the bytes scanned (at least one byte on, so a slice never repeats).
 */
export async function searchSlice(
  target: SearchTarget,
  startByte: number,
  endByte: number,
  max: number,
  maxLineChars: number,
  signal?: AbortSignal,
): Promise<{ matches: SearchOutput['matches']; next: number }> {
  const answer = await call('search', { ...searchInputOf(target, startByte, endByte), max, max_line_chars: maxLineChars }, signal);
  const next = answer.truncated && answer.next_start_byte !== null ? answer.next_start_byte : Math.max(answer.scanned.end_byte, startByte + 1);
  return { matches: answer.matches, next };
}

/**
 * Count the matching lines from `startByte` to the end of the file, a slice at a
 * time; `onSlice` gets each slice's count and how far the count reached. Stops
 * (dropping the answer on its way) as soon as `stillWanted` says no. A slice that
 * fails while the count is still wanted and not cancelled (a busy server's
 * `timeout`, a dropped connection) is asked again once, from where the count
 * reached; a second failure is thrown, for the store to show.
 */
export async function countToEnd(
  target: SearchTarget,
  startByte: number,
  fileBytes: () => number,
  stillWanted: () => boolean,
  onSlice: (count: number, reached: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  let start = startByte;
  let slice = SLICE_BYTES;
  let retried = false;
  while (start < fileBytes() && stillWanted()) {
    let counted: { count: number; end: number };
    try {
      counted = await countRange(target, start, Math.min(fileBytes(), start + slice), signal);
    } catch (err) {
      if (retried || signal?.aborted || !stillWanted()) throw err;
      retried = true;
      continue;
    }
    if (!stillWanted()) return;
    slice = nextSliceBytes(slice);
    start = Math.max(counted.end, start + 1);
    onSlice(counted.count, Math.min(start, fileBytes()));
  }
}

/**
 * How many lines match in [startByte, endByte), and the line start the count
 * reached (the first line start at or after endByte, or the file's end): with
 * the rows before startByte, a checkpoint of the filtered list there.
 */
export async function countRange(target: SearchTarget, startByte: number, endByte: number, signal?: AbortSignal): Promise<{ count: number; end: number }> {
  const answer = await call('search', { ...searchInputOf(target, startByte, endByte), count_only: true }, signal);
  return { count: answer.count, end: answer.scanned.end_byte };
}
