// @ts-check
/**
 * One chunk of whole lines of a file that is not UTF-8 (UTF-16LE/BE, legacy
 * encodings read with iconv-lite): each line is found in bytes (LF units for
 * UTF-16), decoded, and matched on its own with the plan's lineRe. A match's byte
 * offset is the byte length of the text before it re-measured in the file's
 * encoding (2 bytes per UTF-16 unit: the decoded string has exactly one unit per
 * code unit, U+FFFD standing in for a lone surrogate). Newlines, decoders and
 * encoders are the text codec's (text/units.mjs).
 */
import { decoderOf, encoderOf, isLegacyEncoding, isUtf16, newlineUnitsOf } from '../text/units.mjs';
import { cutAround } from './line-text.mjs';

/**
 * How lines are found and decoded in one encoding.
 * @typedef {import('../text/units.mjs').NewlineUnits & {
 *   decode: (bytes: Uint8Array) => string,
 *   byteLength: (text: string) => number,
 * }} LineCodec  byteLength: bytes of `text` in the encoding
 */

/**
 * @param {string | undefined} encoding
 * @returns {LineCodec | null} null for UTF-8 (and binary/unknown): searchUtf8Chunk's fast paths
 */
export function lineCodecOf(encoding) {
  if (!encoding || !(isUtf16(encoding) || isLegacyEncoding(encoding))) return null;
  const { unit, indexOfNewline, lastIndexOfNewline } = newlineUnitsOf(encoding);
  const encode = encoderOf(encoding);
  return {
    unit,
    indexOfNewline,
    lastIndexOfNewline,
    decode: decoderOf(encoding),
    byteLength: unit === 2 ? (text) => 2 * text.length : (text) => encode(text).length,
  };
}

/**
 * Search `chunk` line by line, decoded, each line matched alone; adds to rs.result.
 * @param {import('./range-search.mjs').RangeSearch} rs
 * @param {Buffer} chunk whole lines
 * @param {number} chunkStart file offset of chunk[0]
 * @param {LineCodec} codec
 */
export function searchDecodedChunk(rs, chunk, chunkStart, codec) {
  const r = rs.result;
  const re = rs.plan.lineRe;
  const cap = rs.o.maxMatches + 1;
  const u = codec.unit;
  let lineNo = 0;
  for (let ls = 0; ls < chunk.length; lineNo++) {
    const le = codec.indexOfNewline(chunk, ls);
    const lineEnd = le < 0 ? chunk.length : le;
    let text = codec.decode(chunk.subarray(ls, lineEnd));
    if (text.endsWith('\r') && le >= 0) text = text.slice(0, -1);
    let bomBytes = 0;
    if (chunkStart + ls === 0 && text.charCodeAt(0) === 0xfeff) {
      text = text.slice(1);
      bomBytes = codec.byteLength('\ufeff');
    }
    re.lastIndex = 0;
    const m = re.exec(text);
    if (m) {
      r.count++;
      if (!rs.o.countOnly) {
        const cut = cutAround(text, m.index, rs.o.maxLineChars);
        r.matches.push({
          lineStart: chunkStart + ls,
          nextLine: chunkStart + (le < 0 ? chunk.length : le + u),
          byteOffset: chunkStart + ls + bomBytes + codec.byteLength(text.slice(0, m.index)),
          column: cut.column,
          text: cut.text,
          textTruncated: cut.truncated,
          chunkStart,
          linesIntoChunk: lineNo,
        });
        if (r.matches.length >= cap) {
          r.capped = true;
          return;
        }
      }
    }
    if (le < 0) break;
    ls = le + u;
  }
}
