// @ts-check
/**
 * A compiled search: the regexes and which of three ways finds candidate lines,
 * all giving the same answer (test/engine/search.test.ts checks them against a
 * plain per-line oracle). Each line is matched on its own (a regex never matches
 * across lines), so `^` and `$` match at line starts and ends.
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
 * scan-utf8.mjs runs the three modes; scan-decoded.mjs runs lineRe only.
 */

import { isLinearTimeRegex } from './regex-engine.mjs';

const META = /[\\^$.|?*+()[\]{}]/;
/** Quantifiers and alternation: the only choice points a backtracking engine can multiply. */
const CHOICE = /[*+?{|]/;
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
 * @property {boolean} bounded no line can make the regex backtrack without limit (see boundedRegex)
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
    bounded: literal || boundedRegex(pattern, own),
  };
}

/**
 * True when no input can make the regex run for long: V8's linear-time engine can
 * run it (regex-engine.mjs), or it has no choice point at all (no quantifier, no
 * alternation; '?' of '(?:' counts too, conservatively), so a backtracking engine
 * tries each start position once: O(line length x pattern length). The common
 * case-insensitive word search ('timeout', 'i') is the second kind.
 * @param {string} pattern
 * @param {string} flags
 */
export function boundedRegex(pattern, flags) {
  return !CHOICE.test(pattern) || isLinearTimeRegex(pattern, flags);
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
