/**
 * Bytes <-> text in a file's encoding, for reads, search results and upserts: one
 * codec per encoding with the few operations the engine needs (decode under the
 * invalid-bytes policy, encode, find newlines, snap to character boundaries).
 *
 * - UTF-8 (also 'binary' and 'unknown', decoded as UTF-8 with U+FFFD);
 * - UTF-16LE/BE: newlines are 2-byte LF units at even offsets; a character
 *   boundary is an even offset that does not split a surrogate pair; ill-formed
 *   units (lone surrogates, a truncated last unit) become U+FFFD and are reported
 *   like invalid UTF-8 (the same report shape and policy);
 * - legacy ASCII-compatible encodings (windows-125x, ISO-8859-x, KOI8-R, Shift_JIS,
 *   EUC-JP, EUC-KR, GB18030, Big5) decoded with iconv-lite. In all of them 0x0A is
 *   only ever '\n' (no trail byte is below 0x30), so line windows are exact. In the
 *   multi-byte ones a byte cannot tell whether it starts a character: boundaries
 *   are found by decoding forward from a known boundary (a line start).
 *
 * Surrogates, newline units and each encoding's decoder and encoder come from
 * units.mjs, which the search worker uses too: the logic exists once.
 */
import { FolioError } from '../errors.ts';
import { decoderOf, encoderOf, isHighSurrogate as isHigh, isLegacyEncoding, isLowSurrogate as isLow, newlineUnitsOf, utf16UnitAt } from './units.mjs';
import { decodeText, readBytes, type InvalidUtf8Policy, type InvalidUtf8Report, type LineBreaks } from './window.ts';

export { isLegacyEncoding };

export interface TextCodec extends LineBreaks {
  readonly encoding: string;
  /** false for multi-byte legacy encodings: boundaries need decoding from a line start */
  readonly selfSynchronizing: boolean;
  decode(buf: Uint8Array, fileOffset: number, policy: InvalidUtf8Policy): { text: string; invalid: InvalidUtf8Report | null };
  encode(text: string): Buffer;
  /** First byte of the first newline unit at or after `from` (a unit start), or -1. */
  indexOfNewline(buf: Uint8Array, from?: number): number;
  /** First byte of the last newline unit starting before `end`, or -1. */
  lastIndexOfNewline(buf: Uint8Array, end?: number): number;
  /** Largest character boundary <= pos, looking no further back than `floor` (a boundary). */
  snapBack(path: string, floor: number, pos: number): number;
  /**
   * Smallest character boundary >= pos, up to `ceil` (a boundary, e.g. the file
   * size). `floor` is a known boundary <= pos (multi-byte legacy encodings decode
   * from it; the others look at a few bytes around pos only).
   */
  snapForward(path: string, floor: number, pos: number, ceil: number): number;
}

const MULTI_BYTE_LEGACY = new Set(['shift_jis', 'euc-jp', 'euc-kr', 'gb18030', 'gbk', 'big5']);

const byteNewlines = newlineUnitsOf('utf-8');

const utf8Codec: TextCodec = {
  encoding: 'utf-8',
  unit: 1,
  selfSynchronizing: true,
  decode: (buf, fileOffset, policy) => decodeText(buf, fileOffset, policy),
  encode: encoderOf('utf-8'),
  unitIs: (buf, i, code) => buf[i] === code,
  indexOfNewline: byteNewlines.indexOfNewline,
  lastIndexOfNewline: byteNewlines.lastIndexOfNewline,
  snapBack(path, floor, pos) {
    const lo = Math.max(floor, pos - 3);
    const buf = readBytes(path, lo, pos + 1);
    for (let p = pos; p > lo; p--) {
      const b = buf[p - lo];
      if (b === undefined || (b & 0xc0) !== 0x80) return p;
    }
    const b = buf[0];
    return b === undefined || (b & 0xc0) !== 0x80 ? lo : pos;
  },
  snapForward(path, _floor, pos, ceil) {
    const buf = readBytes(path, pos, Math.min(ceil, pos + 3));
    for (let i = 0; i < buf.length; i++) if ((buf[i]! & 0xc0) !== 0x80) return pos + i;
    return Math.min(ceil, pos + buf.length);
  },
};

