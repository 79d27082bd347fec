import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CHUNK_SIZE } from '../../src-main/engine/kernels/kernels.mjs';
import * as ref from './reference.ts';
import { anyBytes, kernelFixture, textBytes } from './arbitraries.ts';
import { runs } from '../fixtures/effort.ts';

const { kernels, place } = kernelFixture();

/** An input placed in the window with two positions in it, a <= b. */
const positioned = fc.oneof(anyBytes(700), textBytes(300)).chain((bytes) =>
  fc
    .record({
      at: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.constant(CHUNK_SIZE - bytes.length)),
      a: fc.integer({ min: 0, max: bytes.length }),
      b: fc.integer({ min: 0, max: bytes.length }),
    })
    .map(({ at, a, b }) => ({ bytes, at, lo: at + Math.min(a, b), hi: at + Math.max(a, b) })),
);

describe('boundary kernels', () => {
  it('snapBackToCodepoint returns the nearest code-point start at or before pos, at most 3 bytes back', () => {
    fc.assert(
      fc.property(positioned, ({ bytes, at, lo, hi }) => {
        const input = place(bytes, at);
        const got = kernels.snapBackToCodepoint(lo, hi);
        expect(got).toBe(ref.snapBackToCodepoint(input, lo, hi));
        expect(got).toBeGreaterThanOrEqual(Math.max(lo, hi - 3));
      }),
      runs(500),
    );
  });

  it('snapForwardToCodepoint returns the nearest code-point start at or after pos, at most 3 bytes ahead', () => {
    fc.assert(
      fc.property(positioned, ({ bytes, at, lo, hi }) => {
        const input = place(bytes, at);
        const got = kernels.snapForwardToCodepoint(lo, hi);
        expect(got).toBe(ref.snapForwardToCodepoint(input, lo, hi));
        expect(got).toBeLessThanOrEqual(Math.min(hi, lo + 3));
      }),
      runs(500),
    );
  });

  it('snapping never splits a valid multi-byte character', () => {
    const text = new TextEncoder().encode('aé€😀b'.repeat(20));
    const input = place(text);
    for (let pos = 0; pos <= text.length; pos++) {
      const back = kernels.snapBackToCodepoint(0, pos);
      const fwd = kernels.snapForwardToCodepoint(pos, text.length);
      expect(Buffer.from(input.subarray(0, back)).toString('utf8')).not.toContain('\uFFFD');
      expect(Buffer.from(input.subarray(fwd, text.length)).toString('utf8')).not.toContain('\uFFFD');
    }
  });

  it('lineStartBefore returns the offset after the last newline before pos, or -1', () => {
    fc.assert(
      fc.property(positioned, ({ bytes, at, lo, hi }) => {
        const input = place(bytes, at);
        expect(kernels.lineStartBefore(lo, hi)).toBe(ref.lineStartBefore(input, lo, hi));
      }),
      runs(500),
    );
  });

  it('lineEndAfter returns the offset of the first newline at or after pos, or -1', () => {
    fc.assert(
      fc.property(positioned, ({ bytes, at, lo, hi }) => {
        const input = place(bytes, at);
        expect(kernels.lineEndAfter(lo, hi)).toBe(ref.lineEndAfter(input, lo, hi));
      }),
      runs(500),
    );
  });

  it('line searches find the ends of a line longer than the window scan unroll (200 KiB line)', () => {
    const bytes = new Uint8Array(200_003).fill(0x61);
    bytes[5] = 10;
    bytes[199_990] = 10;
    place(bytes);
    expect(kernels.lineStartBefore(0, 199_990)).toBe(6);
    expect(kernels.lineEndAfter(6, bytes.length)).toBe(199_990);
    expect(kernels.lineStartBefore(6, 199_990)).toBe(-1);
    expect(kernels.lineEndAfter(199_991, bytes.length)).toBe(-1);
  });
});
