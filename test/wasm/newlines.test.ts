import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BLOCK_SIZE, CHUNK_SIZE } from '../../src-main/engine/kernels/kernels.mjs';
import * as ref from './reference.ts';
import { anyBytes, kernelFixture, logText } from './arbitraries.ts';
import { runs } from '../fixtures/effort.ts';

const { kernels, place } = kernelFixture();

/** Bytes plus a placement in the window (sometimes flush against its end). */
const placed = anyBytes(700).chain((bytes) =>
  fc.record({
    bytes: fc.constant(bytes),
    at: fc.oneof(fc.integer({ min: 0, max: 64 }), fc.constant(CHUNK_SIZE - bytes.length)),
  }),
);

/** A placed input with a sub-range [start, end) of it. */
const placedRange = placed.chain(({ bytes, at }) =>
  fc
    .tuple(fc.integer({ min: 0, max: bytes.length }), fc.integer({ min: 0, max: bytes.length }))
    .map(([a, b]) => ({ bytes, at, start: at + Math.min(a, b), end: at + Math.max(a, b) })),
);

describe('newline kernels', () => {
  it('countNewlines equals the scalar count on any range', () => {
    fc.assert(
      fc.property(placedRange, ({ bytes, at, start, end }) => {
        const input = place(bytes, at);
        expect(kernels.countNewlines(start, end)).toBe(ref.countNewlines(input, start, end));
      }),
      runs(400),
    );
  });

  it('countNewlinesPerBlock writes one count per 64 KiB block (last one short) and returns their sum', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: CHUNK_SIZE }), fc.integer(), fc.integer({ min: 0, max: 3 }), (len, seed, outOffset) => {
        const input = place(logText(len, seed, { crlf: seed % 2 === 0 }));
        const out = new Uint32Array(outOffset + 4).fill(0xdead);
        const total = kernels.countNewlinesPerBlock(len, out, outOffset);
        const expected = ref.countNewlinesPerBlock(input, len, BLOCK_SIZE);
        expect([...out.subarray(outOffset, outOffset + expected.length)]).toEqual(expected);
        expect(out[outOffset + expected.length] ?? 0xdead).toBe(0xdead); // nothing past the last block
        expect(total).toBe(expected.reduce((a, b) => a + b, 0));
      }),
      runs(40),
    );
  });

  it('scanLines gives the per-block counts, CR and CRLF of the reference in one call, with and without a CR before the window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: CHUNK_SIZE }),
        fc.integer(),
        fc.boolean(),
        fc.constantFrom('lf', 'crlf', 'lone-cr-at-end', 'lf-at-start'),
        (len, seed, prevIsCR, shape) => {
          const bytes = logText(len, seed, { crlf: shape === 'crlf' });
          if (shape === 'lone-cr-at-end' && len > 0) bytes[len - 1] = 13;
          if (shape === 'lf-at-start' && len > 0) bytes[0] = 10;
          const input = place(bytes);
          const out = new Uint32Array(4).fill(0xdead);
          const r = kernels.scanLines(len, out, 0, prevIsCR);
          const blocks = ref.countNewlinesPerBlock(input, len, BLOCK_SIZE);
          expect([...out.subarray(0, blocks.length)]).toEqual(blocks);
          expect(r.newlines).toBe(blocks.reduce((a, b) => a + b, 0));
          expect({ cr: r.cr, crlf: r.crlf }).toEqual(ref.countNewlineStyle(input, 0, len, prevIsCR));
        },
      ),
      runs(60),
    );
  });

  it('countNewlinesPerBlock counts exactly at block edges (lengths 64 KiB ± a few, newline at every edge offset)', () => {
    for (const len of [
      0,
      1,
      15,
      16,
      63,
      64,
      65,
      BLOCK_SIZE - 3,
      BLOCK_SIZE - 1,
      BLOCK_SIZE,
      BLOCK_SIZE + 1,
      BLOCK_SIZE + 3,
      2 * BLOCK_SIZE + 2,
      CHUNK_SIZE - 1,
      CHUNK_SIZE,
    ]) {
      for (const edgeOffset of [-2, -1, 0, 1]) {
        const bytes = logText(len, len + edgeOffset);
        const edge = BLOCK_SIZE + edgeOffset;
        if (edge >= 0 && edge < len) bytes[edge] = 10;
        const input = place(bytes);
        const out = new Uint32Array(4);
        const total = kernels.countNewlinesPerBlock(len, out, 0);
        const expected = ref.countNewlinesPerBlock(input, len, BLOCK_SIZE);
        expect([...out.subarray(0, expected.length)]).toEqual(expected);
        expect(total).toBe(ref.countNewlines(input, 0, len));
      }
    }
  });

  it('countNewlines counts a window that is all newlines (per-lane counters never overflow)', () => {
    place(new Uint8Array(CHUNK_SIZE).fill(10));
    expect(kernels.countNewlines(0, CHUNK_SIZE)).toBe(CHUNK_SIZE);
    const out = new Uint32Array(4);
    expect(kernels.countNewlinesPerBlock(CHUNK_SIZE, out, 0)).toBe(CHUNK_SIZE);
    expect([...out]).toEqual([BLOCK_SIZE, BLOCK_SIZE, BLOCK_SIZE, BLOCK_SIZE]);
  });

  it('findNthNewline returns the offset of the n-th newline in the range, or -1 past the last', () => {
    fc.assert(
      fc.property(placedRange, fc.integer({ min: 0, max: 300 }), ({ bytes, at, start, end }, n) => {
        const input = place(bytes, at);
        expect(kernels.findNthNewline(start, end, n)).toBe(n === 0 ? -1 : ref.findNthNewline(input, start, end, n));
      }),
      runs(400),
    );
  });

  it('findNthNewline finds every newline of a long log in order', () => {
    const bytes = logText(200_000, 7);
    const input = place(bytes);
    const total = ref.countNewlines(input, 0, bytes.length);
    let prev = -1;
    for (let n = 1; n <= total; n++) {
      const off = kernels.findNthNewline(0, bytes.length, n);
      expect(input[off]).toBe(10);
      expect(ref.countNewlines(input, prev + 1, off)).toBe(0);
      prev = off;
    }
    expect(kernels.findNthNewline(0, bytes.length, total + 1)).toBe(-1);
  });

  it('countNewlineStyle counts CR bytes and CRLF pairs whose LF is in the range', () => {
    fc.assert(
      fc.property(placedRange, fc.boolean(), ({ bytes, at, start, end }, prevIsCR) => {
        const input = place(bytes, at);
        expect(kernels.countNewlineStyle(start, end, prevIsCR)).toEqual(ref.countNewlineStyle(input, start, end, prevIsCR));
      }),
      runs(400),
    );
  });

  it('countNewlineStyle over split ranges, carrying prevIsCR, equals one pass over the whole', () => {
    const crlfHeavy = fc
      .array(fc.constantFrom('\r', '\n', '\r\n', 'a', '\r\r\n', 'é'), { maxLength: 400 })
      .map((parts) => new TextEncoder().encode(parts.join('')));
    fc.assert(
      fc.property(crlfHeavy, fc.array(fc.nat(), { maxLength: 10 }), (bytes, rawCuts) => {
        const input = place(bytes);
        const cuts = [...new Set([0, ...rawCuts.map((c) => c % (bytes.length + 1)), bytes.length])].sort((a, b) => a - b);
        let cr = 0;
        let crlf = 0;
        for (let i = 1; i < cuts.length; i++) {
          const s = cuts[i - 1]!;
          const r = kernels.countNewlineStyle(s, cuts[i]!, s > 0 && input[s - 1] === 13);
          cr += r.cr;
          crlf += r.crlf;
        }
        expect({ cr, crlf }).toEqual(ref.countNewlineStyle(input, 0, bytes.length, false));
      }),
      runs(300),
    );
  });

  it('empty ranges count nothing and find nothing', () => {
    place(new Uint8Array(0));
    expect(kernels.countNewlines(5, 5)).toBe(0);
    expect(kernels.findNthNewline(5, 5, 1)).toBe(-1);
    expect(kernels.countNewlineStyle(5, 5, true)).toEqual({ cr: 0, crlf: 0 });
    expect(kernels.countNewlinesPerBlock(0, new Uint32Array(0), 0)).toBe(0);
  });
});
