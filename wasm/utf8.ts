/**
 * Streaming UTF-8 validation that counts: over a window it finds the first
 * ill-formed sequence and counts every ill-formed sequence and every valid
 * multi-byte character, so the index knows how much of a file is UTF-8.
 *
 * Ill-formed sequences are counted as "maximal subparts" (Unicode 15, section 3.9,
 * "U+FFFD Substitution of Maximal Subparts"; the WHATWG Encoding Standard's UTF-8
 * decoder, Python's and Node's TextDecoder do the same): each one is what a decoder
 * replaces with one U+FFFD.
 *
 * Fast path: the "lookup" algorithm of J. Keiser and D. Lemire, "Validating UTF-8
 * In Less Than One Instruction Per Byte", Software: Practice and Experience 51(5),
 * 2021 (simdjson / simdutf "lookup4"). Three 16-entry tables indexed by the high
 * nibble of the previous byte, its low nibble and the high nibble of the current
 * byte are ANDed: a non-zero lane means the 2-byte pattern ending at that byte is
 * illegal. 3- and 4-byte sequences are then checked by "must be the 2nd/3rd
 * continuation" (saturating subtract on the bytes 2 and 3 back) XORed with the
 * TWO_CONTS bit. 64-byte groups that are all ASCII are skipped; in the others the
 * lead bytes (11xxxxxx) of groups found valid are counted: one per multi-byte
 * character.
 *
 * Groups with errors (binary data, legacy text) are counted without decoding in
 * order: what becomes of a byte depends on the 3 bytes before it only, because a
 * lead byte (C2..F4) always starts a sequence. So eventsOf computes, 16 lanes at a
 * time, where a sequence breaks, where a byte is stray or never valid, and where a
 * character ends (~1.5 GB/s on random bytes, where a scalar decoder managed 0.15).
 * After a group without error the lookup algorithm takes over again. The two count
 * characters differently (by lead byte, by last byte), so a character open across
 * the switch is counted once by the switch itself.
 *
 * A valid but incomplete sequence at the end of the window is "pending": not
 * counted, since the next window may complete it (the glue copies its bytes in
 * front of that window).
 *
 * State across windows lives in the glue (the pending bytes, copied into the guard
 * just before INPUT, position, counts), so several streams can share one instance.
 */
import { INPUT, RESULTS } from './layout';

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


// Counts of the scan in progress (utf8Scan resets them).
let firstBad: usize = 0;
let invalidSeqs: u32 = 0;
let multiChars: u32 = 0;

/** Bytes that start a multi-byte sequence (C2..F4), and those of 3 or 4 bytes (E0..F4), of 4 (F0..F4). */
// @ts-ignore: decorator
@inline function isLead(v: v128): v128 {
  return v128.and(i8x16.ge_u(v, i8x16.splat(<i8>0xc2)), i8x16.le_u(v, i8x16.splat(<i8>0xf4)));
}
// @ts-ignore: decorator
@inline function isLead3(v: v128): v128 {
  return v128.and(i8x16.ge_u(v, i8x16.splat(<i8>0xe0)), i8x16.le_u(v, i8x16.splat(<i8>0xf4)));
}
// @ts-ignore: decorator
@inline function isLead4(v: v128): v128 {
  return v128.and(i8x16.ge_u(v, i8x16.splat(<i8>0xf0)), i8x16.le_u(v, i8x16.splat(<i8>0xf4)));
}
/** 80..BF: as signed bytes, below -64. */
// @ts-ignore: decorator
@inline function isCont(v: v128): v128 {
  return i8x16.lt_s(v, i8x16.splat(-64));
}
/** Bytes that never occur in UTF-8: C0, C1, F5..FF. */
// @ts-ignore: decorator
@inline function isNeverValid(v: v128): v128 {
  return v128.or(i8x16.ge_u(v, i8x16.splat(<i8>0xf5)), i8x16.eq(v128.and(v, i8x16.splat(<i8>0xfe)), i8x16.splat(<i8>0xc0)));
}
/** Per lane: for a lead byte just before it, is this byte an allowed second byte (Table 3-7)? From the lookup tables: no error bit set. */
// @ts-ignore: decorator
@inline function secondByteOk(input: v128, prev: v128): v128 {
  const p1 = prev1(input, prev);
  const b1High = i8x16.swizzle(BYTE_1_HIGH, i8x16.shr_u(p1, 4));
  const b1Low = i8x16.swizzle(BYTE_1_LOW, v128.and(p1, i8x16.splat(0x0f)));
  const b2High = i8x16.swizzle(BYTE_2_HIGH, i8x16.shr_u(input, 4));
  return i8x16.eq(v128.and(v128.and(b1High, b1Low), b2High), i8x16.splat(0));
}

/** Lanes with an error event of the last eventsOf call. */
let vectorEvents: u32 = 0;

