// @ts-check
/**
 * One byte range of a file (whole lines), read a chunk per step() so the
 * caller can check cancellation and report progress between steps. A partial
 * last line is carried into the next step; each chunk of whole lines goes to
 * searchUtf8Chunk (UTF-8, binary, unknown) or searchDecodedChunk (the others).
 *
 * A search the find kernel can run (a literal, a case-insensitive word, or a
 * regex with required literals, on byte-unit text) reads its chunks straight
 * into the kernel's input window (256 KiB; no second copy) and finds candidate
 * lines there (searchKernelChunk). A line too long for the window moves the
 * rest of the range to the JS path.
 */
import { readSync } from 'node:fs';
import { CHUNK_SIZE as WINDOW_SIZE, NEEDLE_MAX, loadKernels } from '../kernels/kernels.mjs';
import { newlineUnitsOf } from '../text/units.mjs';
import { lineCodecOf, searchDecodedChunk } from './scan-decoded.mjs';
import { searchKernelChunk, searchUtf8Chunk } from './scan-utf8.mjs';

/** Bytes read per step: whole lines of a ~1 MiB read are searched, a partial last line is carried over. */
export const SEARCH_CHUNK = 1 << 20;
/** A single line longer than this is refused (too_large): it would not fit in one JS string comfortably. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

/** @typedef {import('./plan.mjs').SearchPlan} SearchPlan */

/**
 * @typedef {object} RawMatch
 * @property {number} lineStart   file offset of the line's first byte
 * @property {number} nextLine    file offset just past the line's '\n' (the next line's start)
 * @property {number} byteOffset  file offset of the first match in the line
 * @property {number} column      1-based, in code points
 * @property {string} text        the line (without terminator), cut to maxLineChars around the match
 * @property {boolean} textTruncated
 * @property {number} chunkStart  file offset of the chunk the line was found in (a line start)
 * @property {number} linesIntoChunk '\n' count between chunkStart and lineStart
 */

/**
 * @typedef {object} RangeResult
 * @property {number} count    matching lines found
 * @property {RawMatch[]} matches  up to maxMatches + 1 (one more than the cap tells "there are more")
 * @property {boolean} capped  stopped after maxMatches + 1 matches
 * @property {boolean} stopped stopped because an earlier piece already filled the cap
 * @property {boolean} cancelled
 */

/**
 * @typedef {object} RangeSearchOptions
 * @property {SearchPlan} plan
 * @property {number} fd
 * @property {(fd: number, buf: Uint8Array, off: number, len: number, pos: number) => number} [read] how to pread (default fs.readSync; a remote value's mounted source: index/byte-source.ts)
 * @property {number} start  a line start
 * @property {number} end    a line start or the file size
 * @property {boolean} countOnly
 * @property {number} maxMatches
 * @property {number} maxLineChars
 * @property {string} [encoding] the file's encoding (default 'utf-8'); see scan-decoded.mjs
 */

/** @type {import('../kernels/kernels.d.mts').Kernels | null | undefined} this thread's kernels for searches (null: they could not load) */
let threadKernels;

/** This thread's search kernels (one instance: each step uses the window only while it runs), or null. */
function searchKernels() {
  if (threadKernels === undefined) {
    try {
      threadKernels = loadKernels();
    } catch {
      threadKernels = null; // not built: the JS path gives the same answers
    }
  }
  return threadKernels;
}

/**
 * Whether the find kernel can run this plan: byte-unit text, and a literal, a
 * case-insensitive word or required literals that fit its needle.
 * @param {SearchPlan} plan
 */
function kernelRuns(plan) {
  const needles = plan.needle ? [plan.needle] : plan.folded ? [plan.folded] : (plan.required ?? []);
  return needles.length > 0 && needles.every((n) => n.length <= NEEDLE_MAX);
}

/** One range, searched a chunk per step() so the caller can check cancellation and report progress between steps. */
export class RangeSearch {
  /** @param {RangeSearchOptions} o */
  constructor(o) {
    this.o = o;
    this.plan = o.plan;
    this.codec = lineCodecOf(o.encoding);
    this.newlines = newlineUnitsOf(o.encoding ?? 'utf-8');
    /** the kernels while this range is read through their window; null on the JS path */
    this.kernels = !this.codec && this.newlines.unit === 1 && kernelRuns(o.plan) ? searchKernels() : null;
    /** @type {Buffer} the window as a Buffer (empty on the JS path) */
    this.window = this.kernels ? Buffer.from(this.kernels.input.buffer, this.kernels.input.byteOffset, WINDOW_SIZE) : Buffer.alloc(0);
    // The JS path reads ~1 MiB per step into this; the kernel path keeps its carried partial line here.
    this.buf = Buffer.allocUnsafe(this.kernels ? 0 : SEARCH_CHUNK * 2);
    /** bytes of a partial line kept at buf[0..carry) */
    this.carry = 0;
    /** file offset of buf[0] */
    this.bufStart = o.start;
    /** next file offset to read */
    this.pos = o.start;
    /** @type {RangeResult} */
    this.result = { count: 0, matches: [], capped: false, stopped: false, cancelled: false };
    this.done = o.start >= o.end;
    /** @type {{ order: [Buffer, ...Buffer[]], dense: boolean } | null} the plan's required literals, rarest first, and whether too many lines hold them to be worth it (scan-utf8.mjs requiredOf, on the first chunk) */
    this.required = null;
  }

