/**
 * Reading timestamps at a few places of a file: the format its lines are stamped
 * in (from the first 64 KiB), the first stamped line at or after a byte, the last
 * stamped line before one. Each probe reads at most a few 64 KiB windows, so
 * time_seek and the histogram's span cost O(log n) and O(1) reads.
 */
import { readSync, statSync } from 'node:fs';
import { FolioError } from '../errors.ts';
import { detectTimeFormat, timeOfLine, type TimeFormat } from './timestamps.mjs';

export const PROBE_BYTES = 64 * 1024;
/** A probe gives up after this many bytes without a stamped line. */
const PROBE_LIMIT = 4 * PROBE_BYTES;

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
  const found = detectTimeFormat(buf.subarray(0, cut > 0 ? cut : n));
  if (!found) {
    throw new FolioError('no_timestamps', `no timestamps at the starts of the first lines of ${path} (ISO 8601, syslog, Apache/nginx, epoch)`, { path });
  }
  return { format: found.format, year: statSync(path).mtime.getUTCFullYear() };
}

/** The first stamped line starting at or after `byte` (a line start), within PROBE_LIMIT bytes; null if none. */
export function firstStampFrom(fd: number, byte: number, size: number, scheme: TimeScheme): Stamp | null {
  const buf = Buffer.allocUnsafe(PROBE_BYTES);
  let pos = byte;
  while (pos < size && pos - byte < PROBE_LIMIT) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
    if (n <= 0) return null;
    let ls = 0;
    for (;;) {
      let le = buf.indexOf(10, ls);
      if (le < 0 || le >= n) {
        if (pos + n < size) break; // a cut line: read again from its start
        le = n;
      }
      const end = le > ls && buf[le - 1] === 13 ? le - 1 : le;
      const t = timeOfLine(buf, ls, end, scheme.format, scheme.year);
      if (!Number.isNaN(t)) return { byte: pos + ls, timeMs: t };
      ls = le + 1;
      if (ls >= n) break;
    }
    if (ls === 0)
      pos += n; // one line longer than the window: its stamp would be at its start, which had none
    else pos += ls;
  }
  return null;
}

/** The last stamped line starting before `byte`, within PROBE_LIMIT bytes; null if none. */
export function lastStampBefore(fd: number, byte: number, scheme: TimeScheme): Stamp | null {
  let end = byte;
  const floor = Math.max(0, byte - PROBE_LIMIT);
  while (end > floor) {
    const from = Math.max(floor, end - PROBE_BYTES);
    const buf = Buffer.allocUnsafe(end - from);
    const n = readSync(fd, buf, 0, buf.length, from);
    let le = n;
    if (le > 0 && buf[le - 1] === 10) le--;
    while (le >= 0) {
      const nl = le > 0 ? buf.lastIndexOf(10, le - 1) : -1;
      if (nl < 0 && from > 0) break; // its start lies before this window
      const ls = nl + 1;
      const lineEnd = le > ls && buf[le - 1] === 13 ? le - 1 : le;
      const t = timeOfLine(buf, ls, lineEnd, scheme.format, scheme.year);
      if (!Number.isNaN(t)) return { byte: from + ls, timeMs: t };
      if (nl < 0) return null;
      le = nl;
    }
    const firstNl = buf.indexOf(10);
    if (firstNl < 0 || from === 0) return null;
    end = from + firstNl + 1;
    if (end >= byte) return null;
  }
  return null;
}

/** An ISO 8601 UTC string for an epoch time. */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}
