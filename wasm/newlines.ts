/**
 * Newline kernels: per-block '\n' counts, counts over a range, the n-th '\n',
 * and CR / CRLF counts. SIMD: i8x16.eq against '\n' gives -1 per hit; subtracting
 * the masks accumulates per-lane byte counters that are widened every
 * FLUSH_GROUPS iterations (the "count with compare masks" idiom, as in simdutf's
 * counting routines), which is cheaper than bitmask + popcnt per vector.
 */
import { INPUT, BLOCK_SIZE, BLOCK_COUNTS, RESULTS, FLUSH_GROUPS, sumLanes, widenCounts } from './layout';

const LF: u8 = 10;
const CR: u8 = 13;

/** Count bytes equal to `needle` in [p, end) (absolute addresses). */
export function countByte(p: usize, end: usize, needle: u8): u32 {
  const n = i8x16.splat(needle);
  let total = i32x4.splat(0);
  while (end - p >= 64) {
    let groups = (end - p) >> 6;
    if (groups > FLUSH_GROUPS) groups = FLUSH_GROUPS;
    const stop = p + (groups << 6);
    let acc = i8x16.splat(0);
    do {
      const a = i8x16.eq(v128.load(p), n);
      const b = i8x16.eq(v128.load(p, 16), n);
      const c = i8x16.eq(v128.load(p, 32), n);
      const d = i8x16.eq(v128.load(p, 48), n);
      acc = i8x16.sub(acc, i8x16.add(i8x16.add(a, b), i8x16.add(c, d)));
      p += 64;
    } while (p < stop);
    total = i32x4.add(total, widenCounts(acc));
  }
  let count = sumLanes(total);
  while (end - p >= 16) {
    count += <u32>popcnt(i8x16.bitmask(i8x16.eq(v128.load(p), n)));
    p += 16;
  }
  while (p < end) {
    count += load<u8>(p) == needle ? 1 : 0;
    p++;
  }
  return count;
}

/**
 * Count '\n' in each BLOCK_SIZE block of input[0..len) (last block may be short),
 * writing one u32 per block at BLOCK_COUNTS. Returns the total.
 */
export function countNewlinesPerBlock(len: usize): u32 {
  let total: u32 = 0;
  let blockIdx: usize = 0;
  for (let start: usize = 0; start < len; start += BLOCK_SIZE) {
    const end = min(start + BLOCK_SIZE, len);
    const c = countByte(INPUT + start, INPUT + end, LF);
    store<u32>(BLOCK_COUNTS + (blockIdx << 2), c);
    total += c;
    blockIdx++;
  }
  return total;
}

/**
 * '\n' per BLOCK_SIZE block of input[0..len) (one u32 per block at BLOCK_COUNTS) and
 * the total '\r' count (RESULTS[0]), in one pass over the same loads. Returns the
 * total '\n'. The indexer calls this once per chunk; CRLF pairs are counted by
 * countNewlineStyle only for chunks that hold a '\r', which most files never do.
 */
export function countLinesAndCR(len: usize): u32 {
  const vlf = i8x16.splat(LF);
  const vcr = i8x16.splat(CR);
  let total: u32 = 0;
  let crTotal: u32 = 0;
  let blockIdx: usize = 0;
  for (let start: usize = 0; start < len; start += BLOCK_SIZE) {
    let p = INPUT + start;
    const end = INPUT + min(start + BLOCK_SIZE, len);
    let lfSum = i32x4.splat(0);
    let crSum = i32x4.splat(0);
    while (end - p >= 64) {
      let groups = (end - p) >> 6;
      if (groups > FLUSH_GROUPS) groups = FLUSH_GROUPS;
      const stop = p + (groups << 6);
      let lfAcc = i8x16.splat(0);
      let crAcc = i8x16.splat(0);
      do {
        const a = v128.load(p);
        const b = v128.load(p, 16);
        const c = v128.load(p, 32);
        const d = v128.load(p, 48);
        lfAcc = i8x16.sub(lfAcc, i8x16.add(i8x16.add(i8x16.eq(a, vlf), i8x16.eq(b, vlf)), i8x16.add(i8x16.eq(c, vlf), i8x16.eq(d, vlf))));
        crAcc = i8x16.sub(crAcc, i8x16.add(i8x16.add(i8x16.eq(a, vcr), i8x16.eq(b, vcr)), i8x16.add(i8x16.eq(c, vcr), i8x16.eq(d, vcr))));
        p += 64;
      } while (p < stop);
      lfSum = i32x4.add(lfSum, widenCounts(lfAcc));
      crSum = i32x4.add(crSum, widenCounts(crAcc));
    }
    let lf = sumLanes(lfSum);
    crTotal += sumLanes(crSum);
    while (p < end) {
      const byte = load<u8>(p);
      lf += <u32>(byte == LF);
      crTotal += <u32>(byte == CR);
      p++;
    }
    store<u32>(BLOCK_COUNTS + (blockIdx << 2), lf);
    total += lf;
    blockIdx++;
  }
  store<u32>(RESULTS, crTotal);
  return total;
}

