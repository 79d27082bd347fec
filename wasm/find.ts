/**
 * Literal search by lines: which lines of the input window hold a needle, at
 * memory speed. The "generic SIMD" substring search (W. Muła): compare 16
 * positions at once against the needle's first and last bytes, and check the
 * bytes between only where both agree. After a hit the scan jumps to the end
 * of the line, so each line is found once, at its first occurrence. With
 * `fold` the needle is lower-case ASCII and letters match either case (a byte
 * OR 0x20 equals a lower-case letter only when it is that letter, in either
 * case), which is exactly how a JS regex without 'u' folds an ASCII word.
 *
 * Loads may run up to NEEDLE_MAX + 64 bytes past `end`: the layout keeps that
 * much memory after the input window, and no candidate past `end` is taken.
 */
import { INPUT, NEEDLE, HITS, RESULTS } from './layout';

const LF: u8 = 10;

/** First '\n' in [p, e), or e. */
function nextNewline(p: usize, e: usize): usize {
  const lf = i8x16.splat(LF);
  while (p + 16 <= e) {
    const mask = i8x16.bitmask(i8x16.eq(v128.load(p), lf));
    if (mask != 0) return p + <usize>ctz(mask);
    p += 16;
  }
  while (p < e) {
    if (load<u8>(p) == LF) return p;
    p++;
  }
  return e;
}

/** Whether the needle's bytes 1..m-1 are at pos + 1 (byte 0 and m-1 were compared already, m-1 again: cheap). */
// @ts-ignore: decorator
@inline function restMatches(pos: usize, m: usize, fold: bool): bool {
  for (let j: usize = 1; j < m; j++) {
    let c = load<u8>(pos + j);
    const n = load<u8>(NEEDLE + j);
    if (fold && n >= 0x61 && n <= 0x7a) c |= 0x20;
    if (c != n) return false;
  }
  return true;
}

/**
 * Lines of input[start..end) (start is a line start) that hold NEEDLE[0..m)
 * (1 <= m <= NEEDLE_MAX, no '\n' in it). With cap == 0, counts them all; else
 * writes the input offset of each line's first hit as a u32 at HITS and stops
 * after `cap` lines. Returns the lines found; RESULTS[0] is where the scan
 * stopped (end, or the start of the line after the last one found).
 */
export function findLines(start: usize, end: usize, m: usize, fold: u32, cap: u32): u32 {
  return fold != 0 ? scan(start, end, m, cap, true) : scan(start, end, m, cap, false);
}

/** Where in the 32 bytes at p the needle's first and last bytes are: two compare masks. */
// @ts-ignore: decorator
@inline function pairAt(p: usize, tail: usize, vf: v128, vl: v128, firstOr: v128, lastOr: v128, folding: bool, off: usize): v128 {
  let a = v128.load(p + off);
  let b = v128.load(p + off + tail);
  if (folding) {
    a = v128.or(a, firstOr);
    b = v128.or(b, lastOr);
  }
  return v128.and(i8x16.eq(a, vf), i8x16.eq(b, vl));
}

// @ts-ignore: decorator
@inline function scan(start: usize, end: usize, m: usize, cap: u32, folding: bool): u32 {
  const first = load<u8>(NEEDLE);
  const last = load<u8>(NEEDLE + m - 1);
  const firstOr = i8x16.splat(folding && first >= 0x61 && first <= 0x7a ? 0x20 : 0);
  const lastOr = i8x16.splat(folding && last >= 0x61 && last <= 0x7a ? 0x20 : 0);
  const vf = i8x16.splat(first);
  const vl = i8x16.splat(last);
  const e = INPUT + end;
  const tail = m - 1;
  let p = INPUT + start;
  let found: u32 = 0;
  let done = false;
  while (!done && p < e) {
    const c0 = pairAt(p, tail, vf, vl, firstOr, lastOr, folding, 0);
    const c1 = pairAt(p, tail, vf, vl, firstOr, lastOr, folding, 16);
    const c2 = pairAt(p, tail, vf, vl, firstOr, lastOr, folding, 32);
    const c3 = pairAt(p, tail, vf, vl, firstOr, lastOr, folding, 48);
    if (!v128.any_true(v128.or(v128.or(c0, c1), v128.or(c2, c3)))) {
      p += 64;
      continue;
    }
    let mask =
      <u64>(<u32>i8x16.bitmask(c0) | (<u32>i8x16.bitmask(c1) << 16)) | (<u64>(<u32>i8x16.bitmask(c2) | (<u32>i8x16.bitmask(c3) << 16)) << 32);
    let next = p + 64;
    while (mask != 0) {
      const pos = p + <usize>ctz(mask);
      if (pos + m > e) {
        next = e;
        break;
      }
      if (restMatches(pos, m, folding)) {
        if (cap != 0) store<u32>(HITS + (<usize>found << 2), <u32>(pos - INPUT));
        found++;
        const nl = nextNewline(pos + m, e);
        next = nl < e ? nl + 1 : e;
        done = found == cap;
        break;
      }
      mask &= mask - 1;
    }
    p = next;
  }
  store<u32>(RESULTS, <u32>((p < e ? p : e) - INPUT));
  return found;
}
