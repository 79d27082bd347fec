// @ts-check
/**
 * Regex search of one byte range of a file (whole lines), for search.ts. This file
 * is both the worker script of the search pool and the module the main thread
 * imports to search small files in the calling thread; the code is the same.
 * The algorithm is in its own modules: plan.mjs (compile a search, pick a mode),
 * range-search.mjs (read a range chunk by chunk), scan-utf8.mjs and
 * scan-decoded.mjs (search a chunk), line-text.mjs (where a match is in its line).
 * Plain JS: worker threads load it without a TypeScript loader, and bundles build
 * it with esbuild (scripts/engine-runtime.mjs).
 */
import { closeSync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { planSearch } from './plan.mjs';
import { RangeSearch } from './range-search.mjs';

export { planSearch, isAsciiOnlyRegex, boundedRegex } from './plan.mjs';
export { isLinearTimeRegex } from './regex-engine.mjs';
export { RangeSearch, SEARCH_CHUNK } from './range-search.mjs';
/** @typedef {import('./plan.mjs').SearchPlan} SearchPlan */
/** @typedef {import('./range-search.mjs').RawMatch} RawMatch */
/** @typedef {import('./range-search.mjs').RangeResult} RangeResult */

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
 * @property {SharedArrayBuffer} progress Int32 pair per piece: KiB searched, matching lines found
 * @property {Uint8Array} [bytes] the range's bytes, read by the caller (a remote value: search.ts); else the worker reads `path`
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
  const bytes = job.bytes;
  const fd = bytes ? -1 : openSync(job.path, 'r');
  /** @type {(fd: number, buf: Uint8Array, off: number, len: number, pos: number) => number} */
  const fromBytes = (_fd, buf, off, len, pos) => {
    const got = /** @type {Uint8Array} */ (bytes).subarray(pos - job.start, pos - job.start + len);
    buf.set(got, off);
    return got.length;
  };
  try {
    const rs = new RangeSearch({ ...job, plan, fd, ...(bytes ? { read: fromBytes } : {}) });
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
      // Rounded down mid-piece (never claim unsearched bytes), up at the end (search.ts caps it at the piece size).
      Atomics.store(progress, 2 * job.piece, (finished ? Math.ceil : Math.floor)(rs.bytesDone / 1024));
      Atomics.store(progress, 2 * job.piece + 1, Math.min(rs.result.count, 0x7fffffff));
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
    if (!bytes) closeSync(fd);
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