/**
 * Decoder events of the 16 bytes at `base` (only lanes in `lanes`), counted
 * without decoding in order: a byte's fate depends on the 3 bytes before it only,
 * because a lead byte (C2..F4) always starts a sequence. At each byte:
 *  - a sequence is open if the byte before is a lead (open1), or a lead of 3-4
 *    bytes is 2 back with an allowed byte after it (open2), or a 4-byte lead is 3
 *    back with allowed bytes after it (open3);
 *  - B: an open sequence is broken by this byte (one U+FFFD for it);
 *  - A: this byte, not taken by an open sequence, is a continuation or never valid
 *    (one U+FFFD); a byte can be both (E2 then FF);
 *  - complete: this byte ends a valid multi-byte character.
 * `prevOk` is secondByteOk of the previous 16 bytes (all set where they were
 * valid so far). Returns this vector's secondByteOk.
 */
function eventsOf(v: v128, prev: v128, prevOk: v128, base: usize, lanes: u32): v128 {
  const ok0 = secondByteOk(v, prev); // (b1, b0)
  const ok1 = prev1(ok0, prevOk); // (b2, b1)
  const ok2 = prev2(ok0, prevOk); // (b3, b2)
  const b1 = prev1(v, prev);
  const b2 = prev2(v, prev);
  const b3 = prev3(v, prev);
  const c0 = isCont(v);
  const open1 = isLead(b1);
  const open2 = v128.and(isLead3(b2), ok1);
  const open3 = v128.and(v128.and(isLead4(b3), ok2), isCont(b1));
  const open23 = v128.or(open2, open3);
  const taken1 = v128.and(open1, ok0);
  const taken23 = v128.and(open23, c0);
  const broken = v128.or(v128.andnot(open1, ok0), v128.andnot(open23, c0));
  const stray = v128.andnot(v128.or(c0, isNeverValid(v)), v128.or(taken1, taken23));
  const complete = v128.or(
    v128.or(v128.and(taken1, i8x16.lt_u(b1, i8x16.splat(<i8>0xe0))), v128.and(taken23, v128.and(open2, i8x16.lt_u(b2, i8x16.splat(<i8>0xf0))))),
    v128.and(taken23, open3),
  );
  const brokenBits = <u32>i8x16.bitmask(broken) & lanes;
  const strayBits = <u32>i8x16.bitmask(stray) & lanes;
  invalidSeqs += <u32>(popcnt(brokenBits) + popcnt(strayBits));
  multiChars += <u32>popcnt(<u32>i8x16.bitmask(complete) & lanes);
  vectorEvents = brokenBits | strayBits;
  if (vectorEvents != 0 && firstBad == 0) {
    // The first ill-formed sequence starts at the first event, or for a broken
    // sequence at its lead.
    const e = <u32>ctz(vectorEvents);
    let back: u32 = 0;
    if ((brokenBits >> e) & 1) {
      back = (<u32>i8x16.bitmask(open1) >> e) & 1 ? 1 : (<u32>i8x16.bitmask(open2) >> e) & 1 ? 2 : 3;
    }
    firstBad = base + e - back;
  }
  return ok0;
}

/** 1 if a sequence is still open after the last byte of v (see eventsOf), else 0. */
function openAfter(v: v128, prev: v128, ok0: v128, prevOk: v128): u32 {
  const open = v128.or(
    v128.or(isLead(v), v128.and(isLead3(prev1(v, prev)), ok0)),
    v128.and(v128.and(isLead4(prev2(v, prev)), prev1(ok0, prevOk)), isCont(v)),
  );
  return (<u32>i8x16.bitmask(open) >> 15) & 1;
}

/** Lead bytes (11xxxxxx, valid or not) of v as bits: as signed bytes they are -64..-1. */
// @ts-ignore: decorator
@inline function leadBits(v: v128): u64 {
  return <u64>i8x16.bitmask(v128.and(i8x16.gt_s(v, i8x16.splat(-65)), v));
}

/**
 * A run of groups checked by the lookup algorithm ends at p (prev: the 16 bytes
 * before p). Those groups counted lead bytes; a sequence still open at p is
 * counted by whatever comes next, so its lead is uncounted. The one error the
 * lookup tables report only at the next byte is a never-valid byte (C0, C1,
 * F5..FF) just before p: counted here.
 */
function endCheckedRun(start: usize, p: usize, prev: v128): void {
  if (v128.any_true(isIncomplete(prev))) multiChars--;
  if (p > start) {
    const b = <u32>load<u8>(p - 1);
    if (b == 0xc0 || b == 0xc1 || b >= 0xf5) {
      invalidSeqs++;
      if (firstBad == 0) firstBad = p - 1;
    }
  }
}

/**
 * Scan input[-pending .. len): the `pending` bytes before INPUT are the incomplete
 * sequence that ended the previous window (the glue puts them there). Returns the
 * address of the first ill-formed sequence, or 0; writes to RESULTS the count of
 * ill-formed sequences, of valid multi-byte characters, and the length of a valid
 * but incomplete sequence at the end (not counted yet: the next window decides).
 *
 * 64-byte groups go through the lookup algorithm (valid text: lead bytes are
 * counted) until one has an error; from there each group goes through eventsOf
 * until a group has no error event, then back to the lookup algorithm. The last
 * (< 64) bytes go through eventsOf, masked.
 */
