// @ts-check
/**
 * Which lines of a chunk of a file a regex matches, for line-filter.ts: the
 * worker script of the line-filter pool. A merge's `match` runs here, never on
 * the thread that answers calls, because a regex V8's linear-time engine cannot
 * run (the `i` and `u` flags, lookarounds: regex-engine.mjs) can backtrack for
 * hours on one line; a worker stuck in one exec is terminated at its budget. The
 * worker reads the file itself, so the merge copies no line: it splits lines as
 * merge-lines.ts's LineReader does (LF; a CR before it is no part of the text; the
 * last line may have no LF) and tests each one's text decoded as UTF-8.
 * Plain JS: worker threads load it without a TypeScript loader.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { useLinearFallback } from './regex-engine.mjs';

/** Bytes read per step; a longer line grows the buffer up to MAX_LINE_BYTES. */
const READ_BYTES = 1 << 20;
/** As merge-lines.ts: a line longer than this is not tested (the merge refuses it as too_large when it gets there). */
const MAX_LINE_BYTES = 64 << 20;

/**
 * @typedef {object} LineFilterJob
 * @property {string} pattern
 * @property {string} flags    of 'imsu'
 * @property {string} path
 * @property {number} start    a line start
 * @property {number} end      the file's size as the merge saw it: lines end there
 * @property {number} maxLines  lines to test at most
 * @property {number} maxBytes  stop at the first line end past this many bytes (at least one line is tested)
 */

/**
 * @typedef {object} LineFilterAnswer
 * @property {Uint8Array} keep  1 for each line tested that matches, else 0
 * @property {number} next      the byte after the last line tested
 */

/** @type {{ key: string, re: RegExp | null }} */
const compiled = { key: '', re: null };

/** @param {string} pattern @param {string} flags */
function regexOf(pattern, flags) {
  const key = `${flags}/${pattern}`;
  if (compiled.key !== key || !compiled.re) {
    useLinearFallback();
    compiled.re = new RegExp(pattern, flags);
    compiled.key = key;
  }
  return compiled.re;
}

/**
 * Test the lines of job.path from job.start, up to maxLines of them or the first
 * line end past maxBytes, or the end.
 * @param {LineFilterJob} job
 * @returns {LineFilterAnswer}
 */
export function filterChunk(job) {
  const re = regexOf(job.pattern, job.flags);
  const keep = new Uint8Array(job.maxLines);
  let n = 0;
  const fd = openSync(job.path, 'r');
  try {
    let buf = Buffer.allocUnsafe(Math.min(READ_BYTES, Math.max(1, job.end - job.start)));
    /** file offset of buf[0]; buf[off, len) is read and not yet tested */
    let base = job.start;
    let off = 0;
    let len = 0;
    let eof = base >= job.end;
    while (n < job.maxLines && base + off - job.start < job.maxBytes) {
      let nl = buf.indexOf(10, off);
      if (nl >= len) nl = -1;
      if (nl < 0 && !eof) {
        // Read on: keep the partial line, in a bigger buffer when it fills this one.
        const tail = len - off;
        if (tail >= buf.length / 2 && buf.length < MAX_LINE_BYTES) {
          const bigger = Buffer.allocUnsafe(Math.min(MAX_LINE_BYTES, buf.length * 2));
          buf.copy(bigger, 0, off, len);
          buf = bigger;
        } else {
          buf.copy(buf, 0, off, len);
        }
        base += off;
        off = 0;
        len = tail;
        const want = Math.min(buf.length - len, job.end - (base + len));
        const got = want > 0 ? readSync(fd, buf, len, want, base + len) : 0;
        if (got <= 0) eof = true;
        len += Math.max(0, got);
        if (len === buf.length && buf.indexOf(10, off) < 0 && buf.length >= MAX_LINE_BYTES) {
          // A line longer than MAX_LINE_BYTES: the merge stops there (too_large) before it needs this answer.
          break;
        }
        continue;
      }
      if (off >= len) break; // the end: no line left
      const lineEnd = nl < 0 ? len : nl + 1;
      let content = nl < 0 ? len : nl;
      if (content > off && buf[content - 1] === 13) content--;
      keep[n++] = re.test(buf.toString('utf8', off, content)) ? 1 : 0;
      off = lineEnd;
    }
    return { keep: keep.slice(0, n), next: base + off };
  } finally {
    closeSync(fd);
  }
}

// Worker entry: only when started by the line-filter pool (not when imported).
if (parentPort && workerData && workerData.folioLineFilterWorker) {
  const port = parentPort;
  port.on('message', (/** @type {LineFilterJob & { id: number }} */ job) => {
    try {
      const answer = filterChunk(job);
      port.postMessage({ id: job.id, result: answer }, [/** @type {ArrayBuffer} */ (answer.keep.buffer)]);
    } catch (err) {
      const e = /** @type {NodeJS.ErrnoException} */ (err);
      port.postMessage({ id: job.id, error: { message: e.message, code: e.code } });
    }
  });
}
