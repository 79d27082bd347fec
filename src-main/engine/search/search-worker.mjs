// @ts-check
/**
 * Regex search of one byte range of a file (whole lines), for search.ts. This file
 * is both the worker script of the search pool and a module the main thread
 * imports to search small files in the calling thread; the code is the same.
 *
 * Each line is matched on its own (a regex never matches across lines), so `^`
 * and `$` match at line starts and ends. Three ways to find candidate lines, all
 * giving the same answer (test/engine/search.test.ts checks them against a plain
 * per-line oracle):
 *  - literal: a pattern without metacharacters and without the 'i' flag is found
 *    with Buffer.indexOf on the raw bytes (memmem speed); only matching lines are
 *    decoded. A valid UTF-8 needle never matches inside another character, and an
 *    invalid sequence never swallows a following lead byte (WHATWG decoding ends a
 *    bad sequence at the first byte that cannot continue it), so bytes and decoded
 *    text agree.
 *  - chunk: the regex runs over a whole decoded chunk with 'gm' added; each hit
 *    names a line, and the scan resumes at the next line. Without lookarounds a
 *    line that matches alone also matches in the chunk at or before the same place
 *    (the only context the regex sees outside its match is ^ $ \b \B, which agree
 *    at line edges), so nothing is missed; hits that reach past the line, or that
 *    rely on 'm' where the caller did not ask for it, are re-checked on the line.
 *  - line: patterns with lookarounds (which could look into other lines) are run on
 *    every line separately.
 * Decoding: chunks are decoded as latin1 (string index == byte index, ~5x faster
 * than UTF-8 decoding, which runs at ~0.6 GB/s in Node 20). That is exact for
 * ASCII lines; lines holding bytes >= 0x80 are found (one regex pass) and tested on
 * their own UTF-8 text (U+FFFD for invalid bytes, never throws), unless the regex
 * can only match ASCII characters (isAsciiOnlyRegex), when latin1 is exact too.
 *
 * Files in other encodings (UTF-16LE/BE, legacy ones read with iconv-lite) take one
 * simpler path (searchDecodedChunk): each line is found in bytes (LF units for
 * UTF-16), decoded, and matched on its own; a match's byte offset is the byte
 * length of the text before it re-measured in the file's encoding (2 bytes per
 * UTF-16 unit: the decoded string has exactly one unit per code unit, U+FFFD
 * standing in for a lone surrogate).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { isAscii, isUtf8 } from 'node:buffer';
import { parentPort, workerData } from 'node:worker_threads';
import iconv from 'iconv-lite';

/** Bytes read per step: whole lines of a ~1 MiB read are searched, a partial last line is carried over. */
export const SEARCH_CHUNK = 1 << 20;
/** A single line longer than this is refused (too_large): it would not fit in one JS string comfortably. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

const META = /[\\^$.|?*+()[\]{}]/;
const LOOKAROUND = /\(\?<?[=!]/;

/**
 * @typedef {object} SearchPlan
 * @property {string} pattern
 * @property {string} flags   the caller's flags (subset of 'imsu')
 * @property {'literal' | 'chunk' | 'line'} mode
 * @property {Buffer | null} needle  UTF-8 bytes of a literal pattern
 * @property {RegExp} chunkRe  flags + 'gm', for the chunk mode
 * @property {RegExp} lineRe   flags + 'g', run on one line's text
 * @property {boolean} asciiOnly the regex can only match ASCII characters: latin1 decoding is exact
 * @property {boolean} anchorCheck chunk hits must be re-checked on their line ('m' was added and the pattern has ^ or $)
 */

/**
 * Compile a search. Throws SyntaxError for a bad pattern or flags (search.ts turns it into invalid_input).
 * @param {string} pattern
 * @param {string} flags
 * @returns {SearchPlan}
 */
