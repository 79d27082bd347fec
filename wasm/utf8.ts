/**
 * Streaming UTF-8 validation.
 *
 * Fast path: the "lookup" algorithm of J. Keiser and D. Lemire, "Validating UTF-8
 * In Less Than One Instruction Per Byte", Software: Practice and Experience 51(5),
 * 2021 (simdjson / simdutf "lookup4"). Three 16-entry tables indexed by the high
 * nibble of the previous byte, its low nibble and the high nibble of the current
 * byte are ANDed: a non-zero lane means the 2-byte pattern ending at that byte is
 * illegal. 3- and 4-byte sequences are then checked by "must be the 2nd/3rd
 * continuation" (saturating subtract on the bytes 2 and 3 back) XORed with the
 * TWO_CONTS bit. 64-byte groups that are all ASCII are skipped.
 *
 * The SIMD path only says "an error is somewhere in this group". The exact offset
 * (Rust's Utf8Error::valid_up_to) comes from a scalar decoder (Unicode 15, Table 3-7)
 * restarted at the start of the code point that contains the group's first byte,
 * which may lie up to 3 bytes before the window: the glue keeps the last 3 bytes
 * fed in the guard just before INPUT. The scalar decoder also handles the tail
 * (< 16 bytes) and measures an incomplete trailing sequence (`utf8Pending`).
 *
 * State across feeds lives in the glue (3 carried bytes, position, sticky error),
 * so several streams can share one instance.
 */
import { INPUT } from './layout';

// Error bits of the lookup tables (simdutf naming).
const TOO_SHORT: i8 = 1 << 0; // 11______ 0_______ or 11______ 11______
const TOO_LONG: i8 = 1 << 1; // 0_______ 10______
const OVERLONG_3: i8 = 1 << 2; // 11100000 100_____
const TOO_LARGE: i8 = 1 << 3; // 11110100 1001____ .. 11111___ 101_____
const SURROGATE: i8 = 1 << 4; // 11101101 101_____
const OVERLONG_2: i8 = 1 << 5; // 1100000_ 10______
const TOO_LARGE_1000: i8 = 1 << 6; // 11110101 1000____ .. 11111___ 1000____
const OVERLONG_4: i8 = 1 << 6; // 11110000 1000____
const TWO_CONTS: i8 = <i8>(1 << 7); // 10______ 10______
const CARRY: i8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

// Indexed by the high nibble of the previous byte.
const BYTE_1_HIGH = i8x16(
  TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
  TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
  TOO_SHORT | OVERLONG_2,
  TOO_SHORT,
  TOO_SHORT | OVERLONG_3 | SURROGATE,
  TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
);
// Indexed by the low nibble of the previous byte.
const BYTE_1_LOW = i8x16(
  CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
  CARRY | OVERLONG_2,
  CARRY,
  CARRY,
  CARRY | TOO_LARGE,
  CARRY | TOO_LARGE | TOO_LARGE_1000,
  CARRY | TOO_LARGE | TOO_LARGE_1000,
  CARRY | TOO_LARGE | TOO_LARGE_1000,
  CARRY | TOO_LARGE | TOO_LARGE_1000,
  CARRY | TOO_LARGE | TOO_LARGE_1000,
  CARRY | TOO_LARGE | TOO_LARGE_1000,
  CARRY | TOO_LARGE | TOO_LARGE_1000,
  CARRY | TOO_LARGE | TOO_LARGE_1000,
  CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
  CARRY | TOO_LARGE | TOO_LARGE_1000,
  CARRY | TOO_LARGE | TOO_LARGE_1000,
);
// Indexed by the high nibble of the current byte.
const BYTE_2_HIGH = i8x16(
  TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
  TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
  TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
  TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
  TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
  TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
);
// Last 3 lanes: a lead byte that needs more bytes than remain in the vector.
const INCOMPLETE_MAX = i8x16(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, <i8>(0xf0 - 1), <i8>(0xe0 - 1), <i8>(0xc0 - 1));

/** Length of the valid-but-truncated sequence ending the last feed (0..3). */
let pendingLen: u32 = 0;

