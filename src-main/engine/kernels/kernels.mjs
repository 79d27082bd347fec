// @ts-check
/**
 * JS glue of the WASM kernels (wasm/*.ts, built into wasm/build/kernels.wasm by
 * scripts/build-wasm.mjs). Contract: kernels.d.mts. Plain ESM so that worker
 * threads, vitest, tsx and the Electron bundle load it without a TS loader.
 *
 * The module's memory is fixed (maximum = initial, nothing allocated): an input
 * window of CHUNK_SIZE bytes with a 64-byte guard before it (the UTF-8 validator's
 * carried bytes) and padding after it, then a small scratch area for per-block
 * counts and paired results. Callers write into `input` and pass offsets.
 * Offsets are checked here (a RangeError is a programming error, not a FolioError).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const BLOCK_SIZE = 65536;
export const CHUNK_SIZE = 262144;
/** Longest needle of findLines (wasm/layout.ts NEEDLE_MAX). */
export const NEEDLE_MAX = 4096;
/** Most hits findLines records per call (wasm/layout.ts HITS_MAX). */
export const HITS_MAX = 4096;
const MAX_BLOCKS = CHUNK_SIZE / BLOCK_SIZE;

/**
 * @typedef {import('./kernels.d.mts').Kernels} Kernels
 * @typedef {import('./kernels.d.mts').Utf8Stream} Utf8Stream
 * @typedef {import('./kernels.d.mts').Utf8CountingStream} Utf8CountingStream
 * @typedef {import('./kernels.d.mts').NewlineStyleCounts} NewlineStyleCounts
 * @typedef {import('./kernels.d.mts').SniffCounts} SniffCounts
 * @typedef {import('./kernels.d.mts').TextLayout} TextLayout
 * @typedef {import('./kernels.d.mts').TextKernels} TextKernels
 */

/**
 * @typedef {object} KernelExports  what wasm/kernels.ts exports
 * @property {WebAssembly.Memory} memory
 * @property {() => number} inputPtr
 * @property {() => number} blockCountsPtr
 * @property {() => number} resultsPtr
 * @property {() => number} jsonStatePtr
 * @property {(start: number, end: number, stopAt: number) => number} jsonScan
 * @property {() => number} needlePtr
 * @property {() => number} hitsPtr
 * @property {(start: number, end: number, m: number, fold: number, cap: number) => number} findLines
 * @property {() => number} layoutEnd
 * @property {(len: number) => number} countNewlinesPerBlock
 * @property {(len: number) => number} countLinesAndCR
 * @property {(start: number, end: number) => number} countNewlines
 * @property {(start: number, end: number, n: number) => number} findNthNewline
 * @property {(start: number, end: number, prevIsCR: number) => number} countNewlineStyle
 * @property {(start: number, end: number) => number} sniff
 * @property {(start: number, pos: number) => number} snapBackToCodepoint
 * @property {(pos: number, end: number) => number} snapForwardToCodepoint
 * @property {(start: number, pos: number) => number} lineStartBefore
 * @property {(pos: number, end: number) => number} lineEndAfter
 * @property {(pending: number, len: number) => number} utf8Scan
 * @property {(start: number, end: number) => number} countChars
 * @property {(start: number, end: number) => number} countLeads
 * @property {(start: number, end: number, n: number) => number} findNthChar
 * @property {(len: number, be: number) => number} countLinesAndCR16
 * @property {(start: number, end: number, be: number) => number} countNewlines16
 * @property {(start: number, end: number, n: number, be: number) => number} findNthNewline16
 * @property {(start: number, end: number, prevIsCR: number, be: number) => number} countNewlineStyle16
 * @property {(start: number, end: number, be: number) => number} utf16Validate
 */

/** Path of the .wasm file that kernelModule() loads. */
export function kernelWasmPath() {
  const fromEnv = process.env.FOLIO_WASM_PATH;
  if (fromEnv) return fromEnv;
  const candidates = [
    new URL('../../../wasm/build/kernels.wasm', import.meta.url), // source checkout
    new URL('./kernels.wasm', import.meta.url), // Electron bundle: copied next to the main bundle
  ];
  for (const url of candidates) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  throw new Error(
    `WASM kernels not built: none of ${candidates.map((u) => fileURLToPath(u)).join(', ')} exists. ` + 'Run `npm run build:wasm` (or set FOLIO_WASM_PATH).',
  );
}

