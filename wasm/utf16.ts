/**
 * UTF-16 kernels: the newline answers of newlines.ts counted in 2-byte code units,
 * and surrogate-pair validation. Offsets are byte offsets into the input window;
 * callers pass even `start` and `end` (a UTF-16 file's text starts at an even file
 * offset, after its 2-byte BOM or without one, and the engine only loads windows
 * that start at even file offsets), so every unit sits at an even offset.
 *
 * `be` picks the byte order. WASM loads are little-endian, so an i16x8 lane holds
 * the unit itself for UTF-16LE and the byte-swapped unit for UTF-16BE: LF is
 * 0x000A or 0x0A00 in a lane. A 0x0A byte inside another unit (U+010A, U+0A0A) or
 * at an odd offset never compares equal. Counting uses the compare-mask idiom of
 * newlines.ts with 16-bit lane counters.
 */
import { INPUT, BLOCK_SIZE, BLOCK_COUNTS, RESULTS, sumLanes } from './layout';

/** 64-byte groups before a u16 lane counter could overflow: 4 per group, 16383 * 4 < 65536. */
const FLUSH_GROUPS16: usize = 16383;

// @ts-ignore: decorator
@inline function laneOf(unit: u16, be: bool): u16 {
  return be ? bswap<u16>(unit) : unit;
}

// @ts-ignore: decorator
@inline function unitAt(p: usize, be: bool): u16 {
  const v = load<u16>(p);
  return be ? bswap<u16>(v) : v;
}

/** Units equal to `unit` in [p, end) (absolute addresses, end - p even). */
function countUnit(p: usize, end: usize, unit: u16, be: bool): u32 {
  const n = i16x8.splat(laneOf(unit, be));
  let total = i32x4.splat(0);
  while (end - p >= 64) {
    let groups = (end - p) >> 6;
    if (groups > FLUSH_GROUPS16) groups = FLUSH_GROUPS16;
    const stop = p + (groups << 6);
    let acc = i16x8.splat(0);
    do {
      const a = i16x8.eq(v128.load(p), n);
      const b = i16x8.eq(v128.load(p, 16), n);
      const c = i16x8.eq(v128.load(p, 32), n);
      const d = i16x8.eq(v128.load(p, 48), n);
      acc = i16x8.sub(acc, i16x8.add(i16x8.add(a, b), i16x8.add(c, d)));
      p += 64;
    } while (p < stop);
    total = i32x4.add(total, i32x4.extadd_pairwise_i16x8_u(acc));
  }
  let count = sumLanes(total);
  while (end - p >= 16) {
    count += <u32>popcnt(i16x8.bitmask(i16x8.eq(v128.load(p), n)));
    p += 16;
  }
  while (p < end) {
    count += load<u16>(p) == laneOf(unit, be) ? 1 : 0;
    p += 2;
  }
  return count;
}

/**
 * LF units per BLOCK_SIZE block of input[0..len) (one u32 per block at
 * BLOCK_COUNTS) and the total CR units (RESULTS[0]). Returns the total LF units.
 */
export function countLinesAndCR16(len: usize, be: bool): u32 {
  let total: u32 = 0;
  let cr: u32 = 0;
  let blockIdx: usize = 0;
  for (let start: usize = 0; start < len; start += BLOCK_SIZE) {
    const end = min(start + BLOCK_SIZE, len);
    const lf = countUnit(INPUT + start, INPUT + end, 10, be);
    cr += countUnit(INPUT + start, INPUT + end, 13, be);
    store<u32>(BLOCK_COUNTS + (blockIdx << 2), lf);
    total += lf;
    blockIdx++;
  }
  store<u32>(RESULTS, cr);
  return total;
}

export function countNewlines16(start: usize, end: usize, be: bool): u32 {
  return countUnit(INPUT + start, INPUT + end, 10, be);
}