export function planSearch(pattern, flags) {
  for (const f of flags) {
    if (!'imsug'.includes(f)) throw new SyntaxError(`unsupported flag '${f}' (use a subset of 'imsu')`);
  }
  if (new Set(flags).size !== flags.length) throw new SyntaxError(`duplicate flag in '${flags}'`);
  const own = flags.replace('g', '');
  const lineRe = new RegExp(pattern, own + 'g');
  const chunkRe = new RegExp(pattern, own.replace('m', '') + 'gm');
  const literal =
    pattern.length > 0 &&
    !own.includes('i') &&
    !META.test(pattern) &&
    !/[\r\n\uFFFD]/.test(pattern) &&
    Buffer.from(pattern, 'utf8').toString('utf8') === pattern; // no lone surrogates
  const mode = literal ? 'literal' : LOOKAROUND.test(pattern) ? 'line' : 'chunk';
  return {
    pattern,
    flags: own,
    mode,
    needle: literal ? Buffer.from(pattern, 'utf8') : null,
    chunkRe,
    lineRe,
    asciiOnly: isAsciiOnlyRegex(pattern, own),
    anchorCheck: !own.includes('m') && /[\^$]/.test(pattern),
  };
}

/**
 * True when every match of the regex consists of ASCII characters only and the
 * assertions it uses look at ASCII context the same way in latin1 and UTF-8 text:
 * then latin1-decoded bytes give exactly the same matches as UTF-8-decoded text.
 * Conservative: anything not understood returns false. Excluded: '.', negated
 * classes, \D \S \W \s \p (they match non-ASCII characters), non-ASCII literals,
 * numeric escapes (octal or backreferences), lookarounds, 'iu' (ſ and K fold to s
 * and k), and ^ $ with 'm' (U+2028/U+2029 end lines only in UTF-8 text).
 * @param {string} src
 * @param {string} flags
 */
export function isAsciiOnlyRegex(src, flags) {
  if (flags.includes('i') && flags.includes('u')) return false;
  const multiline = flags.includes('m');
  /**
   * @param {number} i index just after a backslash
   * @returns {number} index after the escape, or -1 when it can match non-ASCII text
   */
  const escape = (i) => {
    const c = src[i];
    if (c === undefined || 'DSWspP'.includes(c)) return -1;
    if (c >= '0' && c <= '9') return c === '0' && !/[0-9]/.test(src[i + 1] ?? '') ? i + 1 : -1;
    if (c === 'x' || c === 'u') {
      const digits = c === 'x' ? 2 : 4;
      const h = src.slice(i + 1, i + 1 + digits);
      if (new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(h)) return parseInt(h, 16) < 0x80 ? i + 1 + digits : -1;
      return src[i + 1] === '{' ? -1 : i + 1;
    }
    if (c === 'c') return i + 2;
    return c.charCodeAt(0) < 0x80 ? i + 1 : -1;
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (src.charCodeAt(i) >= 0x80 || c === '.') return false;
    if (c === '\\') {
      i = escape(i + 1);
      if (i < 0) return false;
    } else if (c === '[') {
      if (src[i + 1] === '^') return false;
      i++;
      while (i < src.length && src[i] !== ']') {
        if (src.charCodeAt(i) >= 0x80) return false;
        if (src[i] === '\\') {
          i = escape(i + 1);
          if (i < 0) return false;
        } else {
          i++;
        }
      }
      i++;
    } else if (c === '(') {
      if (LOOKAROUND.test(src.slice(i, i + 4))) return false;
      i++;
    } else if (c === '^' || c === '$') {
      if (multiline) return false;
      i++;
    } else {
      i++;
    }
  }
  return true;
}

/**
 * @typedef {object} RawMatch
 * @property {number} lineStart   file offset of the line's first byte
 * @property {number} nextLine    file offset just past the line's '\n' (the next line's start)
 * @property {number} byteOffset  file offset of the first match in the line
 * @property {number} column      1-based, in code points
 * @property {string} text        the line (without terminator), cut to maxLineChars around the match
 * @property {boolean} textTruncated
 * @property {number} chunkStart  file offset of the chunk the line was found in (a line start)
 * @property {number} linesIntoChunk '\n' count between chunkStart and lineStart
 */

