/**
 * Scalar reference of every WASM kernel: one obvious loop per kernel, same
 * semantics as src-main/engine/kernels/kernels.d.mts. Offsets are indices into
 * `bytes` (the kernels' `input`). The property tests compare the two.
 */

export function countNewlines(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let n = 0;
  for (let i = start; i < end; i++) if (bytes[i] === 10) n++;
  return n;
}

export function countNewlinesPerBlock(bytes: Uint8Array, len: number, blockSize: number): number[] {
  const counts: number[] = [];
  for (let s = 0; s < len; s += blockSize) counts.push(countNewlines(bytes, s, Math.min(s + blockSize, len)));
  return counts;
}

export function findNthNewline(bytes: Uint8Array, start: number, end: number, n: number): number {
  let seen = 0;
  for (let i = start; i < end; i++) {
    if (bytes[i] === 10 && ++seen === n) return i;
  }
  return -1;
}

export function countNewlineStyle(bytes: Uint8Array, start: number, end: number, prevIsCR: boolean): { cr: number; crlf: number } {
  let cr = 0;
  let crlf = 0;
  for (let i = start; i < end; i++) {
    if (bytes[i] === 13) cr++;
    const before = i === start ? prevIsCR : bytes[i - 1] === 13;
    if (bytes[i] === 10 && before) crlf++;
  }
  return { cr, crlf };
}

export function isControlByte(b: number): boolean {
  return (b >= 0x01 && b <= 0x08) || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f) || b === 0x7f;
}

export function sniff(bytes: Uint8Array, start: number, end: number): { nul: number; control: number } {
  let nul = 0;
  let control = 0;
  for (let i = start; i < end; i++) {
    const b = bytes[i]!;
    if (b === 0) nul++;
    if (isControlByte(b)) control++;
  }
  return { nul, control };
}

const isContinuation = (b: number | undefined): boolean => b !== undefined && (b & 0xc0) === 0x80;

export function snapBackToCodepoint(bytes: Uint8Array, start: number, pos: number): number {
  for (let p = pos; p >= Math.max(start, pos - 3); p--) if (!isContinuation(bytes[p])) return p;
  return pos;
}

export function snapForwardToCodepoint(bytes: Uint8Array, pos: number, end: number): number {
  for (let p = pos; p <= Math.min(end, pos + 3); p++) if (p === end || !isContinuation(bytes[p])) return p;
  return pos;
}

export function lineStartBefore(bytes: Uint8Array, start: number, pos: number): number {
  for (let i = pos - 1; i >= start; i--) if (bytes[i] === 10) return i + 1;
  return -1;
}

export function lineEndAfter(bytes: Uint8Array, pos: number, end: number): number {
  for (let i = pos; i < end; i++) if (bytes[i] === 10) return i;
  return -1;
}

/** Bytes of [start, end) that start a character (not 10xxxxxx). */
export function countChars(bytes: Uint8Array, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) if (!isContinuation(bytes[i])) n++;
  return n;
}

/** Bytes of [start, end) that lead a multi-byte sequence (11xxxxxx). */
export function countLeads(bytes: Uint8Array, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) if (bytes[i]! >= 0xc0) n++;
  return n;
}

/** Offset of the n-th (1-based) byte of [start, end) that starts a character, or -1. */
export function findNthChar(bytes: Uint8Array, start: number, end: number, n: number): number {
  let seen = 0;
  for (let i = start; i < end; i++) if (!isContinuation(bytes[i]) && ++seen === n) return i;
  return -1;
}

/**
 * Decode one UTF-8 sequence at i (Unicode Table 3-7). Returns its length, 0 if
 * the bytes at i can never start a well-formed sequence, or -k if the k bytes up
 * to the end are a valid but truncated prefix.
 */
