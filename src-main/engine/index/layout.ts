/**
 * How a file's text is laid out in bytes, decided from its head before it is
 * indexed: UTF-16LE or UTF-16BE (2-byte code units), or bytes (UTF-8 and every
 * ASCII-compatible legacy encoding, where '\n' is the byte 0x0A).
 *
 * UTF-16 is recognised by its byte-order mark, or without one when the head is
 * unambiguous: ASCII-range text in UTF-16 has a zero byte in (nearly) every unit,
 * always on the same side, and UTF-8 text never has a zero byte except for NUL.
 * The rule: at least 2 whole units; a zero byte on one parity in at least half of
 * the units; on the other parity in at most 1/16 of them (U+xx00 characters such
 * as U+4E00 or the low surrogate DE00 of an emoji have one there); and at most 10% of the
 * units are control characters (so an array of small 16-bit integers is not
 * text). UTF-16 text of CJK or other scripts without a BOM has few zero bytes and
 * is not guessed (it reads as invalid UTF-8).
 */
import type { TextLayout } from '../kernels/kernels.mjs';

export type { TextLayout };

/** Bytes of the head the layout is decided from. */
export const LAYOUT_SAMPLE_BYTES = 4096;

export function utf16BomOf(head: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return null;
}

function isControlUnit(u: number): boolean {
  return (u < 0x20 && u !== 9 && u !== 10 && u !== 12 && u !== 13) || u === 0x7f;
}

/** UTF-16 without a BOM, if the head shows it unambiguously (see the module comment). */
export function utf16WithoutBomOf(head: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  const units = head.length >> 1;
  if (units < 2) return null;
  let zeroEven = 0;
  let zeroOdd = 0;
  for (let i = 0; i + 1 < head.length; i += 2) {
    if (head[i] === 0) zeroEven++;
    if (head[i + 1] === 0) zeroOdd++;
  }
  let be: boolean;
  if (zeroEven <= units / 16 && zeroOdd >= 2 && zeroOdd >= units / 2) be = false;
  else if (zeroOdd <= units / 16 && zeroEven >= 2 && zeroEven >= units / 2) be = true;
  else return null;
  let controls = 0;
  for (let i = 0; i + 1 < head.length; i += 2) {
    const u = be ? (head[i]! << 8) | head[i + 1]! : (head[i + 1]! << 8) | head[i]!;
    if (isControlUnit(u)) controls++;
  }
  if (controls > units / 10) return null;
  return be ? 'utf-16be' : 'utf-16le';
}

/** The layout of a file whose first bytes are `head` (up to LAYOUT_SAMPLE_BYTES of them). */
export function layoutOf(head: Uint8Array): TextLayout {
  return utf16BomOf(head) ?? utf16WithoutBomOf(head.subarray(0, Math.min(head.length, LAYOUT_SAMPLE_BYTES))) ?? 'utf-8';
}

/** Length of the byte-order mark at the start of a file of this layout (0 if none). */
export function bomLengthOf(layout: TextLayout, firstBytes: ArrayLike<number>): number {
  if (layout === 'utf-8') return firstBytes[0] === 0xef && firstBytes[1] === 0xbb && firstBytes[2] === 0xbf ? 3 : 0;
  const b = Uint8Array.from({ length: Math.min(2, firstBytes.length) }, (_, i) => firstBytes[i]!);
  return utf16BomOf(b) === layout ? 2 : 0;
}