/**
 * @typedef {object} RangeResult
 * @property {number} count    matching lines found
 * @property {RawMatch[]} matches  up to maxMatches + 1 (one more than the cap tells "there are more")
 * @property {boolean} capped  stopped after maxMatches + 1 matches
 * @property {boolean} stopped stopped because an earlier piece already filled the cap
 * @property {boolean} cancelled
 */

/**
 * @typedef {object} RangeSearchOptions
 * @property {SearchPlan} plan
 * @property {number} fd
 * @property {number} start  a line start
 * @property {number} end    a line start or the file size
 * @property {boolean} countOnly
 * @property {number} maxMatches
 * @property {number} maxLineChars
 * @property {string} [encoding] the file's encoding (default 'utf-8'); see LineCodec
 */

/**
 * How lines are found and decoded in one encoding, for searchDecodedChunk.
 * @typedef {object} LineCodec
 * @property {1 | 2} unit
 * @property {(buf: Buffer, from: number) => number} indexOfNewline first byte of the next LF unit at or after `from`, or -1
 * @property {(buf: Buffer, end: number) => number} lastIndexOfNewline first byte of the last LF unit before `end`, or -1
 * @property {(bytes: Buffer) => string} decode
 * @property {(text: string) => number} byteLength bytes of `text` in the encoding
 */

/**
 * @param {string | undefined} encoding
 * @returns {LineCodec | null} null for UTF-8 (and binary/unknown): the fast paths
 */
export function lineCodecOf(encoding) {
  if (encoding === 'utf-16le' || encoding === 'utf-16be') {
    const lf = Buffer.from(encoding === 'utf-16be' ? [0, 10] : [10, 0]);
    const decoder = new TextDecoder(encoding, { fatal: false, ignoreBOM: true });
    return {
      unit: 2,
      indexOfNewline(buf, from) {
        for (let i = buf.indexOf(lf, from); i >= 0; i = buf.indexOf(lf, i + 1)) if (i % 2 === 0) return i;
        return -1;
      },
      lastIndexOfNewline(buf, end) {
        if (end < 2) return -1;
        for (let i = buf.lastIndexOf(lf, end - 2); i >= 0; i = i > 0 ? buf.lastIndexOf(lf, i - 1) : -1) if (i % 2 === 0) return i;
        return -1;
      },
      decode: (bytes) => decoder.decode(bytes),
      byteLength: (text) => 2 * text.length,
    };
  }
  if (!encoding || encoding === 'utf-8' || encoding === 'binary' || encoding === 'unknown' || !iconv.encodingExists(encoding)) return null;
  return {
    unit: 1,
    indexOfNewline: (buf, from) => buf.indexOf(10, from),
    lastIndexOfNewline: (buf, end) => (end > 0 ? buf.lastIndexOf(10, end - 1) : -1),
    decode: (bytes) => iconv.decode(bytes, encoding),
    byteLength: (text) => iconv.encode(text, encoding).length,
  };
}

/** One range, searched a chunk per step() so the caller can check cancellation and report progress between steps. */
export class RangeSearch {
  /** @param {RangeSearchOptions} o */
  constructor(o) {
    this.o = o;
    this.plan = o.plan;
    this.codec = lineCodecOf(o.encoding);
    this.buf = Buffer.allocUnsafe(SEARCH_CHUNK * 2);
    /** bytes of a partial line kept at buf[0..carry) */
    this.carry = 0;
    /** file offset of buf[0] */
    this.bufStart = o.start;
    /** next file offset to read */
    this.pos = o.start;
    /** @type {RangeResult} */
    this.result = { count: 0, matches: [], capped: false, stopped: false, cancelled: false };
    this.done = o.start >= o.end;
  }

  /** Bytes of the range read so far. */
  get bytesDone() {
    return this.pos - this.o.start;
  }

