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
 * @property {Buffer[] | null} required ASCII byte strings every matching line holds (requiredLiteralsOf): only lines holding them all are tested
 * @property {Buffer | null} folded a case-insensitive word (printable ASCII, no metacharacter, flag 'i'), lower-cased: a line matches
 *   exactly when its bytes hold it with ASCII letters in either case (the find kernel's `fold`); the chunk mode gives the same answer
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
    required: literal ? null : requiredBytesOf(pattern, own),
    folded: foldedWordOf(pattern, own),
  };
}

/**
 * A case-insensitive search for a plain ASCII word, lower-cased, or null. Without
 * 'u', a JS regex folds a character to an ASCII one only from ASCII (ES
 * Canonicalize), so ASCII case folding of the bytes is exact; with 'u', K (U+212A)
 * folds to k and ſ (U+017F) to s, so a word with k or s is left to the regex.
 * @param {string} pattern
 * @param {string} flags
 */
function foldedWordOf(pattern, flags) {
  if (!flags.includes('i') || !/^[\x20-\x7e]+$/.test(pattern) || META.test(pattern)) return null;
  const lower = pattern.toLowerCase();
  if (flags.includes('u') && /[ks]/.test(lower)) return null;
  return Buffer.from(lower, 'latin1');
}

/** @param {string} pattern @param {string} flags */
function requiredBytesOf(pattern, flags) {
  const lits = requiredLiteralsOf(pattern, flags);
  return lits.length === 0 ? null : lits.map((l) => Buffer.from(l, 'latin1'));
}

/** The longest required literal (requiredLiteralsOf), or null. */
export function requiredLiteralOf(/** @type {string} */ pattern, /** @type {string} */ flags) {
  return requiredLiteralsOf(pattern, flags)[0] ?? null;
}

/**
 * Literals every line the regex matches must contain, longest first: the runs
 * of literal characters outside groups (topLevelRunsOf), and those found among the pattern's top-level groups that are not quantified (so each
 * must match for the whole pattern to): a lookahead `(?=.*LIT)` / `(?=.*?(?:LIT))`
 * (the filter view's "matching" terms, filter-query.ts) or a group of literal
 * alternatives `(?:ERROR|ERR)` (their common prefix), `\b` around them allowed.
 * Only without 'i', only printable ASCII of at least 3 characters, and nothing
 * when the pattern has a top-level `|`. Conservative: anything not understood
 * gives no literal. A required literal only narrows the lines tested: every
 * candidate line is still matched with the regex.
 * @param {string} pattern
 * @param {string} flags
 * @returns {string[]}
 */
export function requiredLiteralsOf(pattern, flags) {
  if (flags.includes('i')) return [];
  const tops = topLevelGroupsOf(pattern);
  if (tops === null) return [];
  /** @type {string[]} */
  const found = [];
  for (const g of tops) {
    const look = /^\(\?=\.\*\??([^]*)\)$/.exec(g);
    const body = look ? look[1] : /^\((?:\?:)?([^]*)\)$/.exec(g)?.[1];
    if (body === undefined || g.startsWith('(?!') || g.startsWith('(?<')) continue;
    const lit = literalPrefixOf(/** @type {string} */ (body));
    if (lit !== null && lit.length >= 3 && /^[\x20-\x7e]+$/.test(lit) && !found.includes(lit)) found.push(lit);
  }
  for (const run of topLevelRunsOf(pattern)) if (run.length >= 3 && !found.includes(run)) found.push(run);
  return found.sort((a, b) => b.length - a.length);
}

/**
 * The runs of literal characters outside any group (`ERROR` and `timeout` of
 * `ERROR.*timeout`): with no top-level `|`, each is in every match. A character
 * under a quantifier is not (`ab?c` holds `a` and `c`, not `abc`); classes,
 * `.`, escapes that are not punctuation, anchors and groups end a run; a `{`
 * skips to its `}` (a literal `{` is only lost, never invented). Printable
 * ASCII only.
 * @param {string} src a pattern with no top-level `|` (topLevelGroupsOf checked)
 * @returns {string[]}
 */
