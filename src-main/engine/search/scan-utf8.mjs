// @ts-check
/**
 * One chunk of whole UTF-8 lines searched with the plan's mode (plan.mjs):
 * literal (memmem on bytes), chunk (one regex pass over the chunk) or line.
 *
 * Decoding: chunks are decoded as latin1 (string index == byte index, ~5x faster
 * than UTF-8 decoding, which runs at ~0.6 GB/s in Node 20). That is exact for
 * ASCII lines; lines holding bytes >= 0x80 are found (one regex pass) and tested on
 * their own UTF-8 text (U+FFFD for invalid bytes, never throws), unless the regex
 * can only match ASCII characters (isAsciiOnlyRegex), when latin1 is exact too.
 */
import { isAscii } from 'node:buffer';
import { HITS_MAX } from '../kernels/kernels.mjs';
import { byteOfUnit, cutAround, nonAsciiLineStarts } from './line-text.mjs';

/**
 * Search `chunk` for rs.plan, adding to rs.result.
 * @param {import('./range-search.mjs').RangeSearch} rs
 * @param {Buffer} chunk whole lines (the last may lack '\n' only at the end of the range)
 * @param {number} chunkStart file offset of chunk[0]
 */
export function searchUtf8Chunk(rs, chunk, chunkStart) {
  const plan = rs.plan;
  const r = rs.result;
  const countOnly = rs.o.countOnly;
  const cap = rs.o.maxMatches + 1;
  const record = matchRecorder(rs, chunk, chunkStart);

  if (plan.mode === 'literal') return searchLiteral(rs, chunk, record);
  if (plan.required && !requiredOf(rs, chunk).dense) return searchRequired(rs, chunk, record);

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

/**
 * The chunk's RecordMatch: each match with its line's text, column and the
 * number of lines before it in the chunk (counted once, forward, as matches come).
 * @param {import('./range-search.mjs').RangeSearch} rs
 * @param {Buffer} chunk
 * @param {number} chunkStart
 * @returns {RecordMatch}
 */
function matchRecorder(rs, chunk, chunkStart) {
  const plan = rs.plan;
  const r = rs.result;
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
    const cut = cutAround(text, unit, rs.o.maxLineChars);
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
  return record;
}

/**
 * @callback RecordMatch Record a match on the line starting at chunk byte `ls` (see searchUtf8Chunk).
 * @param {number} ls
 * @param {number} hitByte chunk byte of the match, or -1 (find it on the line's text)
 * @returns {boolean} whether the line really matches
 */

/**
 * Literal mode: memmem over the chunk's bytes, one hit per line.
 * @param {import('./range-search.mjs').RangeSearch} rs @param {Buffer} chunk @param {RecordMatch} record
 */
function searchLiteral(rs, chunk, record) {
  const plan = rs.plan;
  const r = rs.result;
  const countOnly = rs.o.countOnly;
  const cap = rs.o.maxMatches + 1;
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

/**
 * Only lines holding all the required bytes can match (plan.mjs, requiredLiteralsOf): find
 * those holding the rarest with memmem (rarest in this range's first chunk), check the
 * others with indexOf, and match each candidate alone, on its UTF-8 text when it holds
 * non-ASCII bytes.
 * @param {import('./range-search.mjs').RangeSearch} rs @param {Buffer} chunk @param {RecordMatch} record
 */
function searchRequired(rs, chunk, record) {
  // Called only when the plan has required literals.
  const [needle, ...others] = requiredOf(rs, chunk).order;
  const test = candidateTest(rs, chunk, others, record);
  let p = 0;
  for (;;) {
    const h = chunk.indexOf(needle, p);
    if (h < 0) return;
    const le = test(h);
    if (rs.result.capped || le < 0) return;
    p = le + 1;
  }
}

/**
 * The test of a candidate line of a required-literal search (the line holding
 * the hit at `h`): it must hold the other literals (each one's next place is
 * remembered, as candidates only move forward) and match the regex alone, on its
 * UTF-8 text when it holds non-ASCII bytes. Counts or records the line, sets
 * result.capped at the cap, and returns the line's '\n' (-1: none).
 * @param {import('./range-search.mjs').RangeSearch} rs @param {Buffer} chunk @param {Buffer[]} others @param {RecordMatch} record
 * @returns {(h: number) => number}
 */
function candidateTest(rs, chunk, others, record) {
  const plan = rs.plan;
  const r = rs.result;
  const countOnly = rs.o.countOnly;
  const cap = rs.o.maxMatches + 1;
  const lineRe = plan.lineRe;
  // Where each other literal next occurs at or after the current line (-1: nowhere in the chunk; -2: not looked for yet).
  const nextOther = others.map(() => -2);
  /** @param {number} ls @param {number} lineEnd */
  const holdsOthers = (ls, lineEnd) => {
    for (let j = 0; j < others.length; j++) {
      let at = /** @type {number} */ (nextOther[j]);
      if (at === -1) return false;
      if (at < ls) nextOther[j] = at = chunk.indexOf(/** @type {Buffer} */ (others[j]), ls);
      if (at < 0 || at >= lineEnd) return false;
    }
    return true;
  };
  return (h) => {
    const ls = h === 0 ? 0 : chunk.lastIndexOf(10, h - 1) + 1;
    const le = chunk.indexOf(10, h);
    const lineEnd = le < 0 ? chunk.length : le;
    const textEnd = le >= 0 && lineEnd > ls && chunk[lineEnd - 1] === 13 ? lineEnd - 1 : lineEnd;
    if (others.length > 0 && !holdsOthers(ls, lineEnd)) return le;
    if (countOnly) {
      let text = latin1Of(chunk, ls, textEnd);
      if (!plan.asciiOnly && NON_ASCII.test(text)) text = chunk.toString('utf8', ls, textEnd);
      lineRe.lastIndex = 0;
      if (lineRe.test(text)) r.count++;
    } else if (record(ls, -1)) {
      r.count++;
      if (r.matches.length >= cap) r.capped = true;
    }
    return le;
  };
}

/** A latin1-decoded line holds a byte >= 0x80: it is decoded again as UTF-8. */
const NON_ASCII = /[\u0080-\uffff]/;
/** @typedef {Buffer & { latin1Slice?: (start: number, end: number) => string }} SliceableBuffer */
/**
 * buf.toString('latin1', start, end) without its argument checks (~30% of a
 * short line's decode): Node's own latin1Slice where the Buffer has it.
 * @type {(buf: Buffer, start: number, end: number) => string}
 */
const latin1Of =
  typeof (/** @type {SliceableBuffer} */ (Buffer.prototype).latin1Slice) === 'function'
    ? (buf, start, end) => /** @type {(start: number, end: number) => string} */ (/** @type {SliceableBuffer} */ (buf).latin1Slice)(start, end)
    : (buf, start, end) => buf.toString('latin1', start, end);

/**
 * searchUtf8Chunk through the find kernel (range-search.mjs reads the chunk into
 * its window): a literal's or a case-insensitive word's lines are its hits (a
 * count never leaves the kernel); with required literals, the rarest one's hits
 * are the candidate lines, checked for the others and matched as in searchRequired.
 * @param {import('./range-search.mjs').RangeSearch} rs
 * @param {Buffer} chunk whole lines at the start of the kernels' input window
 * @param {number} chunkStart file offset of chunk[0]
 * @param {import('../kernels/kernels.d.mts').Kernels} kernels
 */
export function searchKernelChunk(rs, chunk, chunkStart, kernels) {
  const plan = rs.plan;
  const r = rs.result;
  const countOnly = rs.o.countOnly;
  const cap = rs.o.maxMatches + 1;
  const exact = plan.needle ?? plan.folded;
  const fold = !plan.needle && plan.folded !== null;
  const len = chunk.length;
  if (exact && countOnly) {
    r.count += kernels.findLines(0, len, exact, fold, 0).found;
    return;
  }
  if (!exact && requiredOf(rs, chunk).dense) return searchUtf8Chunk(rs, chunk, chunkStart);
  const record = matchRecorder(rs, chunk, chunkStart);
  const [needle, ...others] = exact ? [exact] : requiredOf(rs, chunk).order;
  const test = exact ? null : candidateTest(rs, chunk, others, record);
  const hits = kernels.hits;
  let p = 0;
  while (p < len) {
    const { found, stop } = kernels.findLines(p, len, needle, fold, HITS_MAX);
    for (let i = 0; i < found; i++) {
      const h = /** @type {number} */ (hits[i]);
      if (test) test(h);
      else {
        // a literal's match (its count alone never gets here)
        r.count++;
        record(h === 0 ? 0 : chunk.lastIndexOf(10, h - 1) + 1, h);
        if (r.matches.length >= cap) r.capped = true;
      }
      if (r.capped) return;
    }
    if (found < HITS_MAX) return;
    p = stop;
  }
}

/**
 * The required literals, rarest first in a sample of the chunk (ties: longest first).
 * @param {Buffer[]} literals
 * @param {Buffer} chunk
 */
function byRarity(literals, chunk) {
  const sample = chunk.subarray(0, 256 * 1024);
  /** @param {Buffer} lit */
  const hits = (lit) => {
    let n = 0;
    for (let p = sample.indexOf(lit); p >= 0 && n < 100_000; p = sample.indexOf(lit, p + lit.length)) n++;
    return n;
  };
  const counted = literals.map((lit) => ({ lit, n: hits(lit) })).sort((a, b) => a.n - b.n || b.lit.length - a.lit.length);
  let lines = 0;
  for (let p = sample.indexOf(10); p >= 0; p = sample.indexOf(10, p + 1)) lines++;
  return { order: counted.map((c) => c.lit), rarestPerLine: /** @type {{ n: number }} */ (counted[0]).n / Math.max(1, lines) };
}

/**
 * Above this share of lines holding the rarest required literal, matching each
 * candidate line alone costs more than one regex pass over the chunk (measured
 * on a log: 14% of lines, 2.4x faster by candidates; 42%, 1.2x slower).
 */
const DENSE_CANDIDATES = 0.25;

/**
 * The range's required literals, rarest first in its first chunk, and whether
 * so many lines hold even the rarest that the chunk mode is faster (then the
 * range is searched as if there were none: the same answer, one regex pass).
 * @param {import('./range-search.mjs').RangeSearch} rs
 * @param {Buffer} chunk
 * @returns {{ order: [Buffer, ...Buffer[]], dense: boolean }}
 */
function requiredOf(rs, chunk) {
  if (!rs.required) {
    const { order, rarestPerLine } = byRarity(/** @type {Buffer[]} */ (rs.plan.required), chunk);
    rs.required = { order: /** @type {[Buffer, ...Buffer[]]} */ (order), dense: rarestPerLine > DENSE_CANDIDATES };
  }
  return rs.required;
}
