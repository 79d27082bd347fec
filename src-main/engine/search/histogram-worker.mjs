// @ts-check
/**
 * Line counts per level per time bucket over one byte range of a file (whole
 * lines), for histogram.ts: the worker script of the histogram pool, and the
 * module the main thread imports for small ranges (same code).
 *
 * Every line's level is read (log-levels.mjs: a look at its first 128 bytes).
 * Timestamps are parsed only where needed: the range is cut into segments of
 * about SEGMENT_BYTES, and when a segment's first and last lines fall in the same
 * bucket (the file is in time order) all its lines are counted there without
 * parsing the others. A segment that straddles a bucket boundary, has an
 * unstamped last line, or follows a break of the order is counted line by line.
 * On an ordered file only about one segment per bucket is parsed line by line.
 * Lines without a stamp take the previous stamped line's time (a stack trace
 * belongs to the line that logged it); those before any stamp are `unstamped`.
 * Plain JS: worker threads load it without a TypeScript loader.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { levelOfLine, stampLength } from './log-levels.mjs';
import { timeOfLine } from './timestamps.mjs';

/** Bytes read per step (whole lines of it are counted; the partial last line is read again with the next step). */
const READ_BYTES = 1 << 20;
/** Lines are counted in segments of about this size; a segment's two ends decide whether its lines need their own stamps. */
export const SEGMENT_BYTES = 64 * 1024;
/** How far before a range the stamp its first lines inherit is looked for. */
const CARRY_LOOKBACK = 64 * 1024;
/** A line longer than this is counted by its first READ_BYTES bytes' worth of level and stamp. */
const MAX_BUFFER = 64 << 20;

/**
 * @typedef {object} HistogramJob
 * @property {string} path
 * @property {number} start   a line start
 * @property {number} end     a line start or the file size
 * @property {import('./timestamps.mjs').TimeFormat} format
 * @property {number} year
 * @property {number} originMs  first bucket's start
 * @property {number} bucketMs
 * @property {number} buckets
 * @property {number} [carryMs]  the last stamp before `start` (NaN: none), read by the caller with the line index
 * @property {SharedArrayBuffer} [progress]  Int32 per piece: KiB counted
 * @property {SharedArrayBuffer} [control]   Int32 [cancel flag]
 * @property {number} [piece]
 */

/**
 * @typedef {object} HistogramPart
 * @property {number[]} counts   buckets × 5 (error, warn, info, debug, other), bucket-major
 * @property {number[]} unstampedLevels  lines before any stamp, per level
 * @property {number[]} outsideLevels    lines stamped outside the buckets' span, per level
 * @property {number} lines
 * @property {number} parsedBytes  bytes of segments counted line by line
 * @property {{ byte: number, timeBefore: number, time: number } | null} orderBreak  the first stamp earlier than the one before it
 * @property {boolean} cancelled
 */

/**
 * The last stamp before `start` (within CARRY_LOOKBACK), or NaN.
 * @param {number} fd @param {number} start @param {import('./timestamps.mjs').TimeFormat} format @param {number} year
 */
function carriedTime(fd, start, format, year) {
  if (start === 0) return NaN;
  const from = Math.max(0, start - CARRY_LOOKBACK);
  const buf = Buffer.allocUnsafe(start - from);
  const n = readSync(fd, buf, 0, buf.length, from);
  let end = n;
  // Walk lines backwards: [ls, end) without its '\n'.
  if (end > 0 && buf[end - 1] === 10) end--;
  while (end > 0) {
    const nl = buf.lastIndexOf(10, end - 1);
    if (nl < 0 && from > 0) return NaN; // cut line
    const ls = nl + 1;
    const t = timeOfLine(buf, ls, end, format, year);
    if (!Number.isNaN(t)) return t;
    end = nl;
  }
  return NaN;
}

/** @param {ArrayLike<number>} a @param {number} i */
const at = (a, i) => /** @type {number} */ (a[i]);

/**
 * A copy of a segment array twice as long (same type).
 * @template {Int32Array | Uint8Array} T @param {T} a @returns {T}
 */
function doubled(a) {
  const b = /** @type {T} */ (new /** @type {any} */ (a).constructor(a.length * 2));
  b.set(a);
  return b;
}

/**
 * The position after the end of the line `pos` is inside (or `end`): skips the
 * rest of a line longer than MAX_BUFFER.
 * @param {number} fd @param {number} pos @param {number} end
 */
function pastLineEnd(fd, pos, end) {
  const skip = Buffer.allocUnsafe(READ_BYTES);
  for (;;) {
    const r = readSync(fd, skip, 0, Math.min(READ_BYTES, end - pos), pos);
    if (r <= 0) break;
    const nl = skip.indexOf(10);
    if (nl >= 0 && nl < r) {
      pos += nl + 1;
      break;
    }
    pos += r;
  }
  return pos;
}

/**
 * @param {HistogramJob} job
 * @returns {HistogramPart}
 */
