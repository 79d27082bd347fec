/**
 * Literal byte search of several needles over one file in a single streamed pass,
 * for quoted edits (quote-edit.ts): the file is read in windows of `chunkBytes`
 * plus an overlap of (longest needle − 1) bytes, so a match that straddles two
 * windows is seen whole in the first of them, and a match is only taken from the
 * window where it starts (it is never found twice). Memory is one window, whatever
 * the file size. Buffer.indexOf is a memmem (Boyer–Moore–Horspool in V8/Node), so
 * the scan runs at memory speed once the bytes are read.
 *
 * Two ways to count, per needle:
 * - `all` (replace_all): non-overlapping occurrences, left to right (what
 *   `text.split(old).join(new)` and `grep -o -F` replace and count);
 * - otherwise every occurrence, overlapping ones included ("aa" is in "aaa"
 *   twice): an edit that must be unique is ambiguous as soon as the quote could
 *   name two places, even places that share bytes.
 *
 * Offsets become 1-based line numbers through the LineIndex; hits close together
 * are numbered by counting newline units between them instead of asking the index
 * again (replace_all over many matches stays a forward walk).
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { LineIndex } from '../index/line-index.ts';
import { mountedSource } from '../index/byte-source.ts';
import { readInto } from '../source/byte-source.ts';
import type { TextCodec } from '../text/codec.ts';

export interface Needle {
  bytes: Uint8Array;
  /** non-overlapping, all occurrences kept (replace_all); else overlapping, counted */
  all: boolean;
  /** start bytes kept; the count goes on past it */
  keep: number;
}

export interface NeedleHits {
  /** occurrences in the file (by the needle's way of counting) */
  count: number;
  /** start bytes of the first occurrences, ascending (at most the needle's `keep`) */
  starts: number[];
}

export interface ScanOptions {
  /** window size in bytes (rounded up to the code unit); default 4 MiB */
  chunkBytes?: number;
  /** bytes per code unit: a match must start at a multiple of it (UTF-16: even offsets) */
  unit: 1 | 2;
  /** extra test of a candidate start (a character boundary in multi-byte legacy encodings) */
  accept?: (startByte: number) => boolean;
  /** the bytes searched: [fromByte, toByte) (from past a byte-order mark) */
  fromByte: number;
  toByte: number;
}

export const DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;

/** A handle on `path`: the file, or a remote value's mounted source (index/byte-source.ts), awaited chunk by chunk. */
export async function openHandle(path: string): Promise<FileHandle> {
  const src = mountedSource(path);
  if (!src) return open(path, 'r');
  const mounted = {
    read: async (buf: Buffer, off: number, len: number, pos: number) => ({ bytesRead: await readInto(src, buf, off, len, pos), buffer: buf }),
    close: async () => undefined,
  };
  return mounted as unknown as FileHandle;
}

async function readFully(fh: FileHandle, buf: Buffer, len: number, pos: number): Promise<number> {
  let done = 0;
  while (done < len) {
    const { bytesRead } = await fh.read(buf, done, len - done, pos + done);
    if (bytesRead <= 0) break;
    done += bytesRead;
  }
  return done;
}

/** Occurrences of each needle in bytes [fromByte, toByte) of `path`, in one pass. */
export async function scanNeedles(path: string, needles: Needle[], opts: ScanOptions): Promise<NeedleHits[]> {
  const { unit, accept, fromByte, toByte } = opts;
  const hits: NeedleHits[] = needles.map(() => ({ count: 0, starts: [] }));
  if (needles.length === 0 || toByte <= fromByte) return hits;
  let chunk = Math.max(unit, Math.floor(opts.chunkBytes ?? DEFAULT_CHUNK_BYTES));
  chunk += chunk % unit;
  const maxLen = Math.max(...needles.map((n) => n.bytes.length));
  const buf = Buffer.allocUnsafe(chunk + maxLen - 1);
  const bufs = needles.map((n) => Buffer.from(n.bytes.buffer, n.bytes.byteOffset, n.bytes.byteLength));
  /** per needle: the first absolute byte a next match may start at */
  const nextFrom = needles.map(() => fromByte);
  const fh = await openHandle(path);
  try {
    for (let pos = fromByte; pos < toByte; pos += chunk) {
      const want = Math.min(buf.length, toByte - pos);
      const got = await readFully(fh, buf, want, pos);
      const window = buf.subarray(0, got);
      const ownEnd = Math.min(chunk, got); // a match starting in [0, ownEnd) belongs to this window
      for (let n = 0; n < needles.length; n++) {
        const needle = bufs[n]!;
        const h = hits[n]!;
        const all = needles[n]!.all;
        let i = window.indexOf(needle, Math.max(0, nextFrom[n]! - pos));
        while (i >= 0 && i < ownEnd) {
          const abs = pos + i;
          if (abs % unit === 0 && (!accept || accept(abs))) {
            h.count++;
            if (h.starts.length < needles[n]!.keep) h.starts.push(abs);
            nextFrom[n] = abs + (all ? needle.length : unit);
          } else {
            nextFrom[n] = abs + 1;
          }
          i = window.indexOf(needle, nextFrom[n]! - pos);
        }
        // Nothing starting before this window's end is left to find.
        nextFrom[n] = Math.max(nextFrom[n]!, pos + ownEnd);
      }
      if (got < want) break; // the file is shorter than the index says; the caller's version check reports it
    }
  } finally {
    await fh.close();
  }
  return hits;
}

/** Gap (bytes) up to which a line number is counted forward from the previous hit rather than asked of the index. */
const COUNT_FORWARD_BYTES = 64 * 1024;

/**
 * 0-based line of each byte offset in `offsets` (any order), through the index,
 * counting newline units forward between offsets that are close together.
 */
export async function linesAt(index: LineIndex, codec: TextCodec, offsets: number[]): Promise<Map<number, number>> {
  const sorted = [...new Set(offsets)].sort((a, b) => a - b);
  const out = new Map<number, number>();
  if (sorted.length === 0) return out;
  const fh = await openHandle(index.path);
  try {
    const buf = Buffer.allocUnsafe(COUNT_FORWARD_BYTES);
    let prev = -1;
    let prevLine = 0;
    for (const off of sorted) {
      let line: number;
      if (prev >= 0 && off - prev <= COUNT_FORWARD_BYTES) {
        const got = await readFully(fh, buf, off - prev, prev);
        const gap = buf.subarray(0, got);
        line = prevLine;
        for (let j = codec.indexOfNewline(gap, 0); j >= 0; j = codec.indexOfNewline(gap, j + codec.unit)) line++;
      } else {
        line = index.lineAt(off);
      }
      out.set(off, line);
      prev = off;
      prevLine = line;
    }
  } finally {
    await fh.close();
  }
  return out;
}
