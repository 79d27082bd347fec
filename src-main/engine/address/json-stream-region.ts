/**
 * One member or item of a container, read from the bytes between its separators
 * (the kernel finds the commas at the container's top level, json-stream.ts):
 * the name and colon of a member, where the value starts and ends, its kind. The
 * value's own text is checked where that is cheap (a string closes where the
 * region ends, a number or word is one token, a container ends with its closing
 * bracket); what lies inside a container is checked when it is scanned or built.
 */
import type { Segment } from './json-select.ts';

export type RegionKind = 'object' | 'array' | 'string' | 'number' | 'literal';

export interface Region {
  key: Segment;
  keyStart: number;
  start: number;
  end: number;
  kind: RegionKind;
}

const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isTokenByte = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x45;

/** The end (exclusive) of the string whose quote is at `i` in `buf`, or -1. */
function stringEnd(buf: Uint8Array, i: number, end: number): number {
  for (let j = i + 1; j < end; j++) {
    const c = buf[j]!;
    if (c === 0x5c) j++;
    else if (c === 0x22) return j + 1;
  }
  return -1;
}

/**
 * The region [start, end) of `buf` (whose byte 0 is at offset `base` of the
 * source) as entry `index` of an object or array; `fail` throws at an offset.
 * null for an empty region that closes an empty container.
 */
export function regionOf(
  buf: Uint8Array,
  base: number,
  start: number,
  end: number,
  isObject: boolean,
  index: number,
  fail: (offset: number, error: string) => never,
): Region | null {
  let i = start - base;
  let n = end - base;
  while (i < n && isWs(buf[i]!)) i++;
  while (n > i && isWs(buf[n - 1]!)) n--;
  if (i === n) return null;
  const at = (k: number) => base + k;
  const keyStart = at(i);
  let key: Segment = index;
  if (isObject) {
    if (buf[i] !== 0x22) fail(at(i), `a member name expected, found '${String.fromCharCode(buf[i]!)}'`);
    const keyEnd = stringEnd(buf, i, n);
    if (keyEnd < 0) fail(at(n), 'a member name that does not end');
    key = JSON.parse(Buffer.from(buf.buffer, buf.byteOffset + i, keyEnd - i).toString('utf8')) as string;
    i = keyEnd;
    while (i < n && isWs(buf[i]!)) i++;
    if (buf[i] !== 0x3a || i >= n) fail(at(i), "a ':' expected");
    i++;
    while (i < n && isWs(buf[i]!)) i++;
    if (i >= n) fail(at(i), 'a value expected');
  }
  const c = buf[i]!;
  let kind: RegionKind;
  let valueEnd: number;
  if (c === 0x7b || c === 0x5b) {
    kind = c === 0x7b ? 'object' : 'array';
    const close = c + 2;
    if (buf[n - 1] !== close) {
      // Something after the container: the first byte past its last closing bracket.
      let k = n - 1;
      while (k > i && buf[k] !== 0x7d && buf[k] !== 0x5d) k--;
      k++;
      while (k < n && isWs(buf[k]!)) k++;
      fail(at(k), `a ',' or the end expected`);
    }
    valueEnd = n;
  } else if (c === 0x22) {
    kind = 'string';
    valueEnd = stringEnd(buf, i, n);
    if (valueEnd < 0) fail(at(n), 'a string that does not end');
  } else if (c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e) {
    kind = c === 0x74 || c === 0x66 || c === 0x6e ? 'literal' : 'number';
    valueEnd = i;
    while (valueEnd < n && isTokenByte(buf[valueEnd]!)) valueEnd++;
    if (kind === 'literal') {
      const word = Buffer.from(buf.buffer, buf.byteOffset + i, valueEnd - i).toString('latin1');
      if (word !== 'true' && word !== 'false' && word !== 'null') fail(at(i), `an unknown word '${word.slice(0, 20)}'`);
    }
  } else return fail(at(i), `a value expected, found '${String.fromCharCode(c)}'`);
  if (valueEnd < n) {
    let k = valueEnd;
    while (k < n && isWs(buf[k]!)) k++;
    fail(at(k), `a ',' or the end expected`);
  }
  return { key, keyStart, start: at(i), end: at(valueEnd), kind };
}