export function countNewlines(start: usize, end: usize): u32 {
  return countByte(INPUT + start, INPUT + end, LF);
}

/** Offset (in input) of the n-th (1-based) '\n' in input[start..end), or -1. */
export function findNthNewline(start: usize, end: usize, n: u32): isize {
  if (n == 0) return -1;
  const lf = i8x16.splat(LF);
  let p = INPUT + start;
  const e = INPUT + end;
  // Skip 64 bytes at a time by the popcount of a 64-bit match mask.
  while (e - p >= 64) {
    const m0 = <u64><u32>i8x16.bitmask(i8x16.eq(v128.load(p), lf));
    const m1 = <u64><u32>i8x16.bitmask(i8x16.eq(v128.load(p, 16), lf));
    const m2 = <u64><u32>i8x16.bitmask(i8x16.eq(v128.load(p, 32), lf));
    const m3 = <u64><u32>i8x16.bitmask(i8x16.eq(v128.load(p, 48), lf));
    let m = m0 | (m1 << 16) | (m2 << 32) | (m3 << 48);
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
    let m = <u32>i8x16.bitmask(i8x16.eq(v128.load(p), lf));
    const c = <u32>popcnt(m);
    if (c >= n) {
      for (let i: u32 = 1; i < n; i++) m &= m - 1;
      return <isize>(p - INPUT + <usize>ctz(m));
    }
    n -= c;
    p += 16;
  }
  while (p < e) {
    if (load<u8>(p) == LF) {
      if (--n == 0) return <isize>(p - INPUT);
    }
    p++;
  }
  return -1;
}

/**
 * CR count and CRLF pair count (pairs whose '\n' is in input[start..end));
 * prevIsCR says whether the byte before `start` was '\r'. Writes [cr, crlf] to
 * RESULTS and returns cr.
 */
export function countNewlineStyle(start: usize, end: usize, prevIsCR: bool): u32 {
  let cr: u32 = 0;
  let crlf: u32 = 0;
  let p = INPUT + start;
  const e = INPUT + end;
  if (p < e) {
    const b = load<u8>(p);
    cr += b == CR ? 1 : 0;
    crlf += b == LF && prevIsCR ? 1 : 0;
    p++;
  }
  // From here on the byte before p is inside the range: load it as v128.load(p - 1).
  const vcr = i8x16.splat(CR);
  const vlf = i8x16.splat(LF);
  let crTotal = i32x4.splat(0);
  let pairTotal = i32x4.splat(0);
  while (e - p >= 64) {
    let groups = (e - p) >> 6;
    if (groups > FLUSH_GROUPS) groups = FLUSH_GROUPS;
    const stop = p + (groups << 6);
    let crAcc = i8x16.splat(0);
    let pairAcc = i8x16.splat(0);
    do {
      const a = v128.load(p);
      const b = v128.load(p, 16);
      const c = v128.load(p, 32);
      const d = v128.load(p, 48);
      const ca = i8x16.eq(a, vcr);
      const cb = i8x16.eq(b, vcr);
      const cc = i8x16.eq(c, vcr);
      const cd = i8x16.eq(d, vcr);
      crAcc = i8x16.sub(crAcc, i8x16.add(i8x16.add(ca, cb), i8x16.add(cc, cd)));
      // CR one byte earlier: the previous vector's last lane shifted in.
      const pa = i8x16.eq(v128.load(p - 1), vcr);
      const pb = i8x16.shuffle(ca, cb, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
      const pc = i8x16.shuffle(cb, cc, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
      const pd = i8x16.shuffle(cc, cd, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
      const la = v128.and(i8x16.eq(a, vlf), pa);
      const lb = v128.and(i8x16.eq(b, vlf), pb);
      const lc = v128.and(i8x16.eq(c, vlf), pc);
      const ld = v128.and(i8x16.eq(d, vlf), pd);
      pairAcc = i8x16.sub(pairAcc, i8x16.add(i8x16.add(la, lb), i8x16.add(lc, ld)));
      p += 64;
    } while (p < stop);
    crTotal = i32x4.add(crTotal, widenCounts(crAcc));
    pairTotal = i32x4.add(pairTotal, widenCounts(pairAcc));
  }
  cr += sumLanes(crTotal);
  crlf += sumLanes(pairTotal);
  while (e - p >= 16) {
    const v = v128.load(p);
    const prevCR = i8x16.eq(v128.load(p - 1), vcr);
    cr += <u32>popcnt(i8x16.bitmask(i8x16.eq(v, vcr)));
    crlf += <u32>popcnt(i8x16.bitmask(v128.and(i8x16.eq(v, vlf), prevCR)));
    p += 16;
  }
  while (p < e) {
    const b = load<u8>(p);
    cr += b == CR ? 1 : 0;
    crlf += b == LF && load<u8>(p - 1) == CR ? 1 : 0;
    p++;
  }
  store<u32>(RESULTS, cr);
  store<u32>(RESULTS, crlf, 4);
  return cr;
}