function topLevelRunsOf(src) {
  /** @type {string[]} */
  const runs = [];
  let run = '';
  let lastWasChar = false;
  const flush = () => {
    if (run.length > 0) runs.push(run);
    run = '';
    lastWasChar = false;
  };
  let depth = 0;
  for (let i = 0; i < src.length; i++) {
    const c = /** @type {string} */ (src[i]);
    if (c === '\\') {
      const e = src[i + 1] ?? '';
      i++;
      if (depth > 0) continue;
      if (/[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(e)) {
        run += e;
        lastWasChar = true;
        continue;
      }
      flush();
      if (e !== 'b' && e !== 'B') {
        // \x41, \u{…}, \p{…}, \k<…>, \12: skip what the escape takes
        while (i + 1 < src.length && /[0-9A-Za-z]/.test(/** @type {string} */ (src[i + 1]))) i++;
        if (src[i + 1] === '{' || src[i + 1] === '<') {
          const close = src.indexOf(src[i + 1] === '{' ? '}' : '>', i + 1);
          i = close < 0 ? src.length : close;
        }
      }
    } else if (c === '[') {
      // a class: skip it whole
      let j = i + 1;
      if (src[j] === '^') j++;
      if (src[j] === ']') j++;
      while (j < src.length && src[j] !== ']') j += src[j] === '\\' ? 2 : 1;
      i = j;
      if (depth === 0) flush();
    } else if (c === '(') {
      if (depth === 0) flush();
      depth++;
    } else if (c === ')') {
      depth--;
    } else if (depth > 0) {
      continue;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      if (lastWasChar) run = run.slice(0, -1);
      flush();
      if (c === '{') {
        const close = src.indexOf('}', i);
        i = close < 0 ? src.length : close;
      }
    } else if (c === '.' || c === '^' || c === '$' || c === '|' || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) > 0x7e) {
      flush();
    } else {
      run += c;
      lastWasChar = true;
    }
  }
  flush();
  return runs;
}

/**
 * The top-level groups of a pattern that are not followed by a quantifier, or
 * null when the pattern has a top-level alternation (or cannot be read).
 * @param {string} src
 * @returns {string[] | null}
 */
function topLevelGroupsOf(src) {
  /** @type {string[]} */
  const tops = [];
  let depth = 0;
  let inClass = false;
  let start = -1;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === ')') {
      depth--;
      if (depth < 0) return null;
      if (depth === 0 && !/[*+?{]/.test(src[i + 1] ?? '')) tops.push(src.slice(start, i + 1));
    } else if (c === '|' && depth === 0) return null;
  }
  return depth === 0 ? tops : null;
}

/**
 * The literal text every match of `body` starts with, or null: the body read as
 * (\b)? (literal | (?:literal|literal…)) (\b)?, literals of plain characters and
 * escaped punctuation.
 * @param {string} body
 * @returns {string | null}
 */
function literalPrefixOf(body) {
  let b = body;
  for (let k = 0; k < 4; k++) {
    b = b.replace(/^\\b/, '').replace(/\\b$/, '');
    const w = /^\(\?:([^]*)\)$/.exec(b);
    if (!w || !wholeGroup(b)) break;
    b = w[1] ?? '';
  }
  if (/[()[\]]/.test(b.replace(/\\./g, ''))) return null;
  const alternatives = splitTopLevelBars(b).map(plainLiteralOf);
  if (alternatives.some((a) => a === null || a === '')) return null;
  let prefix = /** @type {string} */ (alternatives[0]);
  for (const a of alternatives) {
    let n = 0;
    while (n < prefix.length && n < /** @type {string} */ (a).length && prefix[n] === /** @type {string} */ (a)[n]) n++;
    prefix = prefix.slice(0, n);
  }
  return prefix;
}

/**
 * Whether the group opening at s[0] closes at the last character.
 * @param {string} s
 */
function wholeGroup(s) {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i === s.length - 1;
  }
  return false;
}

/** @param {string} s */
function splitTopLevelBars(s) {
  /** @type {string[]} */
  const parts = [];
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '|') {
      parts.push(s.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(s.slice(from));
  return parts;
}

/**
 * A regex source of plain characters and escaped punctuation as its literal text, or null.
 * @param {string} s
 */
function plainLiteralOf(s) {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = /** @type {string} */ (s[i]);
    if (c === '\\') {
      const e = s[i + 1];
      if (e === undefined || /[0-9A-Za-z]/.test(e)) return null;
      out += e;
      i++;
    } else if (/[.^$|?*+()[\]{}]/.test(c)) return null;
    else out += c;
  }
  return out;
}

/**
 * True when no input can make the regex run for long: V8's linear-time engine can
 * run it (regex-engine.mjs), or it has no choice point at all (no quantifier, no
 * alternation; '?' of '(?:' counts too, conservatively), so a backtracking engine
 * tries each start position once: O(line length x pattern length). The common
 * case-insensitive word search ('timeout', 'i') is the second kind. Every search
 * plan asks this before its regex runs, and a pattern with a choice point goes through
 * isLinearTimeRegex, which turns V8's linear-time fallback on for the process: the
 * first search that could backtrack is what sets the flags (regex-engine.mjs).
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