/** @type {WebAssembly.Module | undefined} */
let cachedModule;

/** The compiled kernel module (compiled once per thread, cached); it can be posted to workers. */
export function kernelModule() {
  if (!cachedModule) {
    const path = kernelWasmPath();
    let bytes;
    try {
      bytes = readFileSync(path);
    } catch (err) {
      throw new Error(`cannot read WASM kernels at ${path}: ${/** @type {Error} */ (err).message}. Run \`npm run build:wasm\`.`, { cause: err });
    }
    cachedModule = new WebAssembly.Module(bytes);
  }
  return cachedModule;
}

/**
 * @param {number} start
 * @param {number} end
 */
function checkRange(start, end) {
  if (!(Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start <= end && end <= CHUNK_SIZE)) {
    throw new RangeError(`kernel range [${start}, ${end}) is not inside the input window [0, ${CHUNK_SIZE})`);
  }
}

/**
 * @param {number} start
 * @param {number} end
 */
function checkRange16(start, end) {
  checkRange(start, end);
  if (start % 2 !== 0) throw new RangeError(`UTF-16 kernel range starts at odd offset ${start}`);
}

/**
 * The instance's exports and the views of its memory every wrapper reads.
 * @typedef {object} KernelMemory
 * @property {KernelExports} wasm
 * @property {Uint8Array} bytes  the whole memory
 * @property {number} inputPtr  where the input window starts in it
 * @property {Uint8Array} input  the input window
 * @property {Uint32Array} blockCounts  per-block counts of the last scan
 * @property {Uint32Array} results  paired results of the last call
 * @property {Uint32Array} jsonState  the JSON scan's carried state (wasm/json.ts)
 * @property {Uint8Array} needle  findLines' needle (wasm/find.ts)
 * @property {Uint32Array} hits  findLines' hits
 */

/**
 * Instantiate kernels from a module (in a worker: the one posted by the main thread).
 * @param {WebAssembly.Module} [module]
 * @returns {Kernels}
 */
export function loadKernels(module = kernelModule()) {
  const instance = new WebAssembly.Instance(module, {});
  const wasm = /** @type {KernelExports} */ (/** @type {unknown} */ (instance.exports));
  const buffer = wasm.memory.buffer;
  const inputPtr = wasm.inputPtr();
  if (wasm.layoutEnd() > buffer.byteLength) {
    throw new Error(`WASM kernel layout (${wasm.layoutEnd()} bytes) exceeds its memory (${buffer.byteLength}); rebuild with \`npm run build:wasm\``);
  }
  /** @type {KernelMemory} */
  const m = {
    wasm,
    bytes: new Uint8Array(buffer),
    inputPtr,
    input: new Uint8Array(buffer, inputPtr, CHUNK_SIZE),
    blockCounts: new Uint32Array(buffer, wasm.blockCountsPtr(), MAX_BLOCKS),
    results: new Uint32Array(buffer, wasm.resultsPtr(), 3),
    jsonState: new Uint32Array(buffer, wasm.jsonStatePtr(), 5),
    needle: new Uint8Array(buffer, wasm.needlePtr(), NEEDLE_MAX),
    hits: new Uint32Array(buffer, wasm.hitsPtr(), HITS_MAX),
  };
  return {
    input: m.input,
    ...utf8KernelsOf(m),
    ...utf16KernelsOf(m),
    utf8Stream: () => utf8StreamOf(m),
    utf16Stream: (be) => utf16StreamOf(m, be),
  };
}

/**
 * The byte-unit kernels (UTF-8 and every ASCII-compatible encoding), offsets checked.
 * @param {KernelMemory} m
 * @returns {Omit<Kernels, 'input' | 'utf8Stream' | 'utf16Stream' | 'scanLines16' | 'countNewlines16' | 'findNthNewline16' | 'countNewlineStyle16'>}
 */
