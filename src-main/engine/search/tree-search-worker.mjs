// @ts-check
/**
 * Regex search of a batch of small files, for tree-search.ts: each file is read
 * whole in one go and searched as one chunk with the same scanner as a range of a
 * big file (scan-utf8.mjs), so a line matches here exactly when single-file search
 * says it does. Files are taken as UTF-8, like ripgrep does; a NUL byte in the
 * head (binary, or UTF-16 text) sends the file back to the caller to judge with
 * the engine's full sniff. Both the worker script of the tree-search pool and the
 * module the calling thread imports (threads: 0); plain JS, like search-worker.mjs.
 */
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { planSearch } from './plan.mjs';
import { searchUtf8Chunk } from './scan-utf8.mjs';

/** A NUL byte in this many head bytes marks a file binary (or UTF-16): the engine's sniff window. */
export const HEAD_SNIFF_BYTES = 64 * 1024;

/**
 * @typedef {object} TreeFileJob
 * @property {string} abs
 * @property {number} startByte  search from here (a cursor); snapped back to its line start
 */

/**
 * @typedef {object} TreeBatchJob
 * @property {TreeFileJob[]} files
 * @property {string} pattern
 * @property {string} flags
 * @property {boolean} countOnly
 * @property {number} maxMatches   per file; the worker keeps up to maxMatches + 1
 * @property {number} maxLineChars
 * @property {number} context      lines of context before and after each match
 * @property {number} bigBytes     files at least this big are sent back (status 'big') for the worker-pool search
 * @property {boolean} verify      open as checked: no final symlink, the open must land on `abs` (/proc/self/fd), regular file
 * @property {boolean} refuseLinks skip files with more than one hard link
 * @property {SharedArrayBuffer} [control] Int32 [stop flag]: set once the caller has all it needs; the rest of the batch is skipped
 */

/**
 * @typedef {object} TreeRawMatch
 * @property {number} line
 * @property {number} byteOffset
 * @property {number} nextLine   byte just past the line's '\n' (a cursor after this match)
 * @property {number} column
 * @property {string} text
 * @property {boolean} textTruncated
 * @property {string[]} [before]
 * @property {string[]} [after]
 */

/**
 * @typedef {object} TreeFileResult
 * @property {'ok' | 'big' | 'nul' | 'skip'} status  skip: gone, unreadable, not a regular file, or refused by verify
 * @property {number} size
 * @property {number} count
 * @property {TreeRawMatch[]} matches
 * @property {boolean} capped
 * @property {FileId} [id]  with matches: the version the matches were read from; absent when it may have changed since the read began
 */

/**
 * The fields of a file's identity that make its etag (engine/index/identity.ts etagOf).
 * @typedef {{ dev: number, ino: number, size: number, mtimeNs: string, ctimeNs: string }} FileId
 */

/**
 * @param {import('node:fs').BigIntStats} st
 * @returns {FileId}
 */
const idOf = (st) => ({ dev: Number(st.dev), ino: Number(st.ino), size: Number(st.size), mtimeNs: st.mtimeNs.toString(), ctimeNs: st.ctimeNs.toString() });
/**
 * A file last changed this long before its read began is the version the read saw:
 * a write during or after the read would have stamped it later (the kernel stamps
 * with a clock a few ms coarse). Files changed more recently answer no version.
 */
const SETTLED_MS = 1000;

/**
 * Text of the line [ls, le) of `buf` ('\r' before '\n' dropped), cut to maxChars code points.
 * @param {Buffer} buf
 * @param {number} ls
 * @param {number} le index of its '\n' or buf.length
 * @param {number} maxChars
 */
function lineText(buf, ls, le, maxChars) {
  const end = le > ls && buf[le - 1] === 13 ? le - 1 : le;
  const text = buf.toString('utf8', ls, Math.min(end, ls + maxChars * 4));
  if (text.length <= maxChars) return text;
  return Array.from(text).slice(0, maxChars).join('');
}

