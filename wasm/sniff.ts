/**
 * Binary sniffing counts: NUL bytes and control bytes. Control means 0x01-0x08,
 * 0x0E-0x1A, 0x1C-0x1F and 0x7F: \t \n \v \f \r are text, and ESC (0x1B) is
 * text too because logs carry ANSI colour sequences.
 */
import { INPUT, RESULTS, FLUSH_GROUPS, sumLanes, widenCounts } from './layout';

// Swizzle tables: -1 where the byte is a control byte. Indices >= 16 give 0.
// LOW covers 0x00-0x0F (NUL and \t..\r excluded), HIGH covers 0x10-0x1F (ESC excluded).
const CONTROL_LOW = i8x16(0, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, -1, -1);
const CONTROL_HIGH = i8x16(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, -1, -1, -1, -1);

// @ts-ignore: decorator
@inline function controlMask(v: v128): v128 {
  const low = i8x16.swizzle(CONTROL_LOW, v);
  // v - 16 wraps bytes below 0x10 to >= 0xF0, so only 0x10-0x1F index HIGH.
  const high = i8x16.swizzle(CONTROL_HIGH, i8x16.sub(v, i8x16.splat(16)));
  return v128.or(v128.or(low, high), i8x16.eq(v, i8x16.splat(0x7f)));
}

// @ts-ignore: decorator
@inline function isControl(b: u32): bool {
  return (b >= 0x01 && b <= 0x08) || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f) || b == 0x7f;
}

/** NUL and control counts in input[start..end); writes [nul, control] to RESULTS, returns nul. */
export function sniff(start: usize, end: usize): u32 {
  let p = INPUT + start;
  const e = INPUT + end;
  const zero = i8x16.splat(0);
  let nulTotal = i32x4.splat(0);
  let ctlTotal = i32x4.splat(0);
  while (e - p >= 64) {
    let groups = (e - p) >> 6;
    if (groups > FLUSH_GROUPS) groups = FLUSH_GROUPS;
    const stop = p + (groups << 6);
    let nulAcc = i8x16.splat(0);
    let ctlAcc = i8x16.splat(0);
    do {
      const a = v128.load(p);
      const b = v128.load(p, 16);
      const c = v128.load(p, 32);
      const d = v128.load(p, 48);
      nulAcc = i8x16.sub(nulAcc, i8x16.add(i8x16.add(i8x16.eq(a, zero), i8x16.eq(b, zero)), i8x16.add(i8x16.eq(c, zero), i8x16.eq(d, zero))));
      ctlAcc = i8x16.sub(ctlAcc, i8x16.add(i8x16.add(controlMask(a), controlMask(b)), i8x16.add(controlMask(c), controlMask(d))));
      p += 64;
    } while (p < stop);
    nulTotal = i32x4.add(nulTotal, widenCounts(nulAcc));
    ctlTotal = i32x4.add(ctlTotal, widenCounts(ctlAcc));
  }
  let nul = sumLanes(nulTotal);
  let control = sumLanes(ctlTotal);
  while (e - p >= 16) {
    const v = v128.load(p);
    nul += <u32>popcnt(i8x16.bitmask(i8x16.eq(v, zero)));
    control += <u32>popcnt(i8x16.bitmask(controlMask(v)));
    p += 16;
  }
  while (p < e) {
    const b = <u32>load<u8>(p);
    nul += b == 0 ? 1 : 0;
    control += isControl(b) ? 1 : 0;
    p++;
  }
  store<u32>(RESULTS, nul);
  store<u32>(RESULTS, control, 4);
  return nul;
}
