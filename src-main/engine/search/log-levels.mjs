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

/** @type {Map<string, number>} */
const WORDS = new Map([
  ['FATAL', 0],
  ['CRIT', 0],
  ['CRITICAL', 0],
  ['ERROR', 0],
  ['ERR', 0],
  ['WARN', 1],
  ['WARNING', 1],
  ['INFO', 2],
  ['DEBUG', 3],
  ['TRACE', 3],
]);

/** @param {number | undefined} c */
const isWordByte = (c) => c !== undefined && ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95);

/**
 * @param {Uint8Array} b
 * @param {number} start  the line's first byte
 * @param {number} end    the line's end (its '\n' or the range end)
 * @returns {number} 0 error, 1 warn, 2 info, 3 debug, 4 other
 */
export function levelOfLine(b, start, end) {
  const stop = Math.min(end, start + LEVEL_REACH);
  let p = start;
  while (p < stop) {
    const c = /** @type {number} */ (b[p]);
    // An upper-case letter that starts a word.
    if (c >= 65 && c <= 90 && (p === start || !isWordByte(b[p - 1]))) {
      let q = p + 1;
      while (q < end && /** @type {number} */ (b[q]) >= 65 && /** @type {number} */ (b[q]) <= 90) q++;
      const len = q - p;
      if (len >= 3 && len <= 8 && !isWordByte(b[q])) {
        const level = WORDS.get(String.fromCharCode.apply(null, /** @type {number[]} */ (/** @type {unknown} */ (b.subarray(p, q)))));
        if (level !== undefined) return level;
      }
      p = q;
      continue;
    }
    p++;
  }
  return LEVEL_OTHER;
}