/** Byte offset (in input) of the n-th (1-based) LF unit in input[start..end), or -1. */
export function findNthNewline16(start: usize, end: usize, n: u32, be: bool): isize {
  if (n == 0) return -1;
  const lf = i16x8.splat(laneOf(10, be));
  let p = INPUT + start;
  const e = INPUT + end;
  while (e - p >= 64) {
    const m0 = <u32>i16x8.bitmask(i16x8.eq(v128.load(p), lf));
    const m1 = <u32>i16x8.bitmask(i16x8.eq(v128.load(p, 16), lf));
    const m2 = <u32>i16x8.bitmask(i16x8.eq(v128.load(p, 32), lf));
    const m3 = <u32>i16x8.bitmask(i16x8.eq(v128.load(p, 48), lf));
    let m = m0 | (m1 << 8) | (m2 << 16) | (m3 << 24);
    const c = <u32>popcnt(m);
    if (c >= n) {
      for (let i: u32 = 1; i < n; i++) m &= m - 1;
      return <isize>(p - INPUT + (<usize>ctz(m) << 1));
    }
    n -= c;
    p += 64;
  }
  while (p < e) {
    if (load<u16>(p) == laneOf(10, be)) {
      if (--n == 0) return <isize>(p - INPUT);
    }
    p += 2;
  }
  return -1;
}

/**
 * CR units and CR LF unit pairs (pairs whose LF is in input[start..end)); prevIsCR
 * says whether the unit before `start` was CR. Writes [cr, crlf] to RESULTS.
 */
export function countNewlineStyle16(start: usize, end: usize, prevIsCR: bool, be: bool): u32 {
  const cr = countUnit(INPUT + start, INPUT + end, 13, be);
  let crlf: u32 = 0;
  let p = INPUT + start;
  const e = INPUT + end;
  const crLane = laneOf(13, be);
  const lfLane = laneOf(10, be);
  if (p < e) {
    crlf += load<u16>(p) == lfLane && prevIsCR ? 1 : 0;
    p += 2;
  }
  // From here the unit before p is inside the range: v128.load(p - 2) is "previous".
  const vcr = i16x8.splat(crLane);
  const vlf = i16x8.splat(lfLane);
  while (e - p >= 16) {
    const pairs = v128.and(i16x8.eq(v128.load(p), vlf), i16x8.eq(v128.load(p - 2), vcr));
    crlf += <u32>popcnt(i16x8.bitmask(pairs));
    p += 16;
  }
  while (p < e) {
    crlf += load<u16>(p) == lfLane && load<u16>(p - 2) == crLane ? 1 : 0;
    p += 2;
  }
  store<u32>(RESULTS, cr);
  store<u32>(RESULTS, crlf, 4);
  return cr;
}

/**
 * Offset (in input) of the first ill-formed unit of input[start..end): a low
 * surrogate with no high one before it in the range, or a high surrogate followed
 * by anything but a low one. -1 if none. A high surrogate as the range's last unit
 * is not an error here (its low may follow in the next range): RESULTS[0] is 1
 * then, else 0. Vectors without any surrogate are skipped 8 units at a time.
 */
export function utf16Validate(start: usize, end: usize, be: bool): isize {
  const mask = i16x8.splat(laneOf(0xf800, be));
  const surrogate = i16x8.splat(laneOf(0xd800, be));
  let p = INPUT + start;
  const e = INPUT + end;
  store<u32>(RESULTS, 0);
  while (p < e) {
    if (e - p >= 16 && !v128.any_true(i16x8.eq(v128.and(v128.load(p), mask), surrogate))) {
      p += 16;
      continue;
    }
    const u = unitAt(p, be);
    if (u >= 0xd800 && u <= 0xdbff) {
      if (p + 2 >= e) {
        store<u32>(RESULTS, 1);
        return -1;
      }
      const next = unitAt(p + 2, be);
      if (next < 0xdc00 || next > 0xdfff) return <isize>(p - INPUT);
      p += 4;
    } else if (u >= 0xdc00 && u <= 0xdfff) {
      return <isize>(p - INPUT);
    } else {
      p += 2;
    }
  }
  return -1;
}
