import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CHUNK_SIZE } from '../../src-main/engine/kernels/kernels.mjs';
import * as ref from './reference.ts';
import { anyBytes, kernelFixture } from './arbitraries.ts';
import { runs } from '../fixtures/effort.ts';

const { kernels, place } = kernelFixture();

describe('binary sniff kernel', () => {
  it('counts NUL and control bytes like the scalar reference on any range', () => {
    fc.assert(
      fc.property(fc.oneof(anyBytes(900), fc.uint8Array({ minLength: 500, maxLength: 5000 })), fc.nat(), fc.nat(), (bytes, a, b) => {
        const input = place(bytes, 3);
        const s = 3 + (a % (bytes.length + 1));
        const e = 3 + (b % (bytes.length + 1));
        expect(kernels.sniff(Math.min(s, e), Math.max(s, e))).toEqual(ref.sniff(input, Math.min(s, e), Math.max(s, e)));
      }),
      runs(400),
    );
  });

  it('classifies every byte value: ESC, tab, LF, VT, FF and CR are text, 0x01-0x08 0x0E-0x1A 0x1C-0x1F 0x7F are control', () => {
    for (let b = 0; b < 256; b++) {
      place(new Uint8Array(100).fill(b)); // 100 bytes: SIMD groups and the scalar tail
      const expected = { nul: b === 0 ? 100 : 0, control: ref.isControlByte(b) ? 100 : 0 };
      expect(kernels.sniff(0, 100), `byte 0x${b.toString(16)}`).toEqual(expected);
    }
    expect(ref.isControlByte(0x1b) || ref.isControlByte(0x09) || ref.isControlByte(0x0d)).toBe(false);
  });

  it('counts a window full of NULs without counter overflow', () => {
    place(new Uint8Array(CHUNK_SIZE));
    expect(kernels.sniff(0, CHUNK_SIZE)).toEqual({ nul: CHUNK_SIZE, control: 0 });
  });
});
