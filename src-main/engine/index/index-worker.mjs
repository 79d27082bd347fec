// @ts-check
/**
 * Scanning one byte range of a file for the line index: newline counts per block,
 * CR/CRLF counts, and streaming UTF-8 validation, which goes on past errors and
 * counts ill-formed sequences and valid multi-byte characters (the evidence for
 * the file's encoding, see text/encoding-detect.ts). `scanRange` runs in a worker
 * thread (this file is the worker script) or in the calling thread (small files,
 * on-demand scans, single-thread mode); the code is the same.
 *
 * Reads go with fs.readSync straight into the kernels' input window in WASM
 * memory, CHUNK_SIZE (256 KiB) at a time: measured ~30% faster than 4-16 MiB reads.
 */
import { isUtf8 } from 'node:buffer';
import { readSync, openSync, closeSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { BLOCK_SIZE, CHUNK_SIZE, loadKernels, textKernels } from '../kernels/kernels.mjs';

/**
 * @typedef {object} ScanResult
 * @property {number} newlines   '\n' count in the range
 * @property {number} cr         '\r' count
 * @property {number} crlf       '\r\n' pairs whose '\n' is in the range
 * @property {number} firstInvalid absolute offset of the first invalid UTF-8 byte (or ill-formed UTF-16 unit) found in the range, or -1
 * @property {number} invalid    ill-formed UTF-8 sequences validated here (maximal subparts: what a decoder replaces with U+FFFD); 0 for UTF-16
 * @property {number} multibyte  valid UTF-8 characters of 2-4 bytes validated here; 0 for UTF-16
 * @property {number} skipped    leading bytes not validated here (0-3 continuation bytes of a sequence started before `start`, or up to `utf8Start`)
 * @property {number} pending    bytes of an incomplete UTF-8 sequence at the end of the range, not counted (0 when `isLast`)
 * @property {boolean} cancelled
 */

/**
 * @param {object} o
 * @param {import('../kernels/kernels.mjs').Kernels} o.kernels
 * @param {import('../kernels/kernels.mjs').TextLayout} [o.layout] how newlines are laid out (default 'utf-8': bytes)
 * @param {number} o.fd
 * @param {(fd: number, buf: Uint8Array, off: number, len: number, pos: number) => number} [o.read] pread (default fs.readSync; a
 *   mounted remote value's: index/byte-source.ts readAt). UTF-8 layout only.
 * @param {number} o.start block-aligned start byte
 * @param {number} o.end   end byte (block-aligned unless it is the file's end)
 * @param {boolean} o.isLast the range ends the file: a truncated UTF-8 tail is an error
 * @param {number} [o.utf8Start] where UTF-8 validation starts, a character boundary in [start, end] (default: `start`,
 *   past up to 3 leading continuation bytes when start > 0: they belong to the piece before)
 * @param {Uint32Array} o.counts per-block newline counts: block b's count goes to counts[b - firstBlock]
 * @param {number} [o.firstBlock] block index of counts[0] (default 0)
 * @param {Int32Array} [o.progress] progress[slot] = bytes done / BLOCK_SIZE, stored with Atomics
 * @param {number} [o.slot]
 * @param {Int32Array} [o.cancel] scanning stops when cancel[0] != 0
 * @param {'auto' | 'wasm' | 'isUtf8'} [o.utf8Check] how chunks are validated (see validateChunk); tests and benches force one
 * @returns {ScanResult}
 */
export function scanRange(o) {
  const { kernels, layout = 'utf-8', fd, start, end, isLast, counts, firstBlock = 0, progress, slot = 0, cancel } = o;
  if (layout !== 'utf-8') return scanRange16({ kernels, layout, fd, start, end, isLast, counts, firstBlock, progress, slot, cancel });
  const read = o.read ?? readSync;
  let prevIsCR = false;
  if (start > 0) {
    // The byte before the range decides CRLF pairs across the split, and whether the
    // range starts inside a multi-byte sequence (at most 3 continuation bytes to skip).
    const n = read(fd, kernels.input, 0, 1, start - 1);
    prevIsCR = n === 1 && kernels.input[0] === 13;
  }
  const steps = scanSteps({ ...o, prevIsCR });
  let step = steps.next();
  while (!step.done) {
    // Reads go straight into the kernels' input window.
    step = steps.next(read(fd, kernels.input, 0, step.value.want, step.value.pos));
  }
  return step.value;
}

/**
 * The UTF-8 scan of scanRange as steps: it yields `{ pos, want }` each time it needs
 * the next chunk, and the caller puts up to `want` bytes from `pos` into
 * kernels.input and passes back how many (0: no more). scanRange drives it with
 * pread; a remote resource (engine/backend/remote-index.ts) with the chunks of a
 * stream, so both count with the same code.
 * @param {Omit<Parameters<typeof scanRange>[0], 'fd'> & { prevIsCR?: boolean }} o prevIsCR: the byte before `start` is '\r'
 * @returns {Generator<{ pos: number, want: number }, ScanResult, number>}
 */
export function* scanSteps({
  kernels,
  start,
  end,
  isLast,
  utf8Start,
  counts,
  firstBlock = 0,
  progress,
  slot = 0,
  cancel,
  utf8Check = 'auto',
  prevIsCR = false,
}) {
  const input = kernels.input;
  const utf8 = kernels.utf8Stream();
  let newlines = 0;
  let cr = 0;
  let crlf = 0;
  let bad = -1;
  let skipped = 0;
  let pos = start;
  let dense = utf8Check === 'isUtf8';
  // Bytes still to skip before validation starts; -1: skip leading continuation bytes (at most 3).
  let skip = utf8Start !== undefined ? utf8Start - start : start > 0 ? -1 : 0;
  while (pos < end) {
    if (cancel && Atomics.load(cancel, 0) !== 0) {
      return { newlines, cr, crlf, firstInvalid: -1, invalid: 0, multibyte: 0, skipped, pending: 0, cancelled: true };
    }
    const want = Math.min(CHUNK_SIZE, end - pos);
    const got = yield { pos, want };
    if (got <= 0) break; // file shrank under us: the caller compares sizes
    const lines = kernels.scanLines(got, counts, Math.floor(pos / BLOCK_SIZE) - firstBlock, prevIsCR);
    newlines += lines.newlines;
    cr += lines.cr;
    crlf += lines.crlf;
    prevIsCR = input[got - 1] === 13;
    let from = 0;
    if (skip < 0) {
      while (from < 3 && from < got && ((input[from] ?? 0) & 0xc0) === 0x80) from++;
      skip = 0;
    } else if (skip > 0) {
      from = Math.min(skip, got);
      skip -= from;
    }
    skipped += from;
    if (from > 0) input.copyWithin(0, from, got);
    const multibyteBefore = utf8.counts().multibyte;
    bad = dense ? validateChunk(kernels, utf8, got - from) : utf8.feed(got - from);
    if (utf8Check === 'auto') dense = (utf8.counts().multibyte - multibyteBefore) * DENSE_BYTES_PER_CHAR >= got - from;
    pos += got;
    if (progress) Atomics.store(progress, slot, Math.ceil((pos - start) / BLOCK_SIZE));
  }
  // Offsets of the stream count from start + skipped: all skipping comes before the first byte validated.
  let pending = 0;
  if (isLast) bad = utf8.finish();
  else pending = utf8.pending();
  const firstInvalid = bad >= 0 ? start + skipped + bad : -1;
  return { newlines, cr, crlf, firstInvalid, ...utf8.counts(), skipped, pending, cancelled: false };
}

/**
 * Text with a multi-byte character every DENSE_BYTES_PER_CHAR bytes or more often
 * (CJK, Cyrillic, Greek...) is validated by the platform: buffer.isUtf8 is simdutf,
 * ~5x the WASM validator's speed on such text; the WASM validator stays faster on
 * mostly-ASCII text (logs), where it skips 256 bytes per test. The next chunk's
 * path follows the last chunk's density.
 */
const DENSE_BYTES_PER_CHAR = 256;

/**
 * Validate input[0..len) on `utf8` like utf8.feed(len), returning what it returns:
 * when nothing is pending and isUtf8 accepts the chunk up to a sequence left open
 * at its end, the stream takes that part as checked (counting its multi-byte
 * characters with countLeads) and only the open tail (0-3 bytes) goes through the
 * WASM validator. Anything else (an error, a sequence open from the chunk before)
 * goes through it whole, which places and counts errors exactly.
 * @param {import('../kernels/kernels.mjs').Kernels} kernels
 * @param {import('../kernels/kernels.mjs').Utf8CountingStream} utf8
 * @param {number} len
 */
export function validateChunk(kernels, utf8, len) {
  const input = kernels.input;
  const cut = len - openTail(input, len);
  if (utf8.pending() !== 0 || cut === 0 || !isUtf8(input.subarray(0, cut))) return utf8.feed(len);
  utf8.skipValid(cut, kernels.countLeads(0, cut));
  if (cut === len) return utf8.feed(0);
  input.copyWithin(0, cut, len);
  return utf8.feed(len - cut);
}

/**
 * Bytes at the end of input[0..len) that start a sequence its lead says is longer
 * (0-3): the cut isUtf8 needs, which judges a whole buffer.
 * @param {Uint8Array} input
 * @param {number} len
 */
function openTail(input, len) {
  for (let i = len - 1; i >= 0 && i >= len - 3; i--) {
    const b = /** @type {number} */ (input[i]);
    if (b < 0x80) return 0;
    if (b >= 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return len - i < need ? len - i : 0;
    }
  }
  return 0;
}

/**
 * scanRange for UTF-16 (start is even: pieces are split at block boundaries). No
 * junction work is left for the caller: the unit before `start` tells whether a CR
 * LF pair or a surrogate pair crosses the split, and a high surrogate there is fed
 * to the validator first so the pair is checked here. The file's first ill-formed
 * unit is the smallest firstInvalid of all pieces.
 * @param {Parameters<typeof scanRange>[0] & { layout: 'utf-16le' | 'utf-16be' }} o
 * @returns {ScanResult}
 */
function scanRange16({ kernels, layout, fd, start, end, isLast, counts, firstBlock = 0, progress, slot = 0, cancel }) {
  const tk = textKernels(kernels, layout);
  const input = kernels.input;
  const stream = tk.validator();
  let newlines = 0;
  let cr = 0;
  let crlf = 0;
  let firstInvalid = -1;
  let prevIsCR = false;
  let base = start;
  if (start >= 2) {
    const n = readSync(fd, input, 0, 2, start - 2);
    const before = n === 2 ? tk.unitAt(input, 0) : -1;
    prevIsCR = before === 13;
    if (before >= 0xd800 && before <= 0xdbff) {
      stream.feed(2); // pending: the pair is checked with this range's first unit
      base = start - 2;
    }
  }
  let pos = start;
  while (pos < end) {
    if (cancel && Atomics.load(cancel, 0) !== 0) {
      return { newlines, cr, crlf, firstInvalid, invalid: 0, multibyte: 0, skipped: 0, pending: 0, cancelled: true };
    }
    const want = Math.min(CHUNK_SIZE, end - pos);
    const got = readSync(fd, input, 0, want, pos);
    if (got <= 0) break;
    const lines = tk.scanLines(got, counts, Math.floor(pos / BLOCK_SIZE) - firstBlock, prevIsCR);
    newlines += lines.newlines;
    cr += lines.cr;
    crlf += lines.crlf;
    prevIsCR = got >= 2 && tk.unitAt(input, got - 2 - (got % 2)) === 13;
    if (firstInvalid < 0) {
      const bad = stream.feed(got);
      if (bad >= 0) firstInvalid = base + bad;
    }
    pos += got;
    if (progress) Atomics.store(progress, slot, Math.ceil((pos - start) / BLOCK_SIZE));
  }
  if (firstInvalid < 0 && isLast) {
    const bad = stream.finish();
    if (bad >= 0) firstInvalid = base + bad;
  }
  return { newlines, cr, crlf, firstInvalid, invalid: 0, multibyte: 0, skipped: 0, pending: 0, cancelled: false };
}

/** Open `path` and scan [start, end) in this thread. */
export function scanFileRange(/** @type {Omit<Parameters<typeof scanRange>[0], 'fd'> & { path: string }} */ o) {
  const fd = openSync(o.path, 'r');
  try {
    return scanRange({ ...o, fd });
  } finally {
    closeSync(fd);
  }
}

/**
 * Background index building (the app's doors, BuildOptions.background): on Linux,
 * lower this thread's scheduling priority (nice 10) so that while a big file
 * indexes, the process's main thread and the app painting its first lines get
 * the cores first. With nothing else runnable it runs as fast as before. A
 * command someone waits for (the CLI) stays at normal priority: niced, it starved
 * on a busy machine. Linux's setpriority() takes a thread id, found through
 * /proc/thread-self; elsewhere this does nothing.
 */
function lowerThreadPriority() {
  if (process.platform !== 'linux') return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid !== process.pid) setPriority(tid, 10);
  } catch {
    // not permitted or no /proc: run at the normal priority
  }
}

// Worker entry: only when started by the index pool (not when imported).
if (parentPort && workerData && workerData.folioIndexWorker) {
  if (workerData.background) lowerThreadPriority();
  const kernels = loadKernels(workerData.module);
  const port = parentPort;
  port.on('message', (/** @type {any} */ job) => {
    try {
      const counts = new Uint32Array(job.counts);
      const result = scanFileRange({
        kernels,
        layout: job.layout,
        path: job.path,
        start: job.start,
        end: job.end,
        isLast: job.isLast,
        counts,
        progress: new Int32Array(job.progress),
        slot: job.slot,
        cancel: new Int32Array(job.cancel),
      });
      port.postMessage({ id: job.id, result });
    } catch (err) {
      const e = /** @type {NodeJS.ErrnoException} */ (err);
      port.postMessage({ id: job.id, error: { message: e.message, code: e.code } });
    }
  });
}
