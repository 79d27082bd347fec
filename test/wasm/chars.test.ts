import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CHUNK_SIZE } from '../../src-main/engine/kernels/kernels.mjs';
import * as ref from './reference.ts';
import { anyBytes, kernelFixture, textBytes, validTextBytes } from './arbitraries.ts';
import { runs } from '../fixtures/effort.ts';

const { kernels, place } = kernelFixture();

/** An input placed in the window with a range [lo, hi) inside it. */
const ranged = fc.oneof(anyBytes(1500), textBytes(400), validTextBytes(400)).chain((bytes) =>
  fc
    .record({
      at: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.constant(CHUNK_SIZE - bytes.length)),
      a: fc.integer({ min: 0, max: bytes.length }),
      b: fc.integer({ min: 0, max: bytes.length }),
    })
    .map(({ at, a, b }) => ({ bytes, at, lo: at + Math.min(a, b), hi: at + Math.max(a, b) })),
);

describe('character kernels', () => {
  it('countChars counts the bytes that start a character, like the scalar reference, and code points of valid UTF-8', () => {
    fc.assert(
      fc.property(ranged, ({ bytes, at, lo, hi }) => {
        const input = place(bytes, at);
        expect(kernels.countChars(lo, hi)).toBe(ref.countChars(input, lo, hi));
      }),
      runs(800),
    );
    fc.assert(
      fc.property(validTextBytes(400), (bytes) => {
        place(bytes);
        expect(kernels.countChars(0, bytes.length)).toBe([...new TextDecoder().decode(bytes)].length);
      }),
      runs(300),
    );
  });

  it('countLeads counts lead bytes like the scalar reference, and the multi-byte characters of valid UTF-8', () => {
    fc.assert(
      fc.property(ranged, ({ bytes, at, lo, hi }) => {
        const input = place(bytes, at);
        expect(kernels.countLeads(lo, hi)).toBe(ref.countLeads(input, lo, hi));
      }),
      runs(800),
    );
    fc.assert(
      fc.property(validTextBytes(400), (bytes) => {
        place(bytes);
        expect(kernels.countLeads(0, bytes.length)).toBe([...new TextDecoder().decode(bytes)].filter((c) => c.codePointAt(0)! >= 0x80).length);
      }),
      runs(300),
    );
  });

  it('findNthChar returns the offset of the n-th character start in the range, or -1 past the last', () => {
    fc.assert(
      fc.property(ranged, fc.integer({ min: 0, max: 1600 }), ({ bytes, at, lo, hi }, n) => {
        const input = place(bytes, at);
        expect(kernels.findNthChar(lo, hi, n)).toBe(n === 0 ? -1 : ref.findNthChar(input, lo, hi, n));
      }),
      runs(800),
    );
  });
});