/**
 * Up to n lines before the line starting at ls, and after the line ending at nextLine.
 * @param {Buffer} buf
 * @param {number} ls
 * @param {number} nextLine
 * @param {number} n
 * @param {number} maxChars
 */
function contextOf(buf, ls, nextLine, n, maxChars) {
  /** @type {string[]} */
  const before = [];
  let end = ls;
  while (before.length < n && end > 0) {
    const nl = end - 1; // the '\n' ending the previous line
    const start = nl === 0 ? 0 : buf.lastIndexOf(10, nl - 1) + 1;
    before.unshift(lineText(buf, start, nl, maxChars));
    end = start;
  }
  /** @type {string[]} */
  const after = [];
  let start = nextLine;
  while (after.length < n && start < buf.length) {
    const nl = buf.indexOf(10, start);
    const le = nl < 0 ? buf.length : nl;
    after.push(lineText(buf, start, le, maxChars));
    start = le + 1;
  }
  return { before, after };
}

/** One read buffer per thread, grown as needed: most files fit, and nothing is left for the GC per file. */
let shared = Buffer.allocUnsafe(1 << 20);

/**
 * The bytes of a file of a batch (a view of the shared buffer, valid until the next
 * read), or null when it must be skipped; 'big' when it is at least bigBytes. `fd`
 * stays open for the caller to stat after the search (and close).
 * @param {string} abs
 * @param {TreeBatchJob} job
 * @returns {{ buf: Buffer | null | 'big', fd: number | null }}
 */
function readWhole(abs, job) {
  let fd;
  try {
    fd = openSync(abs, job.verify ? constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK : constants.O_RDONLY);
  } catch {
    return { buf: null, fd: null };
  }
  return { buf: readOpen(fd, abs, job), fd };
}

/**
 * @param {number} fd
 * @param {string} abs
 * @param {TreeBatchJob} job
 * @returns {Buffer | null | 'big'}
 */
function readOpen(fd, abs, job) {
  try {
    if (job.verify) {
      const st = fstatSync(fd);
      if (!st.isFile() || (job.refuseLinks && st.nlink > 1)) return null;
      // A directory of the path swapped for a symlink after the walk saw it: the open must still land on the path walked.
      if (process.platform === 'linux' && readlinkSync(`/proc/self/fd/${fd}`) !== abs) return null;
    }
    // Read to the end without a stat (the walk saw a regular file): one read for most files, and one more that says EOF.
    let got = 0;
    for (;;) {
      if (got === shared.length) {
        if (got >= job.bigBytes) return 'big';
        const bigger = Buffer.allocUnsafe(Math.min(shared.length * 2, job.bigBytes + 1));
        shared.copy(bigger, 0, 0, got);
        shared = bigger;
      }
      const n = readSync(fd, shared, got, shared.length - got, got);
      if (n <= 0) break;
      got += n;
      if (got >= job.bigBytes) return 'big';
    }
    return shared.subarray(0, got);
  } catch {
    return null;
  }
}

/**
 * @param {TreeFileJob} file
 * @param {TreeBatchJob} job
 * @param {import('./plan.mjs').SearchPlan} plan
 * @returns {TreeFileResult}
 */
export function searchTreeFile(file, job, plan) {
  /** @type {TreeFileResult} */
  const out = { status: 'skip', size: 0, count: 0, matches: [], capped: false };
  const began = Date.now();
  const { buf, fd } = readWhole(file.abs, job);
  try {
    searchRead(out, buf, file, job, plan);
    // The version searched (one fstat, for matching files only): the bytes read, and changed well before the read began.
    if (out.count > 0 && fd !== null && typeof buf === 'object' && buf !== null) {
      const st = fstatSync(fd, { bigint: true });
      const settled = BigInt(began - SETTLED_MS) * 1_000_000n;
      if (Number(st.size) === buf.length && st.mtimeNs < settled && st.ctimeNs < settled) out.id = idOf(st);
      else out.id = reread(fd, buf) ?? undefined;
    }
  } catch {
    // an fstat that failed: no version
  } finally {
    if (fd !== null) closeSync(fd);
  }
  return out;
}