export function histogramPiece(job) {
  const { format, year, originMs, bucketMs, buckets } = job;
  const counts = new Float64Array(buckets * 5);
  const unstamped = new Float64Array(5);
  const outside = new Float64Array(5);
  const progress = job.progress ? new Int32Array(job.progress) : null;
  const control = job.control ? new Int32Array(job.control) : null;
  /** @type {HistogramPart} */
  const part = { counts: [], unstampedLevels: [], outsideLevels: [], lines: 0, parsedBytes: 0, orderBreak: null, cancelled: false };
  const fd = openSync(job.path, 'r');
  try {
    // The latest stamp seen (NaN: none yet); before the range, the caller's or one found nearby.
    let last = job.carryMs !== undefined ? job.carryMs : carriedTime(fd, job.start, format, year);
    let ordered = true;
    /** @param {number} t @param {number} at */
    const seen = (t, at) => {
      if (!Number.isNaN(last) && t < last) {
        if (!part.orderBreak) part.orderBreak = { byte: at, timeBefore: last, time: t };
        ordered = false;
      }
      last = t;
    };
    /** @param {number} t @returns {number} bucket, or -1 outside */
    const bucketOf = (t) => {
      const i = Math.floor((t - originMs) / bucketMs);
      return i >= 0 && i < buckets ? i : -1;
    };
    /** @param {number} t @param {number} level */
    const add = (t, level) => {
      if (Number.isNaN(t)) unstamped[level] = at(unstamped, level) + 1;
      else {
        const i = bucketOf(t);
        if (i < 0) outside[level] = at(outside, level) + 1;
        else counts[i * 5 + level] = at(counts, i * 5 + level) + 1;
      }
    };
    let buf = Buffer.allocUnsafe(READ_BYTES);
    let pos = job.start;
    // Per segment: its lines' starts and ends, levels (reused arrays).
    let segStarts = new Int32Array(4096);
    let segEnds = new Int32Array(4096);
    let segLevels = new Uint8Array(4096);
    while (pos < job.end) {
      if (control && Atomics.load(control, 0) !== 0) {
        part.cancelled = true;
        break;
      }
      const want = Math.min(buf.length, job.end - pos);
      const got = readSync(fd, buf, 0, want, pos);
      if (got <= 0) break;
      // Whole lines only, unless the range ends here.
      let n = got;
      if (pos + got < job.end) {
        const nl = buf.lastIndexOf(10, got - 1);
        if (nl < 0) {
          if (buf.length < MAX_BUFFER) {
            buf = Buffer.allocUnsafe(buf.length * 2);
            continue;
          }
          n = got; // one huge line: count what we hold as the line, skip to its end below
        } else n = nl + 1;
      }
      let ls = 0;
      while (ls < n) {
        // One segment: lines from ls until SEGMENT_BYTES have passed.
        const segStart = ls;
        let k = 0;
        while (ls < n && (ls - segStart < SEGMENT_BYTES || k === 0)) {
          let le = buf.indexOf(10, ls);
          if (le < 0 || le >= n) le = n;
          const lineEnd = le > ls && buf[le - 1] === 13 ? le - 1 : le;
          if (k === segStarts.length) {
            segStarts = doubled(segStarts);
            segEnds = doubled(segEnds);
            segLevels = doubled(segLevels);
          }
          segStarts[k] = ls;
          segEnds[k] = lineEnd;
          segLevels[k] = levelOfLine(buf, ls, lineEnd, stampLength(buf, ls, lineEnd, format));
          k++;
          ls = le + 1;
        }
        part.lines += k;
        // The fast path: first and last stamps in one bucket, in order.
        const tFirstOwn = timeOfLine(buf, at(segStarts, 0), at(segEnds, 0), format, year);
        const tFirst = Number.isNaN(tFirstOwn) ? last : tFirstOwn;
        const tLast = k > 1 ? timeOfLine(buf, at(segStarts, k - 1), at(segEnds, k - 1), format, year) : tFirst;
        const fast =
          ordered &&
          !Number.isNaN(tFirst) &&
          !Number.isNaN(tLast) &&
          tLast >= tFirst &&
          (Number.isNaN(last) || tFirst >= last) &&
          bucketOf(tFirst) === bucketOf(tLast) &&
          bucketOf(tFirst) >= 0;
        if (fast) {
          const base = bucketOf(tFirst) * 5;
          for (let j = 0; j < k; j++) counts[base + at(segLevels, j)] = at(counts, base + at(segLevels, j)) + 1;
          last = tLast;
        } else {
          part.parsedBytes += ls - segStart;
          for (let j = 0; j < k; j++) {
            const t = timeOfLine(buf, at(segStarts, j), at(segEnds, j), format, year);
            if (!Number.isNaN(t)) seen(t, pos + at(segStarts, j));
            add(last, at(segLevels, j));
          }
        }
      }
      pos += n;
      // A line longer than MAX_BUFFER: skip the rest of it.
      if (n === got && pos < job.end && buf[n - 1] !== 10) pos = pastLineEnd(fd, pos, job.end);
      if (progress && job.piece !== undefined) Atomics.store(progress, job.piece, Math.floor((pos - job.start) / 1024));
    }
    part.counts = Array.from(counts);
    part.unstampedLevels = Array.from(unstamped);
    part.outsideLevels = Array.from(outside);
    return part;
  } finally {
    closeSync(fd);
  }
}

// Worker entry: only when started by the histogram pool (not when imported).
if (parentPort && workerData && workerData.folioHistogramWorker) {
  const port = parentPort;
  port.on('message', (/** @type {HistogramJob & { id: number }} */ job) => {
    try {
      port.postMessage({ id: job.id, result: histogramPiece(job) });
    } catch (err) {
      const e = /** @type {NodeJS.ErrnoException} */ (err);
      port.postMessage({ id: job.id, error: { message: e.message, code: e.code } });
    }
  });
}
