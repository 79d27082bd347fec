// @ts-check
/**
 * The level of a log line, for the histogram: the first level word among the
 * line's first LEVEL_REACH bytes, as a whole word in upper case as logs write it
 * (the same words as the app's level filter). Error: FATAL, CRIT, CRITICAL,
 * ERROR, ERR; warn: WARN, WARNING; info: INFO; debug: DEBUG, TRACE; anything
 * else is "other". Plain JS: the histogram worker imports it.
 */

export const LEVEL_NAMES = /** @type {const} */ (['error', 'warn', 'info', 'debug', 'other']);
export const LEVEL_OTHER = 4;
/** How far into a line the level word may start (past the timestamp, host, program, thread). */
export const LEVEL_REACH = 128;

/** @param {number | undefined} c */
const isWordByte = (c) => c !== undefined && ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95);

/**
 * Whether b[p, p + word.length) is `word` (byte codes) and ends a word.
 * @param {Uint8Array} b @param {number} p @param {number} end @param {readonly number[]} word
 */
function wordAt(b, p, end, word) {
  const n = word.length;
  if (p + n > end) return false;
  for (let i = 1; i < n; i++) if (b[p + i] !== word[i]) return false;
  return p + n === end || !isWordByte(b[p + n]);
}

const codes = (/** @type {string} */ w) => Array.from(w, (ch) => ch.charCodeAt(0));
const [ERROR, ERR, WARN, WARNING, INFO, DEBUG, TRACE, FATAL, CRIT, CRITICAL] = [
  'ERROR',
  'ERR',
  'WARN',
  'WARNING',
  'INFO',
  'DEBUG',
  'TRACE',
  'FATAL',
  'CRIT',
  'CRITICAL',
].map(codes);

/**
 * The level of the word starting at p (an upper-case letter starting a word), or -1.
 * Compared byte by byte, no strings: this runs on every line of a multi-GB log.
 * @param {Uint8Array} b @param {number} p @param {number} end
 */
function levelWordAt(b, p, end) {
  switch (b[p]) {
    case 69: // E
      return wordAt(b, p, end, /** @type {number[]} */ (ERROR)) || wordAt(b, p, end, /** @type {number[]} */ (ERR)) ? 0 : -1;
    case 87: // W
      return wordAt(b, p, end, /** @type {number[]} */ (WARN)) || wordAt(b, p, end, /** @type {number[]} */ (WARNING)) ? 1 : -1;
    case 73: // I
      return wordAt(b, p, end, /** @type {number[]} */ (INFO)) ? 2 : -1;
    case 68: // D
      return wordAt(b, p, end, /** @type {number[]} */ (DEBUG)) ? 3 : -1;
    case 84: // T
      return wordAt(b, p, end, /** @type {number[]} */ (TRACE)) ? 3 : -1;
    case 70: // F
      return wordAt(b, p, end, /** @type {number[]} */ (FATAL)) ? 0 : -1;
    case 67: // C
      return wordAt(b, p, end, /** @type {number[]} */ (CRIT)) || wordAt(b, p, end, /** @type {number[]} */ (CRITICAL)) ? 0 : -1;
    default:
      return -1;
  }
}

/**
 * @param {Uint8Array} b
 * @param {number} start  the line's first byte
 * @param {number} end    the line's end (its '\n' or the range end)
 * @param {number} [skip] bytes at the start known to hold no level (the stamp: stampLength)
 * @returns {number} 0 error, 1 warn, 2 info, 3 debug, 4 other
 */
export function levelOfLine(b, start, end, skip = 0) {
  const stop = Math.min(end, start + LEVEL_REACH);
  let inWord = false;
  for (let p = start + skip; p < stop; p++) {
    const c = /** @type {number} */ (b[p]);
    if (c >= 65 && c <= 90) {
      if (!inWord) {
        const level = levelWordAt(b, p, end);
        if (level >= 0) return level;
      }
      inWord = true;
    } else inWord = (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c === 95;
  }
  return LEVEL_OTHER;
}

/**
 * The end of the line's level word (the one levelOfLine reads), or -1 when it has none.
 * @param {Uint8Array} b @param {number} start @param {number} end @param {number} [skip]
 */
export function levelWordEnd(b, start, end, skip = 0) {
  const stop = Math.min(end, start + LEVEL_REACH);
  let inWord = false;
  for (let p = start + skip; p < stop; p++) {
    const c = /** @type {number} */ (b[p]);
    if (c >= 65 && c <= 90) {
      if (!inWord && levelWordAt(b, p, end) >= 0) {
        let q = p + 1;
        while (q < end && isWordByte(b[q])) q++;
        return q;
      }
      inWord = true;
    } else inWord = (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c === 95;
  }
  return -1;
}

/**
 * How many bytes at the line's start are its stamp's fixed part, by the stamp's
 * shape alone (no parsing), so the level scan starts after them; 0 when the line
 * does not start like a stamp of `format` (a stack trace line is scanned whole).
 * @param {Uint8Array} b @param {number} start @param {number} end
 * @param {string} format  a TimeFormat
 */
export function stampLength(b, start, end, format) {
  const c = b[start];
  if (c === undefined || c < 48 || c > 57) {
    // syslog "Mmm dd hh:mm:ss"
    return format === 'syslog' && end - start >= 15 && b[start + 3] === 32 && b[start + 9] === 58 && b[start + 12] === 58 ? 15 : 0;
  }
  switch (format) {
    case 'iso8601':
      return end - start >= 19 && b[start + 4] === 45 && b[start + 13] === 58 && b[start + 16] === 58 ? 19 : 0;
    case 'epoch_s':
      return end - start >= 10 ? 10 : 0;
    case 'epoch_ms':
      return end - start >= 13 ? 13 : 0;
    default:
      return 0;
  }
}
