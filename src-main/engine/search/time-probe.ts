/**
 * Reading timestamps at a few places of a file: the format its lines are stamped
 * in (from the first 64 KiB), the first stamped line at or after a line, the last
 * stamped line before one. A probe reads the head of a line or a few (their
 * starts from the line index), so time_seek costs O(log n) small reads and the
 * histogram's span O(1).
 */
import { readSync, statSync } from 'node:fs';
import { FolioError } from '../errors.ts';
import type { LineIndex } from '../index/line-index.ts';
import { detectTimeFormat, timeOfLine, type TimeFormat } from './timestamps.mjs';

export const PROBE_BYTES = 64 * 1024;

export interface TimeScheme {
  format: TimeFormat;
  /** The year syslog stamps (which carry none) are read in: the file's modification year. */
  year: number;
}

export interface Stamp {
  /** 0-based line index, when known (probes from a line index) */
  lineIdx?: number;
  /** the stamped line's first byte */
  byte: number;
  timeMs: number;
}

/** Encodings whose stamps are ASCII bytes. */
export function stampableEncoding(encoding: string): boolean {
  return !/^utf-16/i.test(encoding);
}

/** The file's time scheme, or `no_timestamps` when its first lines carry none. */
export function timeSchemeOf(fd: number, path: string, size: number, encoding: string): TimeScheme {
  if (!stampableEncoding(encoding)) {
    throw new FolioError('encoding_mismatch', `timestamps are read in ASCII-compatible encodings; ${path} is ${encoding}`, { path, encoding });
  }
  const buf = Buffer.allocUnsafe(Math.min(size, PROBE_BYTES));
  const n = readSync(fd, buf, 0, buf.length, 0);
  const cut = n < size ? buf.lastIndexOf(10, n - 1) + 1 : n;
  // Whole lines first; a line longer than the probe (a 1.5 MB stamped line after a preamble)
  // still shows its stamp at its start, so the cut-off line counts when the whole ones say nothing.
  const found = detectTimeFormat(buf.subarray(0, cut > 0 ? cut : n)) ?? (cut > 0 && cut < n ? detectTimeFormat(buf.subarray(0, n)) : null);
  if (!found) {
    throw new FolioError('no_timestamps', `no timestamps at the starts of the first lines of ${path} (ISO 8601, syslog, Apache/nginx, epoch)`, { path });
  }
  return { format: found.format, year: statSync(path).mtime.getUTCFullYear() };
}

/** Bytes read at a line's start to find its stamp (Apache/nginx stamps start within the first 128). */
const HEAD_BYTES = 192;
/** A probe gives up after this many lines without a stamp. */
const PROBE_LINES = 2_000;

/** The stamp at the start of line `lineIdx` (which starts at `start`), or NaN. */
function stampAtLine(fd: number, start: number, size: number, scheme: TimeScheme, head: Buffer): number {
  const n = readSync(fd, head, 0, Math.min(head.length, size - start), start);
  let end = head.indexOf(10);
  if (end < 0 || end >= n) end = n;
  if (end > 0 && head[end - 1] === 13) end--;
  return timeOfLine(head, 0, end, scheme.format, scheme.year);
}

/**
 * The first stamped line at or after line `lineIdx`, within PROBE_LINES lines; null
 * if none. Line starts come from the index, so a line of any length costs one
 * small read, and no stamp is ever read from the middle of a line.
 */
export function firstStampFrom(fd: number, index: LineIndex, lineIdx: number, scheme: TimeScheme): Stamp | null {
  const head = Buffer.allocUnsafe(HEAD_BYTES);
  const lines = index.lineCount;
  for (let k = lineIdx; k < lines && k < lineIdx + PROBE_LINES; k++) {
    const start = index.lineStart(k);
    if (start < 0) break;
    const t = stampAtLine(fd, start, index.size, scheme, head);
    if (!Number.isNaN(t)) return { lineIdx: k, byte: start, timeMs: t };
  }
  return null;
}

/** The last stamped line before line `lineIdx` (exclusive), within PROBE_LINES lines; null if none. */
export function lastStampBefore(fd: number, index: LineIndex, lineIdx: number, scheme: TimeScheme): Stamp | null {
  const head = Buffer.allocUnsafe(HEAD_BYTES);
  for (let k = Math.min(lineIdx, index.lineCount) - 1; k >= 0 && k >= lineIdx - PROBE_LINES; k--) {
    const start = index.lineStart(k);
    if (start < 0) continue;
    const t = stampAtLine(fd, start, index.size, scheme, head);
    if (!Number.isNaN(t)) return { lineIdx: k, byte: start, timeMs: t };
  }
  return null;
}

/** An ISO 8601 UTC string for an epoch time. */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}