function utf8KernelsOf({ wasm, blockCounts, results, jsonState, needle: needleView, hits }) {
  /** @type {Uint8Array | null} the needle in needleView (written again only when another is passed) */
  let needleIn = null;
  return {
    hits,
    findLines(start, end, needle, fold, cap) {
      checkRange(start, end);
      if (!(needle.length >= 1 && needle.length <= NEEDLE_MAX)) throw new RangeError(`findLines: a needle of ${needle.length} bytes (1 to ${NEEDLE_MAX})`);
      if (!(Number.isInteger(cap) && cap >= 0 && cap <= HITS_MAX)) throw new RangeError(`findLines: cap ${cap} is not in [0, ${HITS_MAX}]`);
      if (needleIn !== needle) {
        needleView.set(needle);
        needleIn = needle;
      }
      const found = wasm.findLines(start, end, needle.length, fold ? 1 : 0, cap) >>> 0;
      return { found, stop: /** @type {number} */ (results[0]) };
    },
    countNewlinesPerBlock(len, out, outOffset) {
      checkRange(0, len);
      const blocks = Math.ceil(len / BLOCK_SIZE);
      if (!(Number.isInteger(outOffset) && outOffset >= 0 && outOffset + blocks <= out.length)) {
        throw new RangeError(`countNewlinesPerBlock: ${blocks} counts do not fit out[${outOffset}..] (length ${out.length})`);
      }
      const total = wasm.countNewlinesPerBlock(len) >>> 0;
      for (let b = 0; b < blocks; b++) out[outOffset + b] = /** @type {number} */ (blockCounts[b]);
      return total;
    },
    scanLines(len, out, outOffset, prevIsCR) {
      checkRange(0, len);
      const blocks = Math.ceil(len / BLOCK_SIZE);
      if (!(Number.isInteger(outOffset) && outOffset >= 0 && outOffset + blocks <= out.length)) {
        throw new RangeError(`scanLines: ${blocks} counts do not fit out[${outOffset}..] (length ${out.length})`);
      }
      const newlines = wasm.countLinesAndCR(len) >>> 0;
      const cr = /** @type {number} */ (results[0]);
      for (let b = 0; b < blocks; b++) out[outOffset + b] = /** @type {number} */ (blockCounts[b]);
      // CRLF pairs need a second look only where there is a CR (or one just before).
      let crlf = 0;
      if (cr > 0 || prevIsCR) {
        wasm.countNewlineStyle(0, len, prevIsCR ? 1 : 0);
        crlf = /** @type {number} */ (results[1]);
      }
      return { newlines, cr, crlf };
    },
    countNewlines(start, end) {
      checkRange(start, end);
      return wasm.countNewlines(start, end) >>> 0;
    },
    findNthNewline(start, end, n) {
      checkRange(start, end);
      if (!(n >= 1)) return -1;
      if (n > end - start) return -1;
      return wasm.findNthNewline(start, end, n);
    },
    countNewlineStyle(start, end, prevIsCR) {
      checkRange(start, end);
      wasm.countNewlineStyle(start, end, prevIsCR ? 1 : 0);
      return { cr: /** @type {number} */ (results[0]), crlf: /** @type {number} */ (results[1]) };
    },
    sniff(start, end) {
      checkRange(start, end);
      wasm.sniff(start, end);
      return { nul: /** @type {number} */ (results[0]), control: /** @type {number} */ (results[1]) };
    },
    snapBackToCodepoint(start, pos) {
      checkRange(start, pos);
      return wasm.snapBackToCodepoint(start, pos);
    },
    snapForwardToCodepoint(pos, end) {
      checkRange(pos, end);
      return wasm.snapForwardToCodepoint(pos, end);
    },
    lineStartBefore(start, pos) {
      checkRange(start, pos);
      return wasm.lineStartBefore(start, pos);
    },
    lineEndAfter(pos, end) {
      checkRange(pos, end);
      return wasm.lineEndAfter(pos, end);
    },
    jsonScan(start, end, state, stopAt = 0) {
      checkRange(start, end);
      if (!(Number.isInteger(stopAt) && stopAt >= 0 && stopAt <= 0xffffffff)) throw new RangeError(`jsonScan: stopAt ${stopAt} is not a u32`);
      jsonState[0] = state.depth;
      jsonState[1] = state.inString ? 1 : 0;
      jsonState[2] = state.escaped ? 1 : 0;
      jsonState[3] = state.commas;
      const r = wasm.jsonScan(start, end, stopAt);
      state.depth = /** @type {number} */ (jsonState[0]);
      state.inString = jsonState[1] === 1;
      state.escaped = jsonState[2] === 1;
      state.commas = /** @type {number} */ (jsonState[3]);
      return r === -2 ? { unmatched: /** @type {number} */ (jsonState[4]) } : r;
    },
    countChars(start, end) {
      checkRange(start, end);
      return wasm.countChars(start, end) >>> 0;
    },
    countLeads(start, end) {
      checkRange(start, end);
      return wasm.countLeads(start, end) >>> 0;
    },
    findNthChar(start, end, n) {
      checkRange(start, end);
      if (!(n >= 1)) return -1;
      if (n > end - start) return -1;
      return wasm.findNthChar(start, end, n);
    },
  };
}

