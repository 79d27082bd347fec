/**
 * The first line at or after a time: a binary search over the file's lines
 * through the line index, reading the head of a line per probe (O(log n) reads).
 * It is only right when the stamps are in order, so every probe is kept, with
 * sixteen evenly spaced samples taken first, and any two of them out of order end
 * the search with `not_ordered`, naming the two lines. Lines without a stamp
 * (stack traces, continuations) are skipped to the next stamped line.
 */
import { closeSync } from 'node:fs';
import { FolioError, fromFsError } from '../errors.ts';
import { openForRead } from '../index/identity.ts';
import type { LineIndex } from '../index/line-index.ts';
import { firstStampFrom, isoOf, lastStampBefore, timeSchemeOf, type Stamp, type TimeScheme } from './time-probe.ts';
import { parseTimeInput, type TimeFormat } from './timestamps.mjs';

const SAMPLES = 16;

export interface TimeSeekResult {
  format: TimeFormat;
  /** the time asked for, in epoch ms */
  targetMs: number;
  /** 1-based line number of the first stamped line at or after the target */
  lineNo: number;
  byteOffset: number;
  /** that line's time */
  timeMs: number;
  /** windows read */
  probes: number;
  elapsedMs: number;
}

/** The time a caller gave (a string in any detected format or a time of day, or epoch ms) as epoch ms, against the file's scheme. */
export function targetTimeOf(time: string | number, scheme: TimeScheme, firstMs: number): number {
  const t = typeof time === 'number' ? time : parseTimeInput(time, firstMs, scheme.year);
  if (!Number.isFinite(t)) {
    throw new FolioError(
      'invalid_input',
      `not a time: "${time}" (use e.g. 2024-05-01T12:30:00Z, 2024-05-01 12:30, 12:30:05, May  1 12:30:05, 01/May/2024:12:30:05 +0000, or epoch seconds)`,
      { field: 'time', value: time },
    );
  }
  return t;
}

export function timeSeek(index: LineIndex, time: string | number, encoding: string): TimeSeekResult {
  const started = performance.now();
  if (!index.complete) throw new FolioError('invalid_input', 'the line index must be complete before seeking', { path: index.path });
  let fd: number;
  try {
    fd = openForRead(index.path);
  } catch (err) {
    throw fromFsError(err, index.path);
  }
  try {
    const scheme = timeSchemeOf(fd, index.path, index.size, encoding);
    const lines = index.lineCount;
    let probes = 0;
    const seen = new Map<number, Stamp | null>();
    /** The first stamped line at or after line `lineIdx`. */
    const probe = (lineIdx: number): Stamp | null => {
      if (seen.has(lineIdx)) return seen.get(lineIdx)!;
      probes++;
      const stamp = firstStampFrom(fd, index, lineIdx, scheme);
      seen.set(lineIdx, stamp);
      return stamp;
    };
    const first = probe(0);
    if (!first) throw new FolioError('no_timestamps', `no stamped lines found in ${index.path}`, { path: index.path });
    const targetMs = targetTimeOf(time, scheme, first.timeMs);
    for (let i = 1; i < SAMPLES; i++) probe(Math.floor((lines * i) / SAMPLES));
    const lastStamp = lastStampBefore(fd, index, lines, scheme);
    const ordered = () => {
      const stamps = [...seen.values(), lastStamp].filter((s): s is Stamp => s !== null).sort((a, b) => a.byte - b.byte);
      for (let i = 1; i < stamps.length; i++) {
        if (stamps[i]!.timeMs < stamps[i - 1]!.timeMs) throw notOrdered(index, stamps[i - 1]!, stamps[i]!);
      }
    };
    ordered();
    if (lastStamp && targetMs > lastStamp.timeMs) {
      throw new FolioError('out_of_bounds', `${isoOf(targetMs)} is after the file's last line time (${isoOf(lastStamp.timeMs)})`, {
        time_ms: targetMs,
        first_time: isoOf(first.timeMs),
        last_time: isoOf(lastStamp.timeMs),
      });
    }
    // Lower bound over line indexes: the first line whose next stamp is >= target.
    let lo = 0;
    let hi = lines;
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const s = probe(mid);
      if (s === null || s.timeMs >= targetMs) hi = mid;
      else lo = s.lineIdx! + 1;
    }
    ordered();
    const found = probe(Math.min(lo, lines - 1));
    if (!found || found.timeMs < targetMs) throw new FolioError('out_of_bounds', `no line at or after ${isoOf(targetMs)}`, { time_ms: targetMs });
    // The stamp before the answer must be earlier than the target, or the order broke right here.
    const before = lastStampBefore(fd, index, found.lineIdx!, scheme);
    if (before && before.timeMs >= targetMs && before.timeMs > found.timeMs) throw notOrdered(index, before, found);
    return {
      format: scheme.format,
      targetMs,
      lineNo: found.lineIdx! + 1,
      byteOffset: found.byte,
      timeMs: found.timeMs,
      probes,
      elapsedMs: performance.now() - started,
    };
  } finally {
    closeSync(fd);
  }
}

function notOrdered(index: LineIndex, a: Stamp, b: Stamp): FolioError {
  const lineA = (a.lineIdx ?? index.lineAt(a.byte)) + 1;
  const lineB = (b.lineIdx ?? index.lineAt(b.byte)) + 1;
  return new FolioError(
    'not_ordered',
    `timestamps are not in order: line ${lineA} (${isoOf(a.timeMs)}) comes before line ${lineB} (${isoOf(b.timeMs)}); a time cannot be found by bisection`,
    { path: index.path, line_before: lineA, time_before: isoOf(a.timeMs), line_after: lineB, time_after: isoOf(b.timeMs) },
  );
}