/**
 * The version of a file changed just now, if its bytes are still `buf`: read again
 * between two fstats that agree (rare: a matching file changed within SETTLED_MS).
 * @param {number} fd
 * @param {Buffer} buf
 * @returns {FileId | null}
 */
function reread(fd, buf) {
  const before = idOf(fstatSync(fd, { bigint: true }));
  if (before.size !== buf.length) return null;
  const again = Buffer.allocUnsafe(buf.length + 1);
  let got = 0;
  for (let n; (n = readSync(fd, again, got, again.length - got, got)) > 0;) got += n;
  const after = idOf(fstatSync(fd, { bigint: true }));
  const same =
    before.dev === after.dev && before.ino === after.ino && before.size === after.size && before.mtimeNs === after.mtimeNs && before.ctimeNs === after.ctimeNs;
  return same && got === buf.length && again.subarray(0, got).equals(buf) ? before : null;
}

/**
 * Search the bytes `buf` read of `file` into `out`.
 * @param {TreeFileResult} out
 * @param {Buffer | null | 'big'} buf
 * @param {TreeFileJob} file
 * @param {TreeBatchJob} job
 * @param {import('./plan.mjs').SearchPlan} plan
 */
function searchRead(out, buf, file, job, plan) {
  if (buf === null) return out;
  if (buf === 'big') {
    out.status = 'big';
    return out;
  }
  out.size = buf.length;
  if (buf.subarray(0, HEAD_SNIFF_BYTES).indexOf(0) >= 0) {
    out.status = 'nul';
    return out;
  }
  out.status = 'ok';
  let start = Math.min(file.startByte, buf.length);
  // Snapped back to its line start; a cursor at the end (after a last line without '\n') leaves nothing to search.
  if (start > 0 && start < buf.length) start = buf.lastIndexOf(10, start - 1) + 1;
  let linesBefore = 0;
  for (let p = buf.indexOf(10); p >= 0 && p < start; p = buf.indexOf(10, p + 1)) linesBefore++;
  const rs = {
    plan,
    o: { countOnly: job.countOnly, maxMatches: job.maxMatches, maxLineChars: job.maxLineChars },
    result: /** @type {import('./range-search.mjs').RangeResult} */ ({ count: 0, matches: [], capped: false, stopped: false, cancelled: false }),
  };
  searchUtf8Chunk(/** @type {import('./range-search.mjs').RangeSearch} */ (/** @type {unknown} */ (rs)), buf.subarray(start), start);
  out.count = rs.result.count;
  out.capped = rs.result.capped;
  out.matches = rs.result.matches.map((m) => {
    /** @type {TreeRawMatch} */
    const t = {
      line: linesBefore + m.linesIntoChunk + 1,
      byteOffset: m.byteOffset,
      nextLine: m.nextLine,
      column: m.column,
      text: m.text,
      textTruncated: m.textTruncated,
    };
    if (job.context > 0) {
      const c = contextOf(buf, m.lineStart, m.nextLine, job.context, job.maxLineChars);
      t.before = c.before;
      t.after = c.after;
    }
    return t;
  });
  return out;
}

/**
 * Search every file of a batch, in order.
 * @param {TreeBatchJob} job
 * @returns {TreeFileResult[]}
 */
export function searchTreeBatch(job) {
  const plan = planSearch(job.pattern, job.flags);
  const control = job.control ? new Int32Array(job.control) : undefined;
  return job.files.map((f) =>
    control && Atomics.load(control, 0) !== 0 ? { status: 'skip', size: 0, count: 0, matches: [], capped: false } : searchTreeFile(f, job, plan),
  );
}

// Worker entry: only when started by the tree-search pool (not when imported).
if (parentPort && workerData && workerData.folioTreeSearchWorker) {
  const port = parentPort;
  port.on('message', (/** @type {TreeBatchJob & { id: number }} */ job) => {
    try {
      port.postMessage({ id: job.id, result: searchTreeBatch(job) });
    } catch (err) {
      const e = /** @type {Error} */ (err);
      port.postMessage({ id: job.id, error: { message: e.message } });
    }
  });
}