function sequenceAt(bytes: Uint8Array, i: number, end: number): number {
  const b0 = bytes[i]!;
  if (b0 < 0x80) return 1;
  let len: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) len = 2;
  else if (b0 === 0xe0) [len, lo] = [3, 0xa0];
  else if (b0 === 0xed) [len, hi] = [3, 0x9f];
  else if (b0 >= 0xe1 && b0 <= 0xef) len = 3;
  else if (b0 === 0xf0) [len, lo] = [4, 0x90];
  else if (b0 === 0xf4) [len, hi] = [4, 0x8f];
  else if (b0 >= 0xf1 && b0 <= 0xf3) len = 4;
  else return 0;
  for (let k = 1; k < len; k++) {
    if (i + k >= end) return -k;
    const b = bytes[i + k]!;
    const ok = k === 1 ? b >= lo && b <= hi : (b & 0xc0) === 0x80;
    if (!ok) return 0;
  }
  return len;
}

/**
 * Rust's Utf8Error semantics: the offset of the first ill-formed sequence
 * (valid_up_to), or -1. With `final` false a truncated sequence at the end is not
 * an error (more bytes may follow) and `pending` is its length.
 */
export function utf8FirstInvalid(bytes: Uint8Array, final = true): { firstInvalid: number; pending: number } {
  let i = 0;
  while (i < bytes.length) {
    const n = sequenceAt(bytes, i, bytes.length);
    if (n > 0) i += n;
    else if (n < 0 && !final) return { firstInvalid: -1, pending: -n };
    else return { firstInvalid: i, pending: 0 };
  }
  return { firstInvalid: -1, pending: 0 };
}

/** Length of the maximal subpart of an ill-formed sequence at i (Unicode 3.9): the lead and the continuation bytes still allowed after it. */
function maximalSubpartAt(bytes: Uint8Array, i: number, end: number): number {
  let n = 1;
  while (i + n < end && sequenceAt(bytes, i, i + n + 1) < 0) n++;
  return n;
}

/**
 * What a streaming UTF-8 counter reports over `bytes`: the first ill-formed offset
 * (as utf8FirstInvalid), the number of ill-formed sequences as maximal subparts
 * (what WHATWG and Python decoders turn into one U+FFFD each), the valid
 * characters of 2-4 bytes, and (with `final` false) the length of a valid but
 * truncated sequence at the end, which is then neither valid nor invalid yet.
 */
export function utf8Counts(bytes: Uint8Array, final = true): { firstInvalid: number; invalid: number; multibyte: number; pending: number } {
  let firstInvalid = -1;
  let invalid = 0;
  let multibyte = 0;
  let i = 0;
  while (i < bytes.length) {
    const n = sequenceAt(bytes, i, bytes.length);
    if (n > 0) {
      if (n > 1) multibyte++;
      i += n;
      continue;
    }
    if (n < 0 && !final) return { firstInvalid, invalid, multibyte, pending: -n };
    if (firstInvalid < 0) firstInvalid = i;
    invalid++;
    i += n < 0 ? -n : maximalSubpartAt(bytes, i, bytes.length);
  }
  return { firstInvalid, invalid, multibyte, pending: 0 };
}

// UTF-16: units at even offsets from `start`; `be` is the byte order.

export function unitAt(bytes: Uint8Array, i: number, be: boolean): number {
  return be ? (bytes[i]! << 8) | bytes[i + 1]! : (bytes[i + 1]! << 8) | bytes[i]!;
}

export function countUnits16(bytes: Uint8Array, start: number, end: number, unit: number, be: boolean): number {
  let n = 0;
  for (let i = start; i + 1 < end; i += 2) if (unitAt(bytes, i, be) === unit) n++;
  return n;
}

export function countNewlinesPerBlock16(bytes: Uint8Array, len: number, blockSize: number, be: boolean): number[] {
  const counts: number[] = [];
  for (let s = 0; s < len; s += blockSize) counts.push(countUnits16(bytes, s, Math.min(s + blockSize, len), 10, be));
  return counts;
}

