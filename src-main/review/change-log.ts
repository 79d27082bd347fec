/**
 * Per-process change logs: each process appends the Automerge changes it makes
 * (as `saveSince` chunks, each prefixed with its length as a 32-bit big-endian
 * number) to its own `changes/<pid>-<random>.log`. Nobody else writes that file,
 * so concurrent saves never race on one file; a reader loads every log from the
 * offset it had reached. Log names are never reused (a compacted log is deleted
 * and its writer starts a new one), so an offset keyed by name is never wrong.
 * A torn frame at the end (a crash mid-append) is simply not read: it is
 * incomplete, and its writer is gone.
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

/**
 * The whole frames of `path` from byte `offset` on, and the offset after the last
 * whole one. A missing file gives nothing.
 */
export function readFrames(path: string, offset: number): { chunks: Buffer[]; offset: number } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { chunks: [], offset };
  }
  try {
    const size = fstatSync(fd).size;
    if (size <= offset) return { chunks: [], offset };
    const buf = Buffer.allocUnsafe(size - offset);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, offset + got);
      if (n <= 0) break;
      got += n;
    }
    const chunks: Buffer[] = [];
    let pos = 0;
    while (pos + HEADER_BYTES <= got) {
      const len = buf.readUInt32BE(pos);
      if (pos + HEADER_BYTES + len > got) break;
      chunks.push(buf.subarray(pos + HEADER_BYTES, pos + HEADER_BYTES + len));
      pos += HEADER_BYTES + len;
    }
    return { chunks, offset: offset + pos };
  } finally {
    closeSync(fd);
  }
}