  /** Search the next chunk; returns true when the range is finished (or the cap was hit). */
  step() {
    if (this.done) return true;
    const { fd, end } = this.o;
    if (this.carry + SEARCH_CHUNK > this.buf.length) {
      if (this.carry >= MAX_LINE_BYTES) {
        throw Object.assign(new Error(`a line longer than ${MAX_LINE_BYTES} bytes starts at byte ${this.bufStart}`), {
          folioCode: 'too_large',
          details: { lineStartByte: this.bufStart, maxLineBytes: MAX_LINE_BYTES },
        });
      }
      const bigger = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(bigger, 0, 0, this.carry);
      this.buf = bigger;
    }
    const buf = this.buf;
    const want = Math.min(SEARCH_CHUNK, end - this.pos);
    let got = 0;
    while (got < want) {
      const n = readSync(fd, buf, this.carry + got, want - got, this.pos + got);
      if (n <= 0) break;
      got += n;
    }
    this.pos += got;
    const len = this.carry + got;
    // A short read before `end` means the file shrank: search what is there.
    const atEnd = this.pos >= end || got < want;
    let linesEnd = len;
    if (!atEnd) {
      const c = this.codec;
      linesEnd = len === 0 ? -1 : c ? c.lastIndexOfNewline(buf, len) + c.unit : buf.lastIndexOf(10, len - 1) + 1;
      if (linesEnd <= 0) {
        this.carry = len; // no line break yet: a long line, keep reading
        return false;
      }
    }
    this.searchChunk(buf.subarray(0, linesEnd), this.bufStart);
    if (this.result.capped || atEnd) {
      this.done = true;
      return true;
    }
    buf.copy(buf, 0, linesEnd, len);
    this.carry = len - linesEnd;
    this.bufStart += linesEnd;
    return false;
  }

