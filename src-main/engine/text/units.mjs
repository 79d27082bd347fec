// @ts-check
/**
 * The low-level facts of text in a file's encoding that the codec (codec.ts) and
 * the search algorithm (search/*.mjs) share: UTF-16 surrogates and code units,
 * where the newline units are, and the decoder and encoder of each encoding.
 * Plain JS with JSDoc types because the search worker thread loads it without a
 * TypeScript loader (bundles inline it with esbuild, scripts/engine-runtime.mjs).
 *
 * Encodings come in three kinds:
 * - UTF-8 (also 'binary' and 'unknown', decoded as UTF-8 with U+FFFD);
 * - UTF-16LE/BE: a newline is a 2-byte LF unit at an even offset; decoding follows
 *   the WHATWG Encoding Standard (ill-formed units become U+FFFD, one per unit);
 * - legacy ASCII-compatible encodings read with iconv-lite, where 0x0A is only
 *   ever '\n' (no trail byte of Shift_JIS, EUC-*, GB18030 or Big5 is below 0x30).
 */
import { createRequire } from 'node:module';

/**
 * iconv-lite (~0.5 MB of code tables) loads on the first legacy encoding, not on
 * every start: a UTF-8 read or search never needs it. Synchronous (require) because
 * decoders are made in synchronous code.
 * @type {typeof import('iconv-lite') | undefined}
 */
let iconvLib;
const iconv = () => (iconvLib ??= /** @type {typeof import('iconv-lite')} */ (createRequire(import.meta.url)('iconv-lite')));

/** @param {number} u a UTF-16 code unit */
export const isHighSurrogate = (u) => u >= 0xd800 && u <= 0xdbff;
/** @param {number} u a UTF-16 code unit */
export const isLowSurrogate = (u) => u >= 0xdc00 && u <= 0xdfff;

/**
 * @param {string} encoding
 * @returns {encoding is 'utf-16le' | 'utf-16be'}
 */
export const isUtf16 = (encoding) => encoding === 'utf-16le' || encoding === 'utf-16be';

/**
 * Whether iconv-lite can decode this (lower-case) legacy encoding name.
 * @param {string} encoding
 */
export function isLegacyEncoding(encoding) {
  return !['utf-8', 'utf-16le', 'utf-16be', 'binary', 'unknown'].includes(encoding) && iconv().encodingExists(encoding);
}

/**
 * A legacy encoding whose '\n' is the plain byte 0x0A, so a file in it is indexed and
 * read by bytes like UTF-8: not UTF-16/32 or UCS (wide units), not ISO-2022 (escape-switched).
 * @param {string} encoding lower case
 */
export function isByteWiseLegacy(encoding) {
  return isLegacyEncoding(encoding) && !/^(utf-|ucs-|iso-2022)/.test(encoding);
}

/** @param {Uint8Array} b */
const asBuffer = (b) => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/**
 * The UTF-16 code unit at byte i (i + 1 must be in range).
 * @param {Uint8Array} b
 * @param {number} i
 * @param {boolean} be big-endian
 */
// Prettier would move the JSDoc casts' parentheses (TypeScript reads them as casts).
// prettier-ignore
export const utf16UnitAt = (b, i, be) =>
  be ? (/** @type {number} */ (b[i]) << 8) | /** @type {number} */ (b[i + 1]) : (/** @type {number} */ (b[i + 1]) << 8) | /** @type {number} */ (b[i]);

/**
 * Where the newlines of one encoding are, in bytes.
 * @typedef {object} NewlineUnits
 * @property {1 | 2} unit  bytes per code unit (a newline is one unit)
 * @property {(buf: Uint8Array, from?: number) => number} indexOfNewline first byte of the first newline unit at or after `from` (a unit start), or -1
 * @property {(buf: Uint8Array, end?: number) => number} lastIndexOfNewline first byte of the last newline unit starting before `end`, or -1
 */

/** @type {NewlineUnits} */
const byteNewlines = {
  unit: 1,
  indexOfNewline: (buf, from = 0) => buf.indexOf(10, from),
  lastIndexOfNewline: (buf, end = buf.length) => (end > 0 ? buf.lastIndexOf(10, end - 1) : -1),
};

/**
 * UTF-16: memmem for the 2-byte LF unit, skipping hits at odd offsets (a unit's
 * high byte followed by the next unit's low byte).
 * @param {boolean} be
 * @returns {NewlineUnits}
 */
function utf16Newlines(be) {
  const lf = Buffer.from(be ? [0, 10] : [10, 0]);
  return {
    unit: 2,
    indexOfNewline(bytes, from = 0) {
      const buf = asBuffer(bytes);
      for (let i = buf.indexOf(lf, from); i >= 0; i = buf.indexOf(lf, i + 1)) if (i % 2 === 0) return i;
      return -1;
    },
    lastIndexOfNewline(bytes, end = bytes.length) {
      const buf = asBuffer(bytes);
      if (end < 2) return -1;
      for (let i = buf.lastIndexOf(lf, end - 2); i >= 0; i = i > 0 ? buf.lastIndexOf(lf, i - 1) : -1) if (i % 2 === 0) return i;
      return -1;
    },
  };
}

const utf16leNewlines = utf16Newlines(false);
const utf16beNewlines = utf16Newlines(true);

/**
 * @param {string} encoding a file's reported encoding
 * @returns {NewlineUnits}
 */
export function newlineUnitsOf(encoding) {
  if (encoding === 'utf-16le') return utf16leNewlines;
  if (encoding === 'utf-16be') return utf16beNewlines;
  return byteNewlines;
}

/** @type {Map<string, TextDecoder>} */
const utf16Decoders = new Map();

/**
 * Bytes -> text in `encoding`, never throwing: UTF-8 and UTF-16 with U+FFFD for
 * ill-formed input (WHATWG), a byte order mark kept as U+FEFF text; legacy
 * encodings with iconv-lite.
 * @param {string} encoding a file's reported encoding
 * @returns {(bytes: Uint8Array) => string}
 */
export function decoderOf(encoding) {
  if (isUtf16(encoding)) {
    let d = utf16Decoders.get(encoding);
    if (!d) utf16Decoders.set(encoding, (d = new TextDecoder(encoding, { fatal: false, ignoreBOM: true })));
    const decoder = d;
    return (bytes) => decoder.decode(bytes);
  }
  if (isLegacyEncoding(encoding)) return (bytes) => iconv().decode(asBuffer(bytes), encoding);
  return (bytes) => asBuffer(bytes).toString('utf8');
}

/**
 * Text -> bytes in `encoding` (lone surrogates become U+FFFD in UTF-8 and stay
 * as units in UTF-16, as Buffer does).
 * @param {string} encoding a file's reported encoding
 * @returns {(text: string) => Buffer}
 */
export function encoderOf(encoding) {
  if (encoding === 'utf-16le') return (text) => Buffer.from(text, 'utf16le');
  if (encoding === 'utf-16be') return (text) => Buffer.from(text, 'utf16le').swap16();
  if (isLegacyEncoding(encoding)) return (text) => iconv().encode(text, encoding);
  return (text) => Buffer.from(text, 'utf8');
}
