// @ts-check
/**
 * Timestamps of log lines, read from the bytes of a line (ASCII-compatible
 * encodings), for time_seek and the histogram. Formats, as logs write them:
 * - iso8601:  2024-05-01T12:30:00Z, 2024-05-01 12:30:00.123+02:00, ...,
 *             with `T` or a space, an optional fraction (`.` or `,`) and zone
 *             (Z, ±hh, ±hhmm, ±hh:mm); no zone reads as UTC;
 * - syslog:   Mmm dd hh:mm:ss (RFC 3164; the day may be space padded); it has no
 *             year, so the year is the caller's (the current one by default);
 * - apache:   [dd/Mmm/yyyy:hh:mm:ss ±zzzz] (Common/Combined Log Format, nginx),
 *             anywhere in the line's first 128 bytes (it follows the client address);
 * - epoch_s / epoch_ms: 10 digits of seconds (an optional fraction) or 13 digits
 *             of milliseconds, followed by no other digit.
 * The other formats sit at the line's start, after an optional `[`.
 * Plain JS: the histogram worker imports it without a TypeScript loader.
 */

/** @typedef {'iso8601' | 'syslog' | 'apache' | 'epoch_s' | 'epoch_ms'} TimeFormat */

/** @type {readonly TimeFormat[]} */
export const TIME_FORMATS = ['iso8601', 'syslog', 'apache', 'epoch_s', 'epoch_ms'];

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** How far into a line an Apache/nginx stamp may start. */
const APACHE_REACH = 128;

/**
 * @param {Uint8Array} b
 * @param {number} p
 * @param {number} n
 * @returns {number} the n-digit number at p, or -1
 */
function digits(b, p, n) {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = b[p + i];
    if (c === undefined || c < 48 || c > 57) return -1;
    v = v * 10 + (c - 48);
  }
  return v;
}

/** @param {Uint8Array} b @param {number} p */
const isDigit = (b, p) => {
  const c = b[p];
  return c !== undefined && c >= 48 && c <= 57;
};

/** @param {Uint8Array} b @param {number} p @returns {number} 0-based month of the 3-letter name at p, or -1 */
function monthAt(b, p) {
  const s = String.fromCharCode(b[p] ?? 0, b[p + 1] ?? 0, b[p + 2] ?? 0);
  return MONTHS.indexOf(s);
}

/**
 * @param {number} y @param {number} mo 0-based @param {number} d @param {number} h @param {number} mi @param {number} s
 * @returns {number} epoch ms, NaN when a field is out of range
 */
