/**
 * Typed contract of the WASM kernel glue (kernels.mjs). Plain JS so that worker
 * threads, vitest, tsx and the Electron bundle all load it without a TS loader.
 * The WASM ABI behind it is tiny: pointers and lengths in, counts and offsets out.
 * All policy (chunking, workers, caching) lives in TypeScript above this.
 */

/** Size of one sparse-index block: the index stores one newline count per block. */
export const BLOCK_SIZE: 65536;
/** Size of the input window in WASM memory; reads go straight into `input`. */
export const CHUNK_SIZE: 262144;
/** Longest needle findLines takes. */
export const NEEDLE_MAX: 4096;
/** Most hits findLines records per call. */
export const HITS_MAX: 4096;

export interface NewlineStyleCounts {
  /** total '\r' bytes */
  cr: number;
  /** '\r\n' pairs whose '\n' lies in the scanned range */
  crlf: number;
}

export interface SniffCounts {
  /** NUL bytes */
  nul: number;
  /** control bytes other than \t \n \v \f \r and ESC (0x01-0x08, 0x0E-0x1A, 0x1C-0x1F, 0x7F) */
  control: number;
}

/**
 * A streaming validator (UTF-8, or UTF-16 with the same contract).
 * Offsets are absolute: counted from the first byte fed since reset().
 * "First invalid offset" has the meaning of Rust's Utf8Error::valid_up_to():
 * the length of the longest valid prefix that ends on a character boundary.
 */
export interface Utf8Stream {
  reset(): void;
  /** Validate input[0..len). Returns the absolute first invalid offset, or -1 if valid so far. Sticky once found. */
  feed(len: number): number;
  /** Bytes of an incomplete trailing sequence held over for the next feed (0..3). */
  pending(): number;
  /** End of stream: returns the absolute first invalid offset (a truncated sequence counts), or -1. */
  finish(): number;
  /** Total bytes fed since reset(). */
  position(): number;
}

/** What a UTF-8 stream counts over everything fed (and finished). */
export interface Utf8Counts {
  /**
   * Ill-formed sequences, as maximal subparts (Unicode 3.9; WHATWG and Python decode
   * each into one U+FFFD); a sequence cut by the end of the stream counts at finish().
   */
  invalid: number;
  /** Valid characters of 2 to 4 bytes. */
  multibyte: number;
}

/**
 * Streaming UTF-8 validator (Keiser & Lemire lookup algorithm in WASM SIMD) that
 * keeps going past errors and counts: the evidence for a file's encoding.
 */
export interface Utf8CountingStream extends Utf8Stream {
  counts(): Utf8Counts;
  /**
   * Take input[0..len) as valid UTF-8 ending on a character boundary, checked by
   * someone else (buffer.isUtf8), with `multibyteChars` multi-byte characters
   * (countLeads): the stream moves on as if it had fed them. Only with nothing
   * pending (pending() === 0).
   */
  skipValid(len: number, multibyteChars: number): void;
}

/** What a JSON structure scan carries from one window to the next (wasm/json.ts). */
export interface JsonScanState {
  /** brackets open (the scan starts at a container's bracket with depth 0) */
  depth: number;
  inString: boolean;
  /** the last byte fed was a backslash that escapes the next one */
  escaped: boolean;
  /** commas seen at depth 1 (the scanned container's own separators) */
  commas: number;
}