function utf16Codec(encoding: 'utf-16le' | 'utf-16be'): TextCodec {
  const be = encoding === 'utf-16be';
  const newlines = newlineUnitsOf(encoding);
  const decode = decoderOf(encoding);
  const unitAt = (b: Uint8Array, i: number): number => utf16UnitAt(b, i, be);
  /** First byte of the first ill-formed unit of buf (which starts at a boundary), or -1. */
  const firstInvalid = (b: Uint8Array): number => {
    let i = 0;
    for (; i + 1 < b.length; i += 2) {
      const u = unitAt(b, i);
      if (isLow(u)) return i;
      if (isHigh(u)) {
        if (i + 3 >= b.length || !isLow(unitAt(b, i + 2))) return i;
        i += 2;
      }
    }
    return i < b.length ? i : -1;
  };
  return {
    encoding,
    unit: 2,
    selfSynchronizing: true,
    decode(buf, fileOffset, policy) {
      const bad = firstInvalid(buf);
      if (bad < 0) return { text: decode(buf), invalid: null };
      if (policy === 'error') {
        throw new FolioError('encoding_mismatch', `invalid ${encoding.toUpperCase()} at byte ${fileOffset + bad} (a lone surrogate or a truncated unit)`, {
          first_invalid_offset: fileOffset + bad,
          encoding,
          hint: "read with invalid_utf8: 'replace' to get U+FFFD in place of ill-formed units",
        });
      }
      const text = decode(buf);
      let inText = 0;
      for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0xfffd) inText++;
      let inFile = 0;
      for (let i = 0; i + 1 < buf.length; i += 2) if (unitAt(buf, i) === 0xfffd) inFile++;
      return { text, invalid: { replaced: inText - inFile, firstOffset: fileOffset + bad } };
    },
    encode: encoderOf(encoding),
    unitIs: (buf, i, code) => i >= 0 && i + 1 < buf.length && unitAt(buf, i) === code,
    indexOfNewline: newlines.indexOfNewline,
    lastIndexOfNewline: newlines.lastIndexOfNewline,
    snapBack(path, floor, pos) {
      let p = pos - (pos % 2);
      if (p - 2 >= floor) {
        const b = readBytes(path, p - 2, p + 2);
        if (b.length === 4 && isHigh(unitAt(b, 0)) && isLow(unitAt(b, 2))) p -= 2;
      }
      return Math.max(floor, p);
    },
    snapForward(path, _floor, pos, ceil) {
      let p = pos + (pos % 2);
      if (p >= 2 && p < ceil) {
        const b = readBytes(path, p - 2, p + 2);
        if (b.length === 4 && isHigh(unitAt(b, 0)) && isLow(unitAt(b, 2))) p += 2;
      }
      return Math.min(ceil, p);
    },
  };
}

function legacyCodec(encoding: string): TextCodec {
  const selfSynchronizing = !MULTI_BYTE_LEGACY.has(encoding);
  const decode = decoderOf(encoding);
  const encode = encoderOf(encoding);
  /** Character boundaries of buf (which starts at one), by decoding and re-encoding each character. */
  const boundaries = (buf: Uint8Array): number[] => {
    const out = [0];
    let at = 0;
    for (const ch of decode(buf)) {
      at += encode(ch).length;
      out.push(at);
    }
    return out;
  };
  return {
    encoding,
    unit: 1,
    selfSynchronizing,
    decode: (buf) => ({ text: decode(buf), invalid: null }),
    encode,
    unitIs: utf8Codec.unitIs,
    indexOfNewline: utf8Codec.indexOfNewline,
    lastIndexOfNewline: utf8Codec.lastIndexOfNewline,
    snapBack(path, floor, pos) {
      if (selfSynchronizing || pos <= floor) return pos;
      const marks = boundaries(readBytes(path, floor, pos + 1));
      let best = floor;
      for (const m of marks) if (floor + m <= pos) best = floor + m;
      return best;
    },
    snapForward(path, floor, pos, ceil) {
      if (selfSynchronizing || pos <= floor) return Math.min(pos, ceil);
      const marks = boundaries(readBytes(path, floor, Math.min(ceil, pos + 4)));
      for (const m of marks) if (floor + m >= pos) return Math.min(ceil, floor + m);
      return Math.min(ceil, pos);
    },
  };
}

const codecs = new Map<string, TextCodec>();

/** The codec of a file's reported encoding ('binary' and 'unknown' decode as UTF-8 with U+FFFD). */
export function codecFor(encoding: string): TextCodec {
  if (encoding === 'utf-16le' || encoding === 'utf-16be') {
    let c = codecs.get(encoding);
    if (!c) codecs.set(encoding, (c = utf16Codec(encoding)));
    return c;
  }
  if (isLegacyEncoding(encoding)) {
    let c = codecs.get(encoding);
    if (!c) codecs.set(encoding, (c = legacyCodec(encoding)));
    return c;
  }
  return utf8Codec;
}
