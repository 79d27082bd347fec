/**
 * Characters of UTF-8 text: one starts at every byte that is not a continuation
 * byte (10xxxxxx), so in valid UTF-8 these kernels count code points. Char-budget
 * pages are cut with them (src-main/engine/read/pages.ts). As signed bytes,
 * continuation bytes are the ones below -64.
 */
import { INPUT } from './layout';

// @ts-ignore: decorator
@inline function startBits(v: v128): u32 {
  return ~(<u32>i8x16.bitmask(i8x16.lt_s(v, i8x16.splat(-64)))) & 0xffff;
}

/** Bytes of input[start..end) that start a character (not 10xxxxxx). */
export function countChars(start: usize, end: usize): u32 {
  let p = INPUT + start;
  const e = INPUT + end;
  let count: u32 = 0;
  while (e - p >= 64) {
    const m = <u64>startBits(v128.load(p)) | (<u64>startBits(v128.load(p, 16)) << 16) | (<u64>startBits(v128.load(p, 32)) << 32) | (<u64>startBits(v128.load(p, 48)) << 48);
    count += <u32>popcnt(m);
    p += 64;
  }
  while (e - p >= 16) {
    count += <u32>popcnt(startBits(v128.load(p)));
    p += 16;
  }
  while (p < e) {
    count += (load<u8>(p) & 0xc0) != 0x80 ? 1 : 0;
    p++;
  }
  return count;
}

/** Lead bytes (11xxxxxx) of v as bits: as signed bytes they are -64..-1. */
// @ts-ignore: decorator
@inline function leadBits(v: v128): u32 {
  return <u32>i8x16.bitmask(v128.and(i8x16.gt_s(v, i8x16.splat(-65)), v));
}

/**
 * Bytes of input[start..end) that lead a multi-byte sequence (11xxxxxx): in valid
 * UTF-8, its multi-byte characters. The index counts them for the encoding verdict
 * when the platform's validator (simdutf, Node's buffer.isUtf8) has already said
 * the text is valid. All-ASCII 64-byte groups cost one test.
 */
export function countLeads(start: usize, end: usize): u32 {
  let p = INPUT + start;
  const e = INPUT + end;
  let count: u32 = 0;
  const high = i8x16.splat(<i8>0x80);
  while (e - p >= 64) {
    const a = v128.load(p);
    const b = v128.load(p, 16);
    const c = v128.load(p, 32);
    const d = v128.load(p, 48);
    if (v128.any_true(v128.and(v128.or(v128.or(a, b), v128.or(c, d)), high))) {
      count += <u32>popcnt(<u64>leadBits(a) | (<u64>leadBits(b) << 16) | (<u64>leadBits(c) << 32) | (<u64>leadBits(d) << 48));
    }
    p += 64;
  }
  while (e - p >= 16) {
    count += <u32>popcnt(leadBits(v128.load(p)));
    p += 16;
  }
  while (p < e) {
    count += load<u8>(p) >= 0xc0 ? 1 : 0;
    p++;
  }
  return count;
}

/** Offset in input of the n-th (1-based) byte of input[start..end) that starts a character, or -1 if there are fewer. */
export function findNthChar(start: usize, end: usize, n: u32): isize {
  if (n == 0) return -1;
  let p = INPUT + start;
  const e = INPUT + end;
  // Skip 64 bytes at a time by the popcount of a 64-bit mask.
  while (e - p >= 64) {
    let m = <u64>startBits(v128.load(p)) | (<u64>startBits(v128.load(p, 16)) << 16) | (<u64>startBits(v128.load(p, 32)) << 32) | (<u64>startBits(v128.load(p, 48)) << 48);
    const c = <u32>popcnt(m);
    if (c >= n) {
      // Drop the lowest n-1 set bits; the next one is the answer.
      for (let i: u32 = 1; i < n; i++) m &= m - 1;
      return <isize>(p - INPUT + <usize>ctz(m));
    }
    n -= c;
    p += 64;
  }
  while (e - p >= 16) {
    let m = startBits(v128.load(p));
    const c = <u32>popcnt(m);
    if (c >= n) {
      for (let i: u32 = 1; i < n; i++) m &= m - 1;
      return <isize>(p - INPUT + <usize>ctz(m));
    }
    n -= c;
    p += 16;
  }
  while (p < e) {
    if ((load<u8>(p) & 0xc0) != 0x80) {
      if (--n == 0) return <isize>(p - INPUT);
    }
    p++;
  }
  return -1;
}