  /** Bytes of the range read so far. */
  get bytesDone() {
    return this.pos - this.o.start;
  }

  /**
   * Read `want` bytes at this.pos into buf[at..]; fewer at the end of the file.
   * @param {Buffer} buf @param {number} at @param {number} want
   */
  readInto(buf, at, want) {
    let got = 0;
    while (got < want) {
      const n = (this.o.read ?? readSync)(this.o.fd, buf, at + got, want - got, this.pos + got);
      if (n <= 0) break;
      got += n;
    }
    this.pos += got;
    return got;
  }

  /** Search the next chunk; returns true when the range is finished (or the cap was hit). */
  step() {
    if (this.done) return true;
    if (this.kernels) return this.stepInWindow(this.kernels);
    const { end } = this.o;
    if (this.carry + SEARCH_CHUNK > this.buf.length) {
      if (this.carry >= MAX_LINE_BYTES) {
        throw Object.assign(new Error(`a line longer than ${MAX_LINE_BYTES} bytes starts at byte ${this.bufStart}`), {
          folioCode: 'too_large',
          details: { lineStartByte: this.bufStart, maxLineBytes: MAX_LINE_BYTES },
        });
      }
      const bigger = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(bigger, 0, 0, this.carry);
      this.buf = bigger;
    }
    const buf = this.buf;
    const want = Math.min(SEARCH_CHUNK, end - this.pos);
    const got = this.readInto(buf, this.carry, want);
    const len = this.carry + got;
    // A short read before `end` means the file shrank: search what is there.
    const atEnd = this.pos >= end || got < want;
    let linesEnd = len;
    if (!atEnd) {
      const nl = this.newlines;
      linesEnd = len === 0 ? -1 : nl.lastIndexOfNewline(buf, len) + nl.unit;
      if (linesEnd <= 0) {
        this.carry = len; // no line break yet: a long line, keep reading
        return false;
      }
    }
    const chunk = buf.subarray(0, linesEnd);
    if (this.codec) searchDecodedChunk(this, chunk, this.bufStart, this.codec);
    else searchUtf8Chunk(this, chunk, this.bufStart);
    if (this.result.capped || atEnd) {
      this.done = true;
      return true;
    }
    buf.copy(buf, 0, linesEnd, len);
    this.carry = len - linesEnd;
    this.bufStart += linesEnd;
    return false;
  }

  /**
   * step() through the kernel window: the carried partial line, then as much of
   * the range as fits, read straight into the window.
   * @param {import('../kernels/kernels.d.mts').Kernels} kernels
   */
  stepInWindow(kernels) {
    const win = this.window;
    const { end } = this.o;
    this.buf.copy(win, 0, 0, this.carry);
    const want = Math.min(WINDOW_SIZE - this.carry, end - this.pos);
    const got = this.readInto(win, this.carry, want);
    const len = this.carry + got;
    const atEnd = this.pos >= end || got < want;
    const linesEnd = atEnd ? len : win.lastIndexOf(10, len - 1) + 1;
    if (!atEnd && linesEnd <= 0) {
      // No line ends in the window: the rest of the range takes the JS path, which grows its buffer.
      this.kernels = null;
      this.buf = Buffer.allocUnsafe(Math.max(SEARCH_CHUNK * 2, len * 2));
      win.copy(this.buf, 0, 0, len);
      this.carry = len;
      return false;
    }
    searchKernelChunk(this, win.subarray(0, linesEnd), this.bufStart, kernels);
    if (this.result.capped || atEnd) {
      this.done = true;
      return true;
    }
    this.carry = len - linesEnd;
    if (this.buf.length < this.carry) this.buf = Buffer.allocUnsafe(WINDOW_SIZE);
    win.copy(this.buf, 0, linesEnd, len);
    this.bufStart += linesEnd;
    return false;
  }
}
