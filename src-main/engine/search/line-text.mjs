// @ts-check
/**
 * Where a match sits in its line: byte offset of a UTF-16 index of the decoded
 * line, the 1-based column in code points, the line cut around the match, and
 * the lines of a latin1-decoded chunk that need UTF-8 decoding.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { isHighSurrogate as isHigh, isLowSurrogate as isLow } from '../text/units.mjs';

const NON_ASCII = /[\x80-\xff]/g;

/**
 * Starts of the lines holding a byte >= 0x80, ascending, in a latin1-decoded chunk.
 * @param {string} s
 * @returns {number[]}
 */
export function nonAsciiLineStarts(s) {
  /** @type {number[]} */
  const out = [];
  NON_ASCII.lastIndex = 0;
  let m;
  while ((m = NON_ASCII.exec(s)) !== null) {
    const i = m.index;
    out.push(i === 0 ? 0 : s.lastIndexOf('\n', i - 1) + 1);
    const le = s.indexOf('\n', i);
    if (le < 0) break;
    NON_ASCII.lastIndex = le + 1;
  }
  return out;
}

/**
 * Byte offset within `bytes` of the code point holding UTF-16 index `unit` of
 * `text` (= bytes decoded as UTF-8, U+FFFD for each maximal invalid subpart, as
 * the WHATWG Encoding Standard decodes and Node does).
 * @param {Buffer} bytes
 * @param {string} text
 * @param {number} unit
 */
export function byteOfUnit(bytes, text, unit) {
  if (unit <= 0) return 0;
  if (isAscii(bytes)) return unit;
  if (isUtf8(bytes)) {
    let u = unit;
    const c = text.charCodeAt(u - 1);
    if (isHigh(c)) u--; // inside a pair: the character's first byte
    return Buffer.byteLength(text.slice(0, u), 'utf8');
  }
  let b = 0;
  let u = 0;
  while (b < bytes.length) {
    const [len, units] = utf8Step(bytes, b);
    if (u + units > unit) return b;
    u += units;
    b += len;
    if (u >= unit) return b;
  }
  return b;
}

/**
 * Length in bytes and UTF-16 units of the character (or maximal invalid subpart,
 * one U+FFFD) starting at bytes[i]. WHATWG Encoding Standard, UTF-8 decoder.
 * @param {Buffer} bytes
 * @param {number} i
 * @returns {[number, number]}
 */
function utf8Step(bytes, i) {
  const b0 = /** @type {number} */ (bytes[i]);
  if (b0 < 0x80) return [1, 1];
  let need;
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) need = 1;
  else if (b0 >= 0xe0 && b0 <= 0xef) {
    need = 2;
    if (b0 === 0xe0) lo = 0xa0;
    if (b0 === 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    need = 3;
    if (b0 === 0xf0) lo = 0x90;
    if (b0 === 0xf4) hi = 0x8f;
  } else return [1, 1];
  let len = 1;
  for (let k = 0; k < need; k++) {
    const c = bytes[i + len];
    if (c === undefined || c < lo || c > hi) return [len, 1];
    lo = 0x80;
    hi = 0xbf;
    len++;
  }
  return [len, need === 3 ? 2 : 1];
}

/**
 * The line text cut to maxChars code points around the match at UTF-16 index `unit`
 * (a quarter of the window before it), and the match's 1-based column in code points.
 * @param {string} text
 * @param {number} unit
 * @param {number} maxChars
 */
export function cutAround(text, unit, maxChars) {
  let u = unit;
  if (u > 0 && isHigh(text.charCodeAt(u - 1)) && isLow(text.charCodeAt(u))) u--; // inside a pair: its character
  let column = 1;
  for (let k = 0; k < u; k++) if (!(isLow(text.charCodeAt(k)) && k > 0 && isHigh(text.charCodeAt(k - 1)))) column++;
  if (text.length <= maxChars) return { text, truncated: false, column };
  const cps = Array.from(text);
  if (cps.length <= maxChars) return { text, truncated: false, column };
  const from = Math.max(0, Math.min(column - 1 - Math.floor(maxChars / 4), cps.length - maxChars));
  return { text: cps.slice(from, from + maxChars).join(''), truncated: true, column };
}

/** @param {number} c */
