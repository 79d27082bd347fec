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

/** Bytes searched per call: small enough that results fill in while a 1 GiB file is searched. */
export const SLICE_BYTES = 128 * 1024 * 1024;

/** The pattern and file a search is for. */
export interface SearchTarget {
  path: string;
  pattern: string;
  caseSensitive: boolean;
}

const flagsOf = (target: SearchTarget) => (target.caseSensitive ? {} : { flags: 'i' });

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
): Promise<{ matches: SearchOutput['matches']; next: number }> {
  const answer = await call('search', {
    path: target.path,
    pattern: target.pattern,
    ...flagsOf(target),
    start_byte: startByte,
    end_byte: endByte,
    max,
    max_line_chars: maxLineChars,
  });
  const next = answer.truncated && answer.next_start_byte !== null ? answer.next_start_byte : Math.max(answer.scanned.end_byte, startByte + 1);
  return { matches: answer.matches, next };
}

/**
 * Count the matching lines from `startByte` to the end of the file, a slice at a
 * time; `onSlice` gets each slice's count and how far the count reached. Stops
 * (dropping the answer on its way) as soon as `stillWanted` says no.
 */
export async function countToEnd(
  target: SearchTarget,
  startByte: number,
  fileBytes: () => number,
  stillWanted: () => boolean,
  onSlice: (count: number, reached: number) => void,
): Promise<void> {
  let start = startByte;
  while (start < fileBytes() && stillWanted()) {
    const answer = await call('search', {
      path: target.path,
      pattern: target.pattern,
      ...flagsOf(target),
      start_byte: start,
      end_byte: Math.min(fileBytes(), start + SLICE_BYTES),
      count_only: true,
    });
    if (!stillWanted()) return;
    start = Math.max(answer.scanned.end_byte, start + 1);
    onSlice(answer.count, Math.min(start, fileBytes()));
  }
}
