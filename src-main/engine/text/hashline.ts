/**
 * Hashlines: line anchors an agent can send back with an upsert.
 *
 * Format: each whole line is prefixed `LINE#HHH|`, where LINE is the 1-based line
 * number and HHH the low 12 bits, as 3 lowercase hex digits, of the 32-bit FNV-1a
 * hash (http://www.isthe.com/chongo/tech/comp/fnv/) of the line's bytes without
 * its terminator ('\n' and a '\r' before it; LF and CR units in UTF-16). A line
 * that is cut (the read stopped inside it) gets `LINE#???|`: it cannot anchor an
 * edit. Upserts accept the `LINE#HHH` part as an anchor precondition.
 */
import type { LineBreaks } from './window.ts';

/** Lines of UTF-8 and single-byte text: '\n' bytes. */
export const BYTE_BREAKS: LineBreaks = {
  unit: 1,
  indexOfNewline: (buf, from = 0) => buf.indexOf(10, from),
  unitIs: (buf, i, code) => buf[i] === code,
};

/** 3 hex digits: low 12 bits of FNV-1a 32 over the line's bytes without terminator (LF, and a CR before it). */
export function lineHash(bytes: Uint8Array, start = 0, end = bytes.length, breaks: LineBreaks = BYTE_BREAKS): string {
  const u = breaks.unit;
  if (end - start >= u && breaks.unitIs(bytes, end - u, 10)) end -= u;
  if (end - start >= u && breaks.unitIs(bytes, end - u, 13)) end -= u;
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return ((h >>> 0) & 0xfff).toString(16).padStart(3, '0');
}

/** The `LINE#HHH|` prefix of line `lineNo` (hash null: a cut line, `LINE#???|`). */
export function hashlinePrefix(lineNo: number, hash: string | null): string {
  return `${lineNo}#${hash ?? '???'}|`;
}

/** `LINE#HHH` anchor, optionally followed by `|` and the line's text (as a hashline read prints it). */
const ANCHOR = /^(\d+)#([0-9a-f]{3})(?:\|[^]*)?$/;

/** The line number (1-based) and hash an anchor names, or null when it is not `LINE#HHH` (a `LINE#???` cut line is not an anchor). */
export function parseAnchor(anchor: string): { lineNo: number; hash: string } | null {
  const m = ANCHOR.exec(anchor.trim());
  if (!m) return null;
  const lineNo = Number(m[1]);
  return lineNo >= 1 ? { lineNo, hash: m[2]! } : null;
}

/**
 * Prefix each line of `buf` (which starts at a line start, line number
 * `firstLineNo`) with `LINE#HHH|`. A last line that is cut (does not end the file
 * or a '\n') gets `LINE#???|`.
 */
export function hashlineText(
  buf: Uint8Array,
  firstLineNo: number,
  lastLineWhole: boolean,
  decode: (bytes: Uint8Array) => string,
  breaks: LineBreaks = BYTE_BREAKS,
): string {
  const out: string[] = [];
  let lineNo = firstLineNo;
  let start = 0;
  while (start < buf.length) {
    const nl = breaks.indexOfNewline(buf, start);
    const end = nl < 0 ? buf.length : nl + breaks.unit;
    const whole = nl >= 0 || lastLineWhole;
    out.push(hashlinePrefix(lineNo, whole ? lineHash(buf, start, end, breaks) : null), decode(buf.subarray(start, end)));
    lineNo++;
    start = end;
  }
  return out.join('');
}