  /**
   * @param {Buffer} chunk whole lines (the last may lack '\n' only at the end of the range)
   * @param {number} chunkStart file offset of chunk[0]
   */
  searchChunk(chunk, chunkStart) {
    if (this.codec) return searchDecodedChunk(this, chunk, chunkStart, this.codec);
    const plan = this.plan;
    const r = this.result;
    const countOnly = this.o.countOnly;
    const cap = this.o.maxMatches + 1;
    // Line-number cursor for this chunk: lines counted from chunkStart up to byte `cursorByte` (a line start).
    let cursorByte = 0;
    let cursorLines = 0;
    /** @param {number} lineStart chunk offset of a line start >= cursorByte */
    const linesBefore = (lineStart) => {
      while (cursorByte < lineStart) {
        const nl = chunk.indexOf(10, cursorByte);
        if (nl < 0 || nl >= lineStart) break;
        cursorLines++;
        cursorByte = nl + 1;
      }
      return cursorLines;
    };
    /**
     * Record a match found on the line starting at chunk byte `ls`.
     * @param {number} ls
     * @param {number} hitByte chunk byte of the match (literal mode) or -1 (find it on the line's text)
     * @returns {boolean} whether the line really matches
     */
    const record = (ls, hitByte) => {
      const le = chunk.indexOf(10, ls);
      const lineEnd = le < 0 ? chunk.length : le;
      const textEnd = le >= 0 && lineEnd > ls && chunk[lineEnd - 1] === 13 ? lineEnd - 1 : lineEnd;
      const lineBytes = chunk.subarray(ls, textEnd);
      const text = lineBytes.toString('utf8');
      let unit;
      let byteInLine;
      if (hitByte >= 0) {
        byteInLine = hitByte - ls;
        unit = lineBytes.toString('utf8', 0, byteInLine).length;
      } else {
        const re = plan.lineRe;
        re.lastIndex = 0;
        const m = re.exec(text);
        if (!m) return false;
        unit = m.index;
        byteInLine = byteOfUnit(lineBytes, text, unit);
      }
      const cut = cutAround(text, unit, this.o.maxLineChars);
      r.matches.push({
        lineStart: chunkStart + ls,
        nextLine: chunkStart + (le < 0 ? chunk.length : le + 1),
        byteOffset: chunkStart + ls + byteInLine,
        column: cut.column,
        text: cut.text,
        textTruncated: cut.truncated,
        chunkStart,
        linesIntoChunk: linesBefore(ls),
      });
      return true;
    };

    if (plan.mode === 'literal') {
      const needle = /** @type {Buffer} */ (plan.needle);
      let p = 0;
      for (;;) {
        const h = chunk.indexOf(needle, p);
        if (h < 0) return;
        const ls = h === 0 ? 0 : chunk.lastIndexOf(10, h - 1) + 1;
        r.count++;
        if (!countOnly) {
          record(ls, h);
          if (r.matches.length >= cap) {
            r.capped = true;
            return;
          }
        }
        const le = chunk.indexOf(10, h);
        if (le < 0) return;
        p = le + 1;
      }
    }

    // Decoded as latin1: string index == byte offset. Exact for ASCII lines; lines
    // with non-ASCII bytes are tested separately on their UTF-8 text, unless the
    // regex can only match ASCII (then latin1 gives the same matches).
    const s = chunk.toString('latin1');
    const nonAscii = plan.asciiOnly || isAscii(chunk) ? [] : nonAsciiLineStarts(s);
    let k = 0;
    /** @param {number} ls a line start with non-ASCII bytes */
    const testUtf8Line = (ls) => {
      if (!countOnly) return record(ls, -1);
      const le = chunk.indexOf(10, ls);
      const lineEnd = le < 0 ? chunk.length : le;
      const textEnd = le >= 0 && lineEnd > ls && chunk[lineEnd - 1] === 13 ? lineEnd - 1 : lineEnd;
      plan.lineRe.lastIndex = 0;
      return plan.lineRe.test(chunk.toString('utf8', ls, textEnd));
    };
    /**
     * Test the non-ASCII lines that start before `pos`, in order.
     * @param {number} pos
     * @returns {boolean} the cap was hit
     */
    const nonAsciiBefore = (pos) => {
      while (k < nonAscii.length && /** @type {number} */ (nonAscii[k]) < pos) {
        if (testUtf8Line(/** @type {number} */ (nonAscii[k++]))) {
          r.count++;
          if (!countOnly && r.matches.length >= cap) {
            r.capped = true;
            return true;
          }
        }
      }
      return false;
    };
    /** @param {number} ls */
    const isNonAsciiLine = (ls) => k < nonAscii.length && nonAscii[k] === ls;
    const endsWithNewline = s.length > 0 && s.charCodeAt(s.length - 1) === 10;

    if (plan.mode === 'line') {
      const re = plan.lineRe;
      let ls = 0;
      while (ls < s.length) {
        const le = s.indexOf('\n', ls);
        if (isNonAsciiLine(ls)) {
          if (nonAsciiBefore(ls + 1)) return;
        } else {
          const lineEnd = le < 0 ? s.length : le;
          const textEnd = le >= 0 && lineEnd > ls && s.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
          re.lastIndex = 0;
          if (re.test(s.slice(ls, textEnd))) {
            if (countOnly) r.count++;
            else if (record(ls, -1)) {
              r.count++;
              if (r.matches.length >= cap) {
                r.capped = true;
                return;
              }
            }
          }
        }
        if (le < 0) return;
        ls = le + 1;
      }
      return;
    }

    const re = plan.chunkRe;
    const lineRe = plan.lineRe;
    const mixed = nonAscii.length > 0;
    re.lastIndex = 0;
    let m;
    while ((m = re.exec(s)) !== null) {
      const i = m.index;
      // An empty match after the final '\n' is not on a line.
      if (i >= s.length && (s.length === 0 || endsWithNewline)) break;
      const le = s.indexOf('\n', i);
      const lineEnd = le < 0 ? s.length : le;
      const matchEnd = i + m[0].length;
      let ls = -1;
      if (mixed) {
        ls = i === 0 ? 0 : s.lastIndexOf('\n', i - 1) + 1;
        if (nonAsciiBefore(ls)) return;
        if (isNonAsciiLine(ls)) {
          if (nonAsciiBefore(ls + 1)) return;
          if (le < 0) break;
          re.lastIndex = le + 1;
          continue;
        }
      }
      if (countOnly) {
        // Re-check on the line alone only when the hit may depend on the chunk around the line.
        if (plan.anchorCheck || matchEnd >= lineEnd) {
          if (ls < 0) ls = i === 0 ? 0 : s.lastIndexOf('\n', i - 1) + 1;
          const textEnd = le >= 0 && lineEnd > ls && s.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
          let ok = true;
          if (plan.anchorCheck || matchEnd > textEnd) {
            lineRe.lastIndex = 0;
            ok = lineRe.test(s.slice(ls, textEnd));
          }
          if (ok) r.count++;
        } else {
          r.count++;
        }
      } else {
        if (ls < 0) ls = i === 0 ? 0 : s.lastIndexOf('\n', i - 1) + 1;
        if (record(ls, -1)) {
          r.count++;
          if (r.matches.length >= cap) {
            r.capped = true;
            return;
          }
        }
      }
      if (le < 0) break;
      re.lastIndex = le + 1;
    }
    nonAsciiBefore(Infinity);
  }
}