// @ts-ignore: decorator
@inline function prev1(input: v128, prev: v128): v128 {
  return i8x16.shuffle(prev, input, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
}
// @ts-ignore: decorator
@inline function prev2(input: v128, prev: v128): v128 {
  return i8x16.shuffle(prev, input, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29);
}
// @ts-ignore: decorator
@inline function prev3(input: v128, prev: v128): v128 {
  return i8x16.shuffle(prev, input, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28);
}

/** Non-zero lanes where the bytes ending there are not valid UTF-8 (given the previous 16 bytes). */
// @ts-ignore: decorator
@inline function checkBlock(input: v128, prev: v128): v128 {
  const p1 = prev1(input, prev);
  const low4 = i8x16.splat(0x0f);
  const b1High = i8x16.swizzle(BYTE_1_HIGH, i8x16.shr_u(p1, 4));
  const b1Low = i8x16.swizzle(BYTE_1_LOW, v128.and(p1, low4));
  const b2High = i8x16.swizzle(BYTE_2_HIGH, i8x16.shr_u(input, 4));
  const special = v128.and(v128.and(b1High, b1Low), b2High);
  // Only 111_____ two back or 1111____ three back leave the high bit set.
  const third = i8x16.sub_sat_u(prev2(input, prev), i8x16.splat(<i8>(0xe0 - 0x80)));
  const fourth = i8x16.sub_sat_u(prev3(input, prev), i8x16.splat(<i8>(0xf0 - 0x80)));
  const must23 = v128.and(v128.or(third, fourth), i8x16.splat(<i8>0x80));
  return v128.xor(must23, special);
}

// @ts-ignore: decorator
@inline function isIncomplete(v: v128): v128 {
  return i8x16.sub_sat_u(v, INCOMPLETE_MAX);
}

/**
 * Scalar decoder (Unicode Table 3-7, well-formed byte sequences). Returns the
 * address of the first byte of the first ill-formed sequence in [p, end), or 0
 * if none; sets pendingLen to the length of a truncated-but-valid sequence at end.
 */
function scalarValidate(p: usize, end: usize): usize {
  pendingLen = 0;
  while (p < end) {
    const b0 = <u32>load<u8>(p);
    if (b0 < 0x80) {
      p++;
      continue;
    }
    let need: usize;
    let lo: u32 = 0x80;
    let hi: u32 = 0xbf;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      need = 1;
    } else if (b0 == 0xe0) {
      need = 2;
      lo = 0xa0;
    } else if (b0 == 0xed) {
      need = 2;
      hi = 0x9f;
    } else if (b0 >= 0xe1 && b0 <= 0xef) {
      need = 2;
    } else if (b0 == 0xf0) {
      need = 3;
      lo = 0x90;
    } else if (b0 == 0xf4) {
      need = 3;
      hi = 0x8f;
    } else if (b0 >= 0xf1 && b0 <= 0xf3) {
      need = 3;
    } else {
      return p; // 80..C1, F5..FF never start a sequence
    }
    for (let i: usize = 1; i <= need; i++) {
      if (p + i >= end) {
        pendingLen = <u32>(end - p);
        return 0;
      }
      const b = <u32>load<u8>(p + i);
      if (i == 1 ? b < lo || b > hi : (b & 0xc0) != 0x80) return p;
    }
    p += need + 1;
  }
  return 0;
}

/**
 * Start of the code point containing the byte at p, given that everything before
 * p is valid: p itself unless one of the 3 bytes before it is a lead byte whose
 * sequence reaches p.
 */
function codepointStart(p: usize): usize {
  for (let j: usize = 1; j <= 3; j++) {
    const b = <u32>load<u8>(p - j);
    if ((b & 0xc0) == 0x80) continue;
    const len: usize = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return len > j ? p - j : p;
  }
  return p;
}

/**
 * Validate input[0..len), the 3 bytes before INPUT being the previous feed's last
 * bytes. Returns the address of the first ill-formed sequence, or 0.
 */
export function utf8Feed(len: usize): usize {
  let p = INPUT;
  const end = INPUT + len;
  const high = i8x16.splat(<i8>0x80);
  while (end - p >= 64) {
    // The 16 bytes before p (the guard holds the carried bytes before INPUT; only
    // lanes 13-15 matter to prev1/2/3 and isIncomplete).
    const prev = v128.load(p - 16);
    const prevIncomplete = isIncomplete(prev);
    if (!v128.any_true(prevIncomplete)) {
      // ASCII run: one branch per 256 bytes. Nothing open before p, so an all-ASCII
      // stretch needs no further check.
      while (end - p >= 256) {
        const o = v128.or(
          v128.or(v128.or(v128.or(v128.load(p), v128.load(p, 16)), v128.or(v128.load(p, 32), v128.load(p, 48))),
            v128.or(v128.or(v128.load(p, 64), v128.load(p, 80)), v128.or(v128.load(p, 96), v128.load(p, 112)))),
          v128.or(v128.or(v128.or(v128.load(p, 128), v128.load(p, 144)), v128.or(v128.load(p, 160), v128.load(p, 176))),
            v128.or(v128.or(v128.load(p, 192), v128.load(p, 208)), v128.or(v128.load(p, 224), v128.load(p, 240)))),
        );
        if (v128.any_true(v128.and(o, high))) break;
        p += 256;
      }
      if (end - p < 64) break;
    }
    const before = v128.load(p - 16);
    const a = v128.load(p);
    const b = v128.load(p, 16);
    const c = v128.load(p, 32);
    const d = v128.load(p, 48);
    const any = v128.or(v128.or(a, b), v128.or(c, d));
    if (!v128.any_true(v128.and(any, high))) {
      // All ASCII: only an unfinished sequence from before can be wrong.
      if (v128.any_true(isIncomplete(before))) return scalarValidate(codepointStart(p), end);
    } else {
      const err = v128.or(
        v128.or(checkBlock(a, before), checkBlock(b, a)),
        v128.or(checkBlock(c, b), checkBlock(d, c)),
      );
      if (v128.any_true(err)) return scalarValidate(codepointStart(p), end);
    }
    p += 64;
  }
  while (end - p >= 16) {
    const prev = v128.load(p - 16);
    const a = v128.load(p);
    if (!v128.any_true(v128.and(a, high))) {
      if (v128.any_true(isIncomplete(prev))) return scalarValidate(codepointStart(p), end);
    } else if (v128.any_true(checkBlock(a, prev))) {
      return scalarValidate(codepointStart(p), end);
    }
    p += 16;
  }
  // Tail (< 16 bytes) and any sequence left open by the SIMD part.
  return scalarValidate(codepointStart(p), end);
}

/** Bytes of the incomplete sequence that ended the last valid feed (0..3). */
export function utf8Pending(): u32 {
  return pendingLen;
}
