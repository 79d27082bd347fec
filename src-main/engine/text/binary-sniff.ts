/**
 * Is this file text or binary, and if binary, what is it? Two signals, both from
 * the first 64 KiB (the reason says what was looked at):
 *  - magic numbers, by the `file-type` package (names the type: image/png, application/zip ...);
 *  - byte statistics of the head from the WASM sniff kernel: any NUL byte, or more
 *    than 10% control bytes (ESC is not counted: logs carry ANSI colours; nor is
 *    DEL, 0x7F, when the head is valid UTF-8: U+007F is a character that JSON
 *    strings may hold unescaped, RFC 8259 §7, and text may carry).
 * A text file with a binary blob further on stays text; its encoding verdict
 * (encoding-detect.ts) weighs the blob's bytes against the rest.
 * UTF-16 (by its BOM, or without one when its head is unambiguous, see
 * text-layout.ts) is text that merely looks binary to the byte statistics.
 */
import { closeFd, readAt } from '../index/byte-source.ts';
import { openForRead } from '../index/identity.ts';
import { localKernels } from '../kernels/local-kernels.ts';
import { layoutOf } from '../index/layout.ts';

export const SNIFF_BYTES = 64 * 1024;
const CONTROL_RATIO = 0.1;

/** Types file-type recognises that are text for our purposes. */
const TEXT_MIMES = new Set(['application/xml', 'image/svg+xml', 'text/calendar', 'text/vtt', 'application/x-ndjson']);

export interface BinaryVerdict {
  isBinary: boolean;
  type: string | null;
  ext: string | null;
  reason: string;
  /** Encoding implied by a byte-order mark, if any. */
  bomEncoding: 'utf-8' | 'utf-16le' | 'utf-16be' | null;
}

function bomOf(head: Uint8Array): BinaryVerdict['bomEncoding'] {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return null;
}

/** Is k.input[0..n) valid UTF-8? `cut`: the file goes on, so a sequence cut at the end of the head is fine. */
function isUtf8Head(k: ReturnType<typeof localKernels>, n: number, cut: boolean): boolean {
  const v = k.utf8Stream();
  v.reset();
  if (v.feed(n) >= 0) return false;
  return cut || v.pending() === 0;
}

function countDel(head: Uint8Array, n: number): number {
  let count = 0;
  for (let i = head.indexOf(0x7f); i >= 0 && i < n; i = head.indexOf(0x7f, i + 1)) count++;
  return count;
}

/** Loads the magic-number detector now (a long-lived server does, so its first sniff pays no module loading). */
export async function preloadSniffer(): Promise<void> {
  await import('file-type');
  localKernels();
}

export async function sniffBinary(path: string, size: number): Promise<BinaryVerdict> {
  const len = Math.min(SNIFF_BYTES, size);
  const head = Buffer.alloc(len);
  const fd = openForRead(path);
  try {
    let done = 0;
    while (done < len) {
      const n = readAt(fd, head, done, len - done, done);
      if (n <= 0) break;
      done += n;
    }
  } finally {
    closeFd(fd);
  }
  const bomEncoding = bomOf(head);
  if (len === 0) return { isBinary: false, type: null, ext: null, reason: 'empty file', bomEncoding };

  // A UTF-16 BOM first: file-type reads FF FE as an MPEG audio frame sync.
  if (bomEncoding === 'utf-16le' || bomEncoding === 'utf-16be') {
    return { isBinary: false, type: null, ext: null, reason: `${bomEncoding} byte-order mark`, bomEncoding };
  }
  const layout = layoutOf(head);
  if (layout !== 'utf-8') {
    return { isBinary: false, type: null, ext: null, reason: `${layout} without a byte-order mark (a zero byte in every ASCII unit)`, bomEncoding };
  }
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(head);
  if (detected && !TEXT_MIMES.has(detected.mime)) {
    return { isBinary: true, type: detected.mime, ext: detected.ext, reason: `magic number of ${detected.mime}`, bomEncoding };
  }
  const k = localKernels();
  k.input.set(head.subarray(0, Math.min(len, k.input.length)));
  const n = Math.min(len, k.input.length);
  const { nul, control: anyControl } = k.sniff(0, n);
  // Only the head is sniffed: the reason says so, so it stays true of a file with NUL bytes further on.
  const where = len < size ? `the first ${len} of its ${size} bytes (only the head is sniffed)` : `its ${size} bytes`;
  if (nul > 0) return { isBinary: true, type: null, ext: null, reason: `${nul} NUL byte(s) in ${where}`, bomEncoding };
  const control = anyControl > n * CONTROL_RATIO && isUtf8Head(k, n, n < size) ? anyControl - countDel(head, n) : anyControl;
  if (control > len * CONTROL_RATIO) {
    return { isBinary: true, type: null, ext: null, reason: `${control} control bytes in ${where}`, bomEncoding };
  }
  return {
    isBinary: false,
    type: detected?.mime ?? null,
    ext: detected?.ext ?? null,
    reason: detected ? `text (${detected.mime})` : `text: no NUL byte and ${control} control byte(s) in ${where}`,
    bomEncoding,
  };
}