function utcOf(y, mo, d, h, mi, s) {
  if (mo < 0 || mo > 11 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return NaN;
  // Date.UTC once per day seen: a log's lines mostly share the day of the line before (a merge parses every line).
  if (y !== lastDay.y || mo !== lastDay.mo || d !== lastDay.d) lastDay = { y, mo, d, ms: Date.UTC(y, mo, d) };
  return lastDay.ms + ((h * 60 + mi) * 60 + s) * 1000;
}

/** The day utcOf saw last, and its start in epoch ms. */
let lastDay = { y: NaN, mo: NaN, d: NaN, ms: NaN };

/**
 * A fraction of a second at p (after its separator): [ms, bytes used].
 * @param {Uint8Array} b @param {number} p @param {number} end
 * @returns {[number, number]}
 */
function fractionAt(b, p, end) {
  let q = p;
  let ms = 0;
  let scale = 100;
  while (q < end && isDigit(b, q)) {
    const digit = /** @type {number} */ (b[q]) - 48;
    ms += digit * scale;
    scale /= 10;
    q++;
  }
  return [Math.floor(ms), q - p];
}

/**
 * ISO 8601 at p: epoch ms or NaN.
 * @param {Uint8Array} b @param {number} p @param {number} end
 */
function isoAt(b, p, end) {
  if (end - p < 19) return NaN;
  const y = digits(b, p, 4);
  if (y < 0 || b[p + 4] !== 45 || b[p + 7] !== 45) return NaN;
  const mo = digits(b, p + 5, 2);
  const d = digits(b, p + 8, 2);
  const sep = b[p + 10];
  if (sep !== 84 && sep !== 32) return NaN; // 'T' or ' '
  const h = digits(b, p + 11, 2);
  if (b[p + 13] !== 58 || b[p + 16] !== 58) return NaN;
  const mi = digits(b, p + 14, 2);
  const s = digits(b, p + 17, 2);
  if (mo < 0 || d < 0 || h < 0 || mi < 0 || s < 0) return NaN;
  let t = utcOf(y, mo - 1, d, h, mi, s);
  let q = p + 19;
  if (q < end && (b[q] === 46 || b[q] === 44) && isDigit(b, q + 1)) {
    const [ms, used] = fractionAt(b, q + 1, end);
    t += ms;
    q += 1 + used;
  }
  if (q >= end) return t;
  const z = b[q];
  if (z === 90) return t; // 'Z'
  if (z === 43 || z === 45) {
    const zh = digits(b, q + 1, 2);
    if (zh < 0) return t;
    let zm = 0;
    if (b[q + 3] === 58) zm = Math.max(0, digits(b, q + 4, 2));
    else if (isDigit(b, q + 3)) zm = Math.max(0, digits(b, q + 3, 2));
    const offset = (zh * 60 + zm) * 60_000;
    return z === 43 ? t - offset : t + offset;
  }
  return t;
}

/**
 * syslog `Mmm dd hh:mm:ss` at p.
 * @param {Uint8Array} b @param {number} p @param {number} end @param {number} year
 */
function syslogAt(b, p, end, year) {
  if (end - p < 15) return NaN;
  const mo = monthAt(b, p);
  if (mo < 0 || b[p + 3] !== 32) return NaN;
  const d = b[p + 4] === 32 ? digits(b, p + 5, 1) : digits(b, p + 4, 2);
  if (d < 0 || b[p + 6] !== 32) return NaN;
  const h = digits(b, p + 7, 2);
  const mi = digits(b, p + 10, 2);
  const s = digits(b, p + 13, 2);
  if (h < 0 || mi < 0 || s < 0 || b[p + 9] !== 58 || b[p + 12] !== 58) return NaN;
  return utcOf(year, mo, d, h, mi, s);
}

/**
 * Apache/nginx `[dd/Mmm/yyyy:hh:mm:ss ±zzzz]` at p (p is the '[').
 * @param {Uint8Array} b @param {number} p @param {number} end
 */
function apacheAt(b, p, end) {
  if (end - p < 21 || b[p] !== 91) return NaN;
  const d = digits(b, p + 1, 2);
  const mo = monthAt(b, p + 4);
  const y = digits(b, p + 8, 4);
  if (d < 0 || mo < 0 || y < 0 || b[p + 3] !== 47 || b[p + 7] !== 47 || b[p + 12] !== 58) return NaN;
  const h = digits(b, p + 13, 2);
  const mi = digits(b, p + 16, 2);
  const s = digits(b, p + 19, 2);
  if (h < 0 || mi < 0 || s < 0) return NaN;
  const t = utcOf(y, mo, d, h, mi, s);
  const z = b[p + 22];
  if (b[p + 21] === 32 && (z === 43 || z === 45)) {
    const zh = digits(b, p + 23, 2);
    const zm = digits(b, p + 25, 2);
    if (zh >= 0 && zm >= 0) return z === 43 ? t - (zh * 60 + zm) * 60_000 : t + (zh * 60 + zm) * 60_000;
  }
  return t;
}

/**
 * Epoch seconds (10 digits, optional fraction) or milliseconds (13 digits) at p.
 * @param {Uint8Array} b @param {number} p @param {number} end @param {boolean} millis
 */
function epochAt(b, p, end, millis) {
  const n = millis ? 13 : 10;
  if (end - p < n) return NaN;
  const v = digits(b, p, n);
  if (v < 0 || isDigit(b, p + n)) return NaN;
  if (millis) return v;
  if ((b[p + n] === 46 || b[p + n] === 44) && isDigit(b, p + n + 1)) return v * 1000 + fractionAt(b, p + n + 1, end)[0];
  return v * 1000;
}

/**
 * The time of the line b[start, end) in `format`, in epoch milliseconds, or NaN
 * when the line holds no such stamp.
 * @param {Uint8Array} b
 * @param {number} start
 * @param {number} end
 * @param {TimeFormat} format
 * @param {number} [year] syslog only: the year its stamps are in
 * @returns {number}
 */
export function timeOfLine(b, start, end, format, year = new Date().getUTCFullYear()) {
  let p = start;
  if (format !== 'apache' && b[p] === 91) p++; // '['
  switch (format) {
    case 'iso8601':
      return isoAt(b, p, end);
    case 'syslog':
      return syslogAt(b, p, end, year);
    case 'epoch_s':
      return epochAt(b, p, end, false);
    case 'epoch_ms':
      return epochAt(b, p, end, true);
    case 'apache': {
      const reach = Math.min(end, start + APACHE_REACH);
      for (let q = start; q < reach; q++) {
        if (b[q] !== 91) continue;
        const t = apacheAt(b, q, end);
        if (!Number.isNaN(t)) return t;
      }
      return NaN;
    }
    default:
      return NaN;
  }
}

/**
 * The format most of the sample's lines are stamped in, or null when fewer than
 * a quarter of them (and none at all) carry a stamp of any format.
 * @param {Uint8Array} b  whole lines
 * @param {number} [maxLines]
 * @returns {{ format: TimeFormat, stamped: number, sampled: number } | null}
 */
export function detectTimeFormat(b, maxLines = 200) {
  /** @type {Record<string, number>} */
  const hits = {};
  let sampled = 0;
  let start = 0;
  while (start < b.length && sampled < maxLines) {
    let end = b.indexOf(10, start);
    if (end < 0) end = b.length;
    const lineEnd = end > start && b[end - 1] === 13 ? end - 1 : end;
    if (lineEnd > start) {
      sampled++;
      for (const f of TIME_FORMATS) if (!Number.isNaN(timeOfLine(b, start, lineEnd, f, 2000))) hits[f] = (hits[f] ?? 0) + 1;
    }
    start = end + 1;
  }
  let best = /** @type {TimeFormat | null} */ (null);
  for (const f of TIME_FORMATS) if ((hits[f] ?? 0) > (best ? (hits[best] ?? 0) : 0)) best = f;
  const stamped = best ? (hits[best] ?? 0) : 0;
  if (!best || stamped * 4 < sampled) return null;
  return { format: best, stamped, sampled };
}

/**
 * A time a person or an agent typed, in epoch ms, or NaN: any stamp format above
 * (ISO 8601 may stop after the date or the minutes), or a time of day
 * `hh:mm[:ss[.fff]]` on the UTC day of `dayOfMs` (the file's first stamp).
 * @param {string} text
 * @param {number} dayOfMs
 * @param {number} year  syslog's year
 * @returns {number}
 */
export function parseTimeInput(text, dayOfMs, year) {
  const s = text.trim();
  const clock = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,3}))?)?$/.exec(s);
  if (clock) {
    const [h, mi, sec] = [Number(clock[1]), Number(clock[2]), Number(clock[3] ?? 0)];
    if (h > 23 || mi > 59 || sec > 60 || !Number.isFinite(dayOfMs)) return NaN;
    const day = Math.floor(dayOfMs / 86_400_000) * 86_400_000;
    return day + ((h * 60 + mi) * 60 + sec) * 1000 + Number((clock[4] ?? '').padEnd(3, '0'));
  }
  const date = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?$/.exec(s);
  if (date) return utcOf(Number(date[1]), Number(date[2]) - 1, Number(date[3]), Number(date[4] ?? 0), Number(date[5] ?? 0), 0);
  const syslogShort = /^([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2})$/.exec(s);
  if (syslogShort) {
    const mo = MONTHS.indexOf(syslogShort[1] ?? '');
    return mo < 0 ? NaN : utcOf(year, mo, Number(syslogShort[2]), Number(syslogShort[3]), Number(syslogShort[4]), 0);
  }
  if (/^\d{10}(?:[.,]\d+)?$/.test(s) || /^\d{13}$/.test(s))
    return timeOfLine(Buffer.from(s), 0, s.length, s.length === 13 && !/[.,]/.test(s) ? 'epoch_ms' : 'epoch_s');
  const b = Buffer.from(/^\d{2}\//.test(s) ? `[${s}]` : s);
  for (const f of /** @type {TimeFormat[]} */ (['iso8601', 'apache'])) {
    const t = timeOfLine(b, 0, b.length, f, year);
    if (!Number.isNaN(t)) return t;
  }
  const sys = /^([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}:\d{2}:\d{2})$/.exec(s);
  if (sys) {
    const padded = Buffer.from(`${sys[1]} ${(sys[2] ?? '').padStart(2, ' ')} ${sys[3]}`);
    return timeOfLine(padded, 0, padded.length, 'syslog', year);
  }
  return NaN;
}