/**
 * searchChunk for files that are not UTF-8: line by line, decoded, each line matched alone.
 * @param {RangeSearch} rs
 * @param {Buffer} chunk whole lines
 * @param {number} chunkStart file offset of chunk[0]
 * @param {LineCodec} codec
 */
function searchDecodedChunk(rs, chunk, chunkStart, codec) {
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

const NON_ASCII = /[\x80-\xff]/g;

/**
 * Starts of the lines holding a byte >= 0x80, ascending, in a latin1-decoded chunk.
 * @param {string} s
 * @returns {number[]}
 */
function nonAsciiLineStarts(s) {
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
    if (c >= 0xd800 && c <= 0xdbff) u--; // inside a pair: the character's first byte
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
const isHigh = (c) => c >= 0xd800 && c <= 0xdbff;
/** @param {number} c */
const isLow = (c) => c >= 0xdc00 && c <= 0xdfff;

/**
 * @typedef {object} RangeJob
 * @property {string} path
 * @property {string} pattern
 * @property {string} flags
 * @property {number} start
 * @property {number} end
 * @property {boolean} countOnly
 * @property {number} maxMatches
 * @property {number} maxLineChars
 * @property {string} [encoding]
 * @property {number} piece   this range's place in file order
 * @property {SharedArrayBuffer} control  Int32 [cancel flag, first capped piece]
 * @property {SharedArrayBuffer} progress Int32 per piece: KiB done
 */

/**
 * Search one piece to its end, checking the shared flags once per chunk: stop on
 * cancel; stop when an earlier piece already holds more than maxMatches (its
 * matches come first in file order, so this piece's would never be returned).
 * @param {RangeJob} job
 * @returns {RangeResult}
 */
export function searchPiece(job) {
  const plan = planSearch(job.pattern, job.flags);
  const control = new Int32Array(job.control);
  const progress = new Int32Array(job.progress);
  const fd = openSync(job.path, 'r');
  try {
    const rs = new RangeSearch({ ...job, plan, fd });
    for (;;) {
      if (Atomics.load(control, 0) !== 0) {
        rs.result.cancelled = true;
        break;
      }
      if (Atomics.load(control, 1) < job.piece) {
        rs.result.stopped = true;
        break;
      }
      const finished = rs.step();
      Atomics.store(progress, job.piece, Math.ceil(rs.bytesDone / 1024));
      if (finished) break;
    }
    if (rs.result.capped) {
      // Tell later pieces they can stop: first capped piece wins.
      let cur = Atomics.load(control, 1);
      while (job.piece < cur) {
        const prev = Atomics.compareExchange(control, 1, cur, job.piece);
        if (prev === cur) break;
        cur = prev;
      }
    }
    return rs.result;
  } finally {
    closeSync(fd);
  }
}

// Worker entry: only when started by the search pool (not when imported).
if (parentPort && workerData && workerData.folioSearchWorker) {
  const port = parentPort;
  port.on('message', (/** @type {RangeJob & { id: number }} */ job) => {
    try {
      port.postMessage({ id: job.id, result: searchPiece(job) });
    } catch (err) {
      const e = /** @type {NodeJS.ErrnoException & { folioCode?: string, details?: object }} */ (err);
      port.postMessage({ id: job.id, error: { message: e.message, code: e.code, folioCode: e.folioCode, details: e.details } });
    }
  });
}
