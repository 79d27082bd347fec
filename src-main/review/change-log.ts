/**
 * Per-process change logs: each process appends the Automerge changes it makes
 * (as `saveSince` chunks, each prefixed with its length as a 32-bit big-endian
 * number) to its own `changes/<pid>-<random>.log`. Nobody else writes that file,
 * so concurrent saves never race on one file; a reader loads every log from the
 * offset it had reached. Log names are never reused (a compacted log is deleted
 * and its writer starts a new one), so an offset keyed by name is never wrong.
 * A torn frame at the end is not read while its writer may still be appending
 * it; once that writer is gone the store keeps those bytes aside as damaged
 * (damaged.ts), as it does a whole frame that does not parse.
 */
import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';

const HEADER_BYTES = 4;

/** Append one frame; returns the file size after it. */
export function appendFrame(path: string, chunk: Uint8Array): number {
  const frame = Buffer.allocUnsafe(HEADER_BYTES + chunk.length);
  frame.writeUInt32BE(chunk.length, 0);
  frame.set(chunk, HEADER_BYTES);
  const fd = openSync(path, 'a', 0o644);
  try {
    for (let done = 0; done < frame.length;) done += writeSync(fd, frame, done, frame.length - done);
    fsyncSync(fd);
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

/** One frame's payload and where its header starts in the log. */
export interface Frame {
  offset: number;
  bytes: Buffer;
}

/**
 * The whole frames of `path` from byte `offset` on, the offset after the last
 * whole one, and the bytes after it (`tail`: a frame still being appended, a
 * torn one, or bytes that are no frame at all). A missing file gives nothing.
 */
export function readFrames(path: string, offset: number): { frames: Frame[]; offset: number; tail: Buffer } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { frames: [], offset, tail: Buffer.alloc(0) };
  }
  try {
    const size = fstatSync(fd).size;
    if (size <= offset) return { frames: [], offset, tail: Buffer.alloc(0) };
    const buf = Buffer.allocUnsafe(size - offset);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, offset + got);
      if (n <= 0) break;
      got += n;
    }
    const frames: Frame[] = [];
    let pos = 0;
    while (pos + HEADER_BYTES <= got) {
      const len = buf.readUInt32BE(pos);
      if (pos + HEADER_BYTES + len > got) break;
      frames.push({ offset: offset + pos, bytes: buf.subarray(pos + HEADER_BYTES, pos + HEADER_BYTES + len) });
      pos += HEADER_BYTES + len;
    }
    return { frames, offset: offset + pos, tail: buf.subarray(pos, got) };
  } finally {
    closeSync(fd);
  }
}
