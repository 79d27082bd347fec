/**
 * Which compressed format a file is, from its first bytes (never its name: the
 * agent guard hands the engine `/proc/self/fd/N`). One open and one 16-byte read;
 * anything that is not a readable regular file is null (the operation itself then
 * reports why).
 *
 * Magic numbers: gzip RFC 1952 §2.3.1 (1f 8b, CM 08 = deflate); Zstandard
 * RFC 8878 §3.1.1 (28 b5 2f fd); bzip2 "BZh" + block size '1'..'9' then the block
 * magic 31 41 59 26 53 59 (pi) or the end-of-stream magic 17 72 45 38 50 90 (sqrt pi).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export type Compression = 'gzip' | 'zstd' | 'bzip2';

const MAGIC_BYTES = 16;
const BZ_BLOCK = [0x31, 0x41, 0x59, 0x26, 0x53, 0x59];
const BZ_END = [0x17, 0x72, 0x45, 0x38, 0x50, 0x90];

/** The format the bytes `head` start with, or null. */
export function compressionOfBytes(head: Uint8Array): Compression | null {
  if (head.length >= 3 && head[0] === 0x1f && head[1] === 0x8b && head[2] === 0x08) return 'gzip';
  if (head.length >= 4 && head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd) return 'zstd';
  if (head.length >= 10 && head[0] === 0x42 && head[1] === 0x5a && head[2] === 0x68 && head[3]! >= 0x31 && head[3]! <= 0x39) {
    const rest = [...head.subarray(4, 10)];
    if (rest.every((b, i) => b === BZ_BLOCK[i]) || rest.every((b, i) => b === BZ_END[i])) return 'bzip2';
  }
  return null;
}

/** The compressed format of the file at `path` by its magic bytes; null for anything else (or anything unreadable). */
export function compressionOf(path: string): Compression | null {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO at this path must not block the open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const head = Buffer.alloc(MAGIC_BYTES);
    const got = readSync(fd, head, 0, MAGIC_BYTES, 0);
    return compressionOfBytes(head.subarray(0, got));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