/**
 * The 2-byte-unit kernels (UTF-16 LE or BE), offsets checked (even starts).
 * @param {KernelMemory} m
 * @returns {Pick<Kernels, 'scanLines16' | 'countNewlines16' | 'findNthNewline16' | 'countNewlineStyle16'>}
 */
function utf16KernelsOf({ wasm, blockCounts, results }) {
  return {
    scanLines16(len, out, outOffset, prevIsCR, be) {
      checkRange(0, len);
      const even = len - (len % 2);
      const blocks = Math.ceil(len / BLOCK_SIZE);
      if (!(Number.isInteger(outOffset) && outOffset >= 0 && outOffset + blocks <= out.length)) {
        throw new RangeError(`scanLines16: ${blocks} counts do not fit out[${outOffset}..] (length ${out.length})`);
      }
      const newlines = wasm.countLinesAndCR16(even, be ? 1 : 0) >>> 0;
      const cr = /** @type {number} */ (results[0]);
      for (let b = 0; b < blocks; b++) out[outOffset + b] = even > b * BLOCK_SIZE ? /** @type {number} */ (blockCounts[b]) : 0;
      let crlf = 0;
      if (cr > 0 || prevIsCR) {
        wasm.countNewlineStyle16(0, even, prevIsCR ? 1 : 0, be ? 1 : 0);
        crlf = /** @type {number} */ (results[1]);
      }
      return { newlines, cr, crlf };
    },
    countNewlines16(start, end, be) {
      checkRange16(start, end);
      return wasm.countNewlines16(start, end - ((end - start) % 2), be ? 1 : 0) >>> 0;
    },
    findNthNewline16(start, end, n, be) {
      checkRange16(start, end);
      if (!(n >= 1)) return -1;
      if (n > (end - start) / 2) return -1;
      return wasm.findNthNewline16(start, end - ((end - start) % 2), n, be ? 1 : 0);
    },
    countNewlineStyle16(start, end, prevIsCR, be) {
      checkRange16(start, end);
      wasm.countNewlineStyle16(start, end - ((end - start) % 2), prevIsCR ? 1 : 0, be ? 1 : 0);
      return { cr: /** @type {number} */ (results[0]), crlf: /** @type {number} */ (results[1]) };
    },
  };
}

/**
 * The UTF-8 validator over the input window, fed chunk by chunk: it carries a
 * sequence cut at a chunk's end into the next (the guard before INPUT).
 * @param {KernelMemory} m
 * @returns {Utf8CountingStream}
 */
function utf8StreamOf({ wasm, bytes, inputPtr, results }) {
  let position = 0;
  let error = -1;
  let pendingBytes = 0;
  let invalid = 0;
  let multibyte = 0;
  // Last 3 bytes fed (oldest first); zeros (ASCII) before the first feed.
  let carry0 = 0;
  let carry1 = 0;
  let carry2 = 0;
  return {
    reset() {
      position = 0;
      error = -1;
      pendingBytes = 0;
      invalid = multibyte = 0;
      carry0 = carry1 = carry2 = 0;
    },
    feed(len) {
      checkRange(0, len);
      // Another stream may have used the guard since: restore this stream's bytes
      // (the kernel reads the pending ones, just before INPUT).
      bytes[inputPtr - 3] = carry0;
      bytes[inputPtr - 2] = carry1;
      bytes[inputPtr - 1] = carry2;
      const bad = wasm.utf8Scan(pendingBytes, len);
      if (bad !== 0 && error < 0) error = position + (bad - inputPtr);
      invalid += /** @type {number} */ (results[0]);
      multibyte += /** @type {number} */ (results[1]);
      pendingBytes = /** @type {number} */ (results[2]);
      // input[len-3 .. len) — reaches back into the guard when len < 3.
      carry0 = bytes[inputPtr + len - 3] ?? 0;
      carry1 = bytes[inputPtr + len - 2] ?? 0;
      carry2 = bytes[inputPtr + len - 1] ?? 0;
      position += len;
      return error;
    },
    skipValid(len, multibyteChars) {
      checkRange(0, len);
      if (pendingBytes !== 0) throw new Error('skipValid: a sequence is open; feed() the bytes that finish it');
      multibyte += multibyteChars;
      carry0 = bytes[inputPtr + len - 3] ?? 0;
      carry1 = bytes[inputPtr + len - 2] ?? 0;
      carry2 = bytes[inputPtr + len - 1] ?? 0;
      position += len;
    },
    pending() {
      return pendingBytes;
    },
    finish() {
      if (pendingBytes > 0) {
        // A sequence cut by the end of the stream is one ill-formed sequence.
        if (error < 0) error = position - pendingBytes;
        invalid++;
        pendingBytes = 0;
      }
      return error;
    },
    position() {
      return position;
    },
    counts() {
      return { invalid, multibyte };
    },
  };
}