export interface Kernels {
  /** View of the input window (CHUNK_SIZE bytes) inside WASM memory. Memory never grows, so the view stays valid. */
  readonly input: Uint8Array;
  /**
   * Count '\n' in each BLOCK_SIZE block of input[0..len) (the last block may be short)
   * and write the counts to out[outOffset ...]. Returns the total count.
   */
  countNewlinesPerBlock(len: number, out: Uint32Array, outOffset: number): number;
  /**
   * The indexer's per-chunk pass: countNewlinesPerBlock plus CR and CRLF counts of
   * input[0..len), with the CR count taken in the same pass (CRLF pairs are only
   * looked for when the chunk has a CR). prevIsCR: the byte before input[0] was '\r'.
   */
  scanLines(len: number, out: Uint32Array, outOffset: number, prevIsCR: boolean): { newlines: number } & NewlineStyleCounts;
  /** Count '\n' in input[start..end). */
  countNewlines(start: number, end: number): number;
  /** Offset in input of the n-th (1-based) '\n' within input[start..end), or -1 if there are fewer than n. */
  findNthNewline(start: number, end: number, n: number): number;
  /** CR / CRLF counts in input[start..end); prevIsCR tells whether the byte before `start` was '\r'. */
  countNewlineStyle(start: number, end: number, prevIsCR: boolean): NewlineStyleCounts;
  /** NUL and control-byte counts in input[start..end). */
  sniff(start: number, end: number): SniffCounts;
  /** Largest offset p <= pos in [start, pos] that starts a code point (not a 10xxxxxx byte), looking back at most 3 bytes; pos itself if none. */
  snapBackToCodepoint(start: number, pos: number): number;
  /** Smallest offset p >= pos in [pos, end] that starts a code point, looking ahead at most 3 bytes; pos itself if none. */
  snapForwardToCodepoint(pos: number, end: number): number;
  /** Offset just after the last '\n' in input[start..pos), or -1 if none (the line starts before `start`). */
  lineStartBefore(start: number, pos: number): number;
  /** Offset of the first '\n' in input[pos..end), or -1 if none. */
  lineEndAfter(pos: number, end: number): number;
  /** A fresh streaming UTF-8 validator (and counter) working on this instance's input window. */
  utf8Stream(): Utf8CountingStream;
  /**
   * Scan input[start..end) as JSON text with `state` (updated in place): the offset
   * just past the bracket that brings depth back to 0, the offset of the comma at
   * depth 1 that makes state.commas equal `stopAt` (0: never stop at commas), -1
   * when the range ends first, or {unmatched} for a closing bracket at depth 0.
   * Strings (with escapes) are skipped; bracket kinds are counted, not matched.
   */
  jsonScan(start: number, end: number, state: JsonScanState, stopAt?: number): number | { unmatched: number };
  /**
   * Lines of input[start..end) (start a line start) holding `needle` (1 to
   * NEEDLE_MAX bytes, no '\n'), each found once at its first occurrence. `fold`:
   * the needle is lower-case ASCII and letters match either case. cap 0 counts
   * them all; else the input offset of each line's first hit goes to `hits` and
   * the scan stops after `cap` lines. `stop`: where the scan stopped (end, or the
   * start of the line after the last one found).
   */
  findLines(start: number, end: number, needle: Uint8Array, fold: boolean, cap: number): { found: number; stop: number };
  /** findLines' hits (valid until the next call). */
  hits: Uint32Array;
  /** Bytes of input[start..end) that start a character (not 10xxxxxx): the code points of valid UTF-8. */
  countChars(start: number, end: number): number;
  /** Bytes of input[start..end) that lead a multi-byte sequence (11xxxxxx): the multi-byte characters of valid UTF-8. */
  countLeads(start: number, end: number): number;
  /** Offset in input of the n-th (1-based) byte of input[start..end) that starts a character, or -1 if there are fewer. */
  findNthChar(start: number, end: number, n: number): number;
  /**
   * scanLines for UTF-16: LF units per block, CR units, CR LF unit pairs of
   * input[0..len) (an odd last byte is ignored); prevIsCR: the unit before input[0] was CR.
   */
  scanLines16(len: number, out: Uint32Array, outOffset: number, prevIsCR: boolean, be: boolean): { newlines: number } & NewlineStyleCounts;
  /** LF units in input[start..end) (start even; an odd last byte is ignored). */
  countNewlines16(start: number, end: number, be: boolean): number;
  /** Offset of the first byte of the n-th (1-based) LF unit in input[start..end), or -1. */
  findNthNewline16(start: number, end: number, n: number, be: boolean): number;
  /** CR units and CR LF unit pairs in input[start..end). */
  countNewlineStyle16(start: number, end: number, prevIsCR: boolean, be: boolean): NewlineStyleCounts;
  /**
   * A streaming UTF-16 validator (lone surrogates, a truncated last unit) with the
   * Utf8Stream contract: offsets are of the first byte of the first ill-formed unit.
   * Feeds must have even lengths except the last.
   */
  utf16Stream(be: boolean): Utf8Stream;
}

/** How text is laid out in bytes, for the newline kernels: bytes, or 2-byte units in either order. */
export type TextLayout = 'utf-8' | 'utf-16le' | 'utf-16be';

/** The newline and validation kernels of one text layout (see textKernels). Offsets are bytes. */
export interface TextKernels {
  readonly layout: TextLayout;
  /** bytes per code unit: 1 (UTF-8 and ASCII-compatible encodings) or 2 (UTF-16) */
  readonly unit: 1 | 2;
  readonly input: Uint8Array;
  scanLines(len: number, out: Uint32Array, outOffset: number, prevIsCR: boolean): { newlines: number } & NewlineStyleCounts;
  countNewlines(start: number, end: number): number;
  /** Offset of the first byte of the n-th newline unit, or -1. */
  findNthNewline(start: number, end: number, n: number): number;
  countNewlineStyle(start: number, end: number, prevIsCR: boolean): NewlineStyleCounts;
  /** The code unit starting at bytes[at], or -1 past the end. */
  unitAt(bytes: Uint8Array, at: number): number;
  /** A fresh streaming validator (UTF-8 or UTF-16). */
  validator(): Utf8Stream;
}

/** The kernels of `layout`, over the instance `k`. */
export function textKernels(k: Kernels, layout: TextLayout): TextKernels;

/** The compiled kernel module (compiled once per thread, cached); it can be posted to workers. */
export function kernelModule(): WebAssembly.Module;
/** Instantiate kernels from a module (in a worker: the one posted by the main thread). */
export function loadKernels(module?: WebAssembly.Module): Kernels;
/** Path of the .wasm file that kernelModule() loads. */
export function kernelWasmPath(): string;
