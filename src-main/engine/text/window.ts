/**
 * Bytes to text for reads: pread of a byte range, UTF-8 decoding under an explicit
 * policy for invalid bytes, and where lines break. Hashline prefixes live in hashline.ts.
 *
 * Invalid UTF-8 is never silently corrupted: with `invalid_utf8: 'error'` the read
 * fails with encoding_mismatch naming the first invalid byte; with 'replace' (the
 * default) each maximal invalid subsequence becomes U+FFFD (WHATWG decoding) and
 * the answer says how many were replaced and where the first one is.
 */
import { isUtf8 } from 'node:buffer';
import { closeFd, readAt } from '../index/byte-source.ts';
import { FolioError } from '../errors.ts';
import { openForRead } from '../index/identity.ts';
import { localKernels } from '../kernels/local-kernels.ts';

export type InvalidUtf8Policy = 'replace' | 'error';

export interface InvalidUtf8Report {
  /** U+FFFD characters inserted */
  replaced: number;
  /** file offset of the first invalid byte */
  firstOffset: number;
}

export function readBytes(path: string, start: number, end: number): Buffer {
  const len = Math.max(0, end - start);
  const buf = Buffer.allocUnsafe(len);
  const fd = openForRead(path);
  try {
    let done = 0;
    while (done < len) {
      const n = readAt(fd, buf, done, len - done, start + done);
      if (n <= 0) break;
      done += n;
    }
    return done === len ? buf : buf.subarray(0, done);
  } finally {
    closeFd(fd);
  }
}

/** Offset in `buf` of its first invalid UTF-8 byte (valid_up_to), or -1. */
export function firstInvalidIn(buf: Uint8Array): number {
  if (isUtf8(buf)) return -1;
  const k = localKernels();
  const stream = k.utf8Stream();
  for (let pos = 0; pos < buf.length; pos += k.input.length) {
    const piece = buf.subarray(pos, pos + k.input.length);
    k.input.set(piece);
    const bad = stream.feed(piece.length);
    if (bad >= 0) return bad;
  }
  return stream.finish();
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const FFFD = 0xfffd;

/** Decode bytes read from file offset `fileOffset` under `policy`. */
export function decodeText(buf: Uint8Array, fileOffset: number, policy: InvalidUtf8Policy): { text: string; invalid: InvalidUtf8Report | null } {
  const bad = firstInvalidIn(buf);
  if (bad < 0) return { text: decoder.decode(buf), invalid: null };
  if (policy === 'error') {
    throw new FolioError('encoding_mismatch', `invalid UTF-8 at byte ${fileOffset + bad}`, {
      first_invalid_offset: fileOffset + bad,
      hint: "read with invalid_utf8: 'replace' to get U+FFFD in place of invalid bytes",
    });
  }
  const text = decoder.decode(buf);
  // U+FFFD that were in the file (EF BF BD) are not replacements.
  let inText = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === FFFD) inText++;
  let inFile = 0;
  for (let i = buf.indexOf(0xef); i >= 0 && i + 2 < buf.length; i = buf.indexOf(0xef, i + 1)) {
    if (buf[i + 1] === 0xbf && buf[i + 2] === 0xbd) inFile++;
  }
  return { text, invalid: { replaced: inText - inFile, firstOffset: fileOffset + bad } };
}

/** Where lines break in bytes: '\n' bytes, or LF units of UTF-16 (a TextCodec is one). */
export interface LineBreaks {
  readonly unit: 1 | 2;
  /** First byte of the first newline unit at or after `from`, or -1. */
  indexOfNewline(buf: Uint8Array, from?: number): number;
  /** Whether the unit at buf[i] is `code` (10 or 13). */
  unitIs(buf: Uint8Array, i: number, code: number): boolean;
}

/** Code points in a valid-UTF-8 (or replaced) string. */
export function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}