/**
 * The UTF-16 validator over the input window: a surrogate pair or a unit cut at a
 * chunk's end is finished by the next chunk.
 * @param {KernelMemory} m
 * @param {boolean} be
 * @returns {Utf8Stream}
 */
function utf16StreamOf({ wasm, input, results }, be) {
  let position = 0;
  let error = -1;
  let pendingHigh = false;
  let odd = false;
  const flag = be ? 1 : 0;
  return {
    reset() {
      position = 0;
      error = -1;
      pendingHigh = odd = false;
    },
    feed(len) {
      checkRange(0, len);
      if (error < 0 && odd && len > 0) error = position - 1; // a truncated unit before more bytes
      if (error >= 0) {
        position += len;
        return error;
      }
      let from = 0;
      if (pendingHigh && len >= 2) {
        const u = be ? ((input[0] ?? 0) << 8) | (input[1] ?? 0) : ((input[1] ?? 0) << 8) | (input[0] ?? 0);
        if (u < 0xdc00 || u > 0xdfff) {
          error = position - 2;
          position += len;
          return error;
        }
        pendingHigh = false;
        from = 2;
      }
      const even = len - (len % 2);
      if (from < even) {
        const bad = wasm.utf16Validate(from, even, flag);
        if (bad >= 0) error = position + bad;
        else pendingHigh = results[0] === 1;
      }
      odd = len % 2 === 1;
      position += len;
      return error;
    },
    pending() {
      return error >= 0 ? 0 : (pendingHigh ? 2 : 0) + (odd ? 1 : 0);
    },
    finish() {
      if (error < 0 && pendingHigh) error = position - 2 - (odd ? 1 : 0);
      else if (error < 0 && odd) error = position - 1;
      return error;
    },
    position() {
      return position;
    },
  };
}

/**
 * The newline and validation kernels of one text layout, under one set of names:
 * UTF-8 (and every ASCII-compatible encoding: '\n' is the byte 0x0A) counts bytes,
 * UTF-16 counts 2-byte units. Indexers and writers call these and never branch on
 * the encoding themselves.
 * @param {Kernels} k
 * @param {TextLayout} layout
 * @returns {TextKernels}
 */
export function textKernels(k, layout) {
  if (layout === 'utf-8') {
    return {
      layout,
      unit: 1,
      input: k.input,
      scanLines: (len, out, outOffset, prevIsCR) => k.scanLines(len, out, outOffset, prevIsCR),
      countNewlines: (start, end) => k.countNewlines(start, end),
      findNthNewline: (start, end, n) => k.findNthNewline(start, end, n),
      countNewlineStyle: (start, end, prevIsCR) => k.countNewlineStyle(start, end, prevIsCR),
      unitAt: (bytes, at) => bytes[at] ?? -1,
      validator: () => k.utf8Stream(),
    };
  }
  const be = layout === 'utf-16be';
  return {
    layout,
    unit: 2,
    input: k.input,
    scanLines: (len, out, outOffset, prevIsCR) => k.scanLines16(len, out, outOffset, prevIsCR, be),
    countNewlines: (start, end) => k.countNewlines16(start, end, be),
    findNthNewline: (start, end, n) => k.findNthNewline16(start, end, n, be),
    countNewlineStyle: (start, end, prevIsCR) => k.countNewlineStyle16(start, end, prevIsCR, be),
    unitAt: (bytes, at) => {
      const a = bytes[at];
      const b = bytes[at + 1];
      if (a === undefined || b === undefined) return -1;
      return be ? (a << 8) | b : (b << 8) | a;
    },
    validator: () => k.utf16Stream(be),
  };
}