export function findNthNewline16(bytes: Uint8Array, start: number, end: number, n: number, be: boolean): number {
  let seen = 0;
  for (let i = start; i + 1 < end; i += 2) if (unitAt(bytes, i, be) === 10 && ++seen === n) return i;
  return -1;
}

export function countNewlineStyle16(bytes: Uint8Array, start: number, end: number, prevIsCR: boolean, be: boolean): { cr: number; crlf: number } {
  let cr = 0;
  let crlf = 0;
  for (let i = start; i + 1 < end; i += 2) {
    const u = unitAt(bytes, i, be);
    if (u === 13) cr++;
    const before = i === start ? prevIsCR : unitAt(bytes, i - 2, be) === 13;
    if (u === 10 && before) crlf++;
  }
  return { cr, crlf };
}

/** First byte of the first ill-formed unit (lone surrogate, truncated last unit), or -1. */
export function utf16FirstInvalid(bytes: Uint8Array, be: boolean): number {
  const isHigh = (u: number) => u >= 0xd800 && u <= 0xdbff;
  const isLow = (u: number) => u >= 0xdc00 && u <= 0xdfff;
  let i = 0;
  for (; i + 1 < bytes.length; i += 2) {
    const u = unitAt(bytes, i, be);
    if (isLow(u)) return i;
    if (isHigh(u)) {
      if (i + 3 >= bytes.length || !isLow(unitAt(bytes, i + 2, be))) return i;
      i += 2;
    }
  }
  return i < bytes.length ? i : -1;
}

/** jsonScan's state (kernels.d.mts JsonScanState). */
export interface JsonScanState {
  depth: number;
  inString: boolean;
  escaped: boolean;
  commas: number;
}

/**
 * jsonScan, one byte at a time. A backslash escapes the next byte, which then
 * neither starts nor ends a string (nor escapes another); outside strings, where
 * JSON has no backslashes, an escaped bracket or comma still counts, as in the kernel.
 */
export function jsonScan(bytes: Uint8Array, start: number, end: number, state: JsonScanState, stopAt = 0): number | { unmatched: number } {
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    const escaped = state.escaped;
    state.escaped = !escaped && c === 0x5c;
    if (state.inString) {
      if (c === 0x22 && !escaped) state.inString = false;
      continue;
    }
    if (c === 0x22 && !escaped) state.inString = true;
    else if (c === 0x7b || c === 0x5b) state.depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (state.depth === 0) return { unmatched: i };
      state.depth--;
      if (state.depth === 0) return i + 1;
    } else if (c === 0x2c && state.depth === 1) {
      state.commas++;
      if (state.commas === stopAt) return i;
    }
  }
  return -1;
}

/**
 * findLines (wasm/find.ts), one line at a time: the lines of bytes[start..end)
 * holding `needle` (with `fold`, lower-case ASCII, letters in either case), each
 * at its first occurrence; cap 0 counts all, else stops after `cap` lines.
 */
export function findLines(
  bytes: Uint8Array,
  start: number,
  end: number,
  needle: Uint8Array,
  fold: boolean,
  cap: number,
): { found: number; stop: number; hits: number[] } {
  const hits: number[] = [];
  const lower = (b: number) => (fold && b >= 0x41 && b <= 0x5a ? b + 0x20 : b);
  let ls = start;
  while (ls < end) {
    let le = ls;
    while (le < end && bytes[le] !== 10) le++;
    for (let i = ls; i + needle.length <= le; i++) {
      let j = 0;
      while (j < needle.length && lower(bytes[i + j]!) === needle[j]) j++;
      if (j === needle.length) {
        hits.push(i);
        break;
      }
    }
    ls = le < end ? le + 1 : end;
    if (cap !== 0 && hits.length === cap) break;
  }
  return { found: hits.length, stop: ls, hits: cap === 0 ? [] : hits };
}
