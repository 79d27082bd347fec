/**
 * Fixed memory layout of the kernel module. Nothing is ever allocated and memory
 * never grows, so JS views over these regions stay valid for the instance's life.
 *
 *   [static data][guard 64][input window CHUNK_SIZE][padding 64][scratch 64][JSON state 32]
 *   [needle 4 KiB][hits 16 KiB]
 *
 * The guard's last 3 bytes hold the UTF-8 validator's carried bytes (the last 3
 * bytes fed before this window), so a 16-byte load at INPUT - 16 is the
 * "previous block" and a scalar restart may begin up to 3 bytes before INPUT.
 */
export const CHUNK_SIZE: usize = 262144;
export const BLOCK_SIZE: usize = 65536;
const GUARD: usize = 64;
const PADDING: usize = 64;

export const INPUT: usize = (__heap_base + GUARD + 63) & ~(<usize>63);
/** One u32 newline count per block of the window (CHUNK_SIZE / BLOCK_SIZE = 4). */
export const BLOCK_COUNTS: usize = INPUT + CHUNK_SIZE + PADDING;
/** u32 results of kernels that produce more than one (CR/CRLF, NUL/control, UTF-8 counts). */
export const RESULTS: usize = BLOCK_COUNTS + 16;
/** The JSON scan's carried state (wasm/json.ts): depth, inString, escaped, commas, error offset (u32 each). */
export const JSON_STATE: usize = RESULTS + 48;
/** Longest needle findLines takes (wasm/find.ts); its loads may run this far (+ 64) past the window. */
export const NEEDLE_MAX: usize = 4096;
/** The needle of findLines. */
export const NEEDLE: usize = JSON_STATE + 32;
/** Most hits findLines records per call. */
export const HITS_MAX: usize = 4096;
/** findLines' hits: one u32 input offset per line found. */
export const HITS: usize = NEEDLE + NEEDLE_MAX;
const LAYOUT_END: usize = HITS + (HITS_MAX << 2);

export function inputPtr(): usize {
  return INPUT;
}

export function blockCountsPtr(): usize {
  return BLOCK_COUNTS;
}

export function resultsPtr(): usize {
  return RESULTS;
}

export function jsonStatePtr(): usize {
  return JSON_STATE;
}

export function needlePtr(): usize {
  return NEEDLE;
}

export function hitsPtr(): usize {
  return HITS;
}

/** First byte past the layout: the glue checks it fits the (fixed) memory. */
export function layoutEnd(): usize {
  return LAYOUT_END;
}

/** Sum of the four u32 lanes. */
// @ts-ignore: decorator
@inline export function sumLanes(v: v128): u32 {
  return <u32>(i32x4.extract_lane(v, 0) + i32x4.extract_lane(v, 1) + i32x4.extract_lane(v, 2) + i32x4.extract_lane(v, 3));
}

/** Widen per-byte counters (each <= 255) into u32 lanes. */
// @ts-ignore: decorator
@inline export function widenCounts(acc: v128): v128 {
  return i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(acc));
}

/**
 * 64-byte iterations a byte counter can take before a lane may overflow: each
 * iteration adds at most 4 per lane (four 16-byte compares), 63 * 4 = 252 <= 255.
 */
export const FLUSH_GROUPS: usize = 63;