export function utf8Scan(pending: usize, len: usize): usize {
  const start = INPUT - pending;
  const end = INPUT + len;
  firstBad = 0;
  invalidSeqs = 0;
  multiChars = 0;
  const high = i8x16.splat(<i8>0x80);
  const allOk = i8x16.splat(-1);
  let p = start;
  let prev = i8x16.splat(0); // the block before p, as far as the checks can tell: ASCII
  let prevOk = allOk;
  let checked = true; // in a run of groups checked by the lookup algorithm
  while (end - p >= 64) {
    // A run of groups checked by the lookup algorithm, to the first error.
    let leads: u64 = 0;
    while (end - p >= 64) {
      if (!v128.any_true(isIncomplete(prev))) {
        // ASCII run: one branch per 256 bytes. Nothing open before p, so an
        // all-ASCII stretch needs no further check.
        while (end - p >= 256) {
          const o = v128.or(
            v128.or(v128.or(v128.or(v128.load(p), v128.load(p, 16)), v128.or(v128.load(p, 32), v128.load(p, 48))),
              v128.or(v128.or(v128.load(p, 64), v128.load(p, 80)), v128.or(v128.load(p, 96), v128.load(p, 112)))),
            v128.or(v128.or(v128.or(v128.load(p, 128), v128.load(p, 144)), v128.or(v128.load(p, 160), v128.load(p, 176))),
              v128.or(v128.or(v128.load(p, 192), v128.load(p, 208)), v128.or(v128.load(p, 224), v128.load(p, 240)))),
          );
          if (v128.any_true(v128.and(o, high))) break;
          p += 256;
          prev = i8x16.splat(0);
        }
        if (end - p < 64) break;
      }
      const a = v128.load(p);
      const b = v128.load(p, 16);
      const c = v128.load(p, 32);
      const d = v128.load(p, 48);
      const any = v128.or(v128.or(a, b), v128.or(c, d));
      if (!v128.any_true(v128.and(any, high))) {
        // All ASCII: only an unfinished sequence from before can be wrong.
        if (v128.any_true(isIncomplete(prev))) break;
      } else {
        const err = v128.or(v128.or(checkBlock(a, prev), checkBlock(b, a)), v128.or(checkBlock(c, b), checkBlock(d, c)));
        if (v128.any_true(err)) break;
        leads += popcnt(leadBits(a) | (leadBits(b) << 16) | (leadBits(c) << 32) | (leadBits(d) << 48));
      }
      prev = d;
      p += 64;
    }
    multiChars += <u32>leads;
    if (end - p < 64) break;
    endCheckedRun(start, p, prev);
    checked = false;
    prevOk = allOk;
    // Groups with errors, through eventsOf, to the first group without one.
    while (end - p >= 64) {
      const a = v128.load(p);
      const b = v128.load(p, 16);
      const c = v128.load(p, 32);
      const d = v128.load(p, 48);
      const okA = eventsOf(a, prev, prevOk, p, 0xffff);
      let events = vectorEvents;
      const okB = eventsOf(b, a, okA, p + 16, 0xffff);
      events |= vectorEvents;
      const okC = eventsOf(c, b, okB, p + 32, 0xffff);
      events |= vectorEvents;
      const okD = eventsOf(d, c, okC, p + 48, 0xffff);
      events |= vectorEvents;
      prev = d;
      prevOk = okD;
      p += 64;
      if (events == 0) {
        // A clean group: back to the lookup algorithm, which counts characters by
        // their lead bytes; one still open here had its lead in this group.
        multiChars += openAfter(d, c, okD, okC);
        checked = true;
        break;
      }
    }
  }
  if (checked) {
    endCheckedRun(start, p, prev);
    prevOk = allOk;
  }
  while (p < end) {
    const v = v128.load(p); // may read past end into the padding: those lanes are masked
    const n = end - p;
    prevOk = eventsOf(v, prev, prevOk, p, n >= 16 ? 0xffff : (<u32>1 << <u32>n) - 1);
    prev = v;
    p += 16;
  }
  store<u32>(RESULTS, invalidSeqs);
  store<u32>(RESULTS, multiChars, 4);
  store<u32>(RESULTS, pendingAt(start, end), 8);
  return firstBad;
}

/**
 * Length of a valid but incomplete sequence ending at `end` (0..3), looking back
 * no further than `start`: the last lead byte, if only allowed bytes follow it.
 */
function pendingAt(start: usize, end: usize): u32 {
  for (let k: usize = 1; k <= 3 && end - k >= start; k++) {
    const b = <u32>load<u8>(end - k);
    if ((b & 0xc0) == 0x80) continue;
    if (b < 0xc2 || b > 0xf4) return 0;
    const need: usize = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    if (k >= need) return 0;
    if (k >= 2) {
      const b1 = <u32>load<u8>(end - k + 1);
      if ((b == 0xe0 && b1 < 0xa0) || (b == 0xed && b1 > 0x9f) || (b == 0xf0 && b1 < 0x90) || (b == 0xf4 && b1 > 0x8f)) return 0;
    }
    return <u32>k;
  }
  return 0;
}
