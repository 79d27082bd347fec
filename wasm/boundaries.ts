/**
 * Boundary helpers used to cut windows: code-point snapping (a UTF-8 code point
 * never has more than 3 continuation bytes) and the enclosing line's ends.
 * '\n' searches are SIMD because log lines can be very long.
 */
import { INPUT } from './layout';

const LF: u8 = 10;

// @ts-ignore: decorator
@inline function isContinuation(p: usize): bool {
  return (load<u8>(p) & 0xc0) == 0x80;
}

/** Largest p in [max(start, pos - 3), pos] whose byte starts a code point; pos if none. */
export function snapBackToCodepoint(start: usize, pos: usize): usize {
  const low = pos - start > 3 ? pos - 3 : start;
  for (let p = pos; p > low; p--) {
    if (!isContinuation(INPUT + p)) return p;
  }
  return isContinuation(INPUT + low) ? pos : low;
}

/** Smallest p in [pos, min(end, pos + 3)] that starts a code point (end counts); pos if none. */
export function snapForwardToCodepoint(pos: usize, end: usize): usize {
  const high = end - pos > 3 ? pos + 3 : end;
  for (let p = pos; p <= high; p++) {
    if (p == end || !isContinuation(INPUT + p)) return p;
  }
  return pos;
}

/** Offset just after the last '\n' in input[start..pos), or -1. */
export function lineStartBefore(start: usize, pos: usize): isize {
  const lf = i8x16.splat(LF);
  const s = INPUT + start;
  let p = INPUT + pos;
  while (p - s >= 64) {
    const a = i8x16.eq(v128.load(p - 64), lf);
    const b = i8x16.eq(v128.load(p - 48), lf);
    const c = i8x16.eq(v128.load(p - 32), lf);
    const d = i8x16.eq(v128.load(p - 16), lf);
    if (v128.any_true(v128.or(v128.or(a, b), v128.or(c, d)))) {
      const m = (<u64><u32>i8x16.bitmask(a)) | ((<u64><u32>i8x16.bitmask(b)) << 16) |
        ((<u64><u32>i8x16.bitmask(c)) << 32) | ((<u64><u32>i8x16.bitmask(d)) << 48);
      return <isize>(p - 64 - INPUT + 64 - <usize>clz(m));
    }
    p -= 64;
  }
  while (p - s >= 16) {
    const m = <u32>i8x16.bitmask(i8x16.eq(v128.load(p - 16), lf));
    if (m != 0) return <isize>(p - 16 - INPUT + 32 - <usize>clz(m));
    p -= 16;
  }
  while (p > s) {
    p--;
    if (load<u8>(p) == LF) return <isize>(p + 1 - INPUT);
  }
  return -1;
}

/** Offset of the first '\n' in input[pos..end), or -1. */
export function lineEndAfter(pos: usize, end: usize): isize {
  const lf = i8x16.splat(LF);
  let p = INPUT + pos;
  const e = INPUT + end;
  while (e - p >= 64) {
    const a = i8x16.eq(v128.load(p), lf);
    const b = i8x16.eq(v128.load(p, 16), lf);
    const c = i8x16.eq(v128.load(p, 32), lf);
    const d = i8x16.eq(v128.load(p, 48), lf);
    if (v128.any_true(v128.or(v128.or(a, b), v128.or(c, d)))) {
      const m = (<u64><u32>i8x16.bitmask(a)) | ((<u64><u32>i8x16.bitmask(b)) << 16) |
        ((<u64><u32>i8x16.bitmask(c)) << 32) | ((<u64><u32>i8x16.bitmask(d)) << 48);
      return <isize>(p - INPUT + <usize>ctz(m));
    }
    p += 64;
  }
  while (e - p >= 16) {
    const m = <u32>i8x16.bitmask(i8x16.eq(v128.load(p), lf));
    if (m != 0) return <isize>(p - INPUT + <usize>ctz(m));
    p += 16;
  }
  while (p < e) {
    if (load<u8>(p) == LF) return <isize>(p - INPUT);
    p++;
  }
  return -1;
}
