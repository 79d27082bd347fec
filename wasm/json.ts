/**
 * JSON structure kernel: the end of an object or array, or the n-th comma at its
 * top level, skipping strings, 64 bytes per step (the classic SIMD JSON scan, as
 * in simdjson's stage 1): compare masks of quotes, backslashes, brackets and
 * commas; escaped bytes found from the backslashes (a scalar pass, only for
 * steps that hold a backslash or start escaped); the in-string mask as the
 * prefix XOR of the unescaped quotes; then only the brackets and commas outside
 * strings are visited, one set bit at a time, and only in steps where the depth
 * may come down to where it matters (else the step's brackets are counted).
 *
 * State carried between calls (a scan that crosses windows) lives at JSON_STATE:
 * u32 depth (brackets open), inString (0/1), escaped (0/1), commas (seen at
 * depth 1). Bracket kinds are not matched here (only counted).
 */
import { INPUT, JSON_STATE } from './layout';

const QUOTE: u8 = 0x22;
const BACKSLASH: u8 = 0x5c;
const COMMA: u8 = 0x2c;

// @ts-ignore: decorator
@inline function maskOf(a: v128, b: v128, c: v128, d: v128, v: v128): u64 {
  return (
    <u64>i8x16.bitmask(i8x16.eq(a, v)) |
    (<u64>i8x16.bitmask(i8x16.eq(b, v)) << 16) |
    (<u64>i8x16.bitmask(i8x16.eq(c, v)) << 32) |
    (<u64>i8x16.bitmask(i8x16.eq(d, v)) << 48)
  );
}

// @ts-ignore: decorator
@inline function prefixXor(x: u64): u64 {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

/**
 * Scan input[start..end) (offsets in the window) with the state at JSON_STATE.
 * Returns the offset just past the bracket that closes depth 1 (depth becomes 0),
 * the offset of the comma at depth 1 that makes `commas` equal `stopAt` (0: never),
 * or -1 when the range ends first (state saved for the next window), or -2 when a
 * closing bracket has no opening one (its offset in JSON_STATE[4]).
 */
export function jsonScan(start: usize, end: usize, stopAt: u32): i32 {
  let depth = load<u32>(JSON_STATE);
  let inString: u64 = load<u32>(JSON_STATE, 4) ? ~(<u64>0) : 0;
  let escapedCarry = load<u32>(JSON_STATE, 8);
  let commas = load<u32>(JSON_STATE, 12);
  const vq = i8x16.splat(QUOTE);
  const vb = i8x16.splat(BACKSLASH);
  const vc = i8x16.splat(COMMA);
  const vopen = i8x16.splat(0x7b); // '{', and '[' | 0x20
  const vclose = i8x16.splat(0x7d); // '}', and ']' | 0x20
  const v20 = i8x16.splat(0x20);
  for (let p = start; p < end; p += 64) {
    const n = min(end - p, 64);
    const valid: u64 = n == 64 ? ~(<u64>0) : ((<u64>1) << n) - 1;
    const at = INPUT + p;
    const a = v128.load(at);
    const b = v128.load(at, 16);
    const c = v128.load(at, 32);
    const d = v128.load(at, 48);
    const quotes = maskOf(a, b, c, d, vq) & valid;
    const backslashes = maskOf(a, b, c, d, vb) & valid;
    let escaped: u64 = 0;
    if (backslashes != 0 || escapedCarry != 0) {
      let e = escapedCarry;
      for (let i: u32 = 0; i < <u32>n; i++) {
        if (e) {
          escaped |= (<u64>1) << i;
          e = 0;
        } else if ((backslashes >> i) & 1) e = 1;
      }
      escapedCarry = e;
    }
    const inside = prefixXor(quotes & ~escaped) ^ inString;
    inString = (inside >> (<u64>n - 1)) & 1 ? ~(<u64>0) : 0;
    const la = v128.or(a, v20);
    const lb = v128.or(b, v20);
    const lc = v128.or(c, v20);
    const ld = v128.or(d, v20);
    const opens = maskOf(la, lb, lc, ld, vopen);
    const closes = maskOf(la, lb, lc, ld, vclose);
    const outside = ~inside & valid;
    const closing = closes & outside;
    const commaMask = maskOf(a, b, c, d, vc) & outside;
    // Depth cannot come down to 0 (or to 1, where commas count) in this step: count, do not visit.
    const low: u32 = commaMask != 0 ? 1 : 0;
    const closeCount = <u32>popcnt(closing);
    if (closeCount + low < depth) {
      depth += <u32>popcnt(opens & outside) - closeCount;
      continue;
    }
    let s = (opens & outside) | closing | commaMask;
    while (s != 0) {
      const i = <u32>ctz(s);
      s &= s - 1;
      const bit = (<u64>1) << i;
      if (commaMask & bit) {
        if (depth == 1) {
          commas++;
          if (commas == stopAt) {
            saveState(depth, 0, 0, commas);
            return <i32>(p + i);
          }
        }
      } else if (opens & bit) depth++;
      else {
        if (depth == 0) {
          store<u32>(JSON_STATE, <u32>(p + i), 16);
          return -2;
        }
        depth--;
        if (depth == 0) {
          saveState(0, 0, 0, commas);
          return <i32>(p + i + 1);
        }
      }
    }
  }
  saveState(depth, inString ? 1 : 0, escapedCarry, commas);
  return -1;
}

// @ts-ignore: decorator
@inline function saveState(depth: u32, inString: u32, escaped: u32, commas: u32): void {
  store<u32>(JSON_STATE, depth);
  store<u32>(JSON_STATE, inString, 4);
  store<u32>(JSON_STATE, escaped, 8);
  store<u32>(JSON_STATE, commas, 12);
}
