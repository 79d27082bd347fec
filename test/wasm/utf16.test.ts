import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BLOCK_SIZE, CHUNK_SIZE } from '../../src-main/engine/kernels/kernels.mjs';
import * as ref from './reference.ts';
import { chunksAt, kernelFixture } from './arbitraries.ts';
import { runs } from '../fixtures/effort.ts';

const { kernels, place } = kernelFixture();

/**
 * Units that stress the kernels: LF/CR, units whose low or high byte is 0x0A or 0x0D
 * (U+010A, U+0A0A, U+0D0A, U+0A0D), ASCII, CJK, surrogate pairs and lone surrogates.
 */
const UNITS = [0x0a, 0x0d, 0x10a, 0xa00, 0xa0a, 0xd0a, 0xa0d, 0x41, 0x20, 0x4e2d, 0xd83d, 0xde00, 0xdbff, 0xdc00, 0xfeff, 0xfffd, 0];
const unitsArb = (max: number) =>
  fc.array(fc.oneof({ arbitrary: fc.constantFrom(...UNITS), weight: 6 }, { arbitrary: fc.integer({ min: 0, max: 0xffff }), weight: 1 }), {
    maxLength: max,
    size: 'max',
  });

function encode(units: number[], be: boolean): Uint8Array {
  const out = new Uint8Array(units.length * 2);
  units.forEach((u, i) => {
    out[2 * i + (be ? 0 : 1)] = u >> 8;
    out[2 * i + (be ? 1 : 0)] = u & 0xff;
  });
  return out;
}

/** Units placed at an even offset, with an even sub-range. */
const placedUnits = fc.tuple(unitsArb(500), fc.boolean(), fc.integer({ min: 0, max: 32 })).chain(([units, be, half]) =>
  fc.tuple(fc.integer({ min: 0, max: units.length }), fc.integer({ min: 0, max: units.length })).map(([a, b]) => {
    const at = 2 * half;
    return { bytes: encode(units, be), be, at, start: at + 2 * Math.min(a, b), end: at + 2 * Math.max(a, b) };
  }),
);

describe('UTF-16 newline kernels', () => {
  it('countNewlines16 counts LF units, never a 0x0A byte inside another unit', () => {
    fc.assert(
      fc.property(placedUnits, ({ bytes, be, at, start, end }) => {
        const input = place(bytes, at);
        expect(kernels.countNewlines16(start, end, be)).toBe(ref.countUnits16(input, start, end, 10, be));
      }),
      runs(400),
    );
  });

  it('findNthNewline16 returns the first byte of the n-th LF unit, or -1 past the last', () => {
    fc.assert(
      fc.property(placedUnits, fc.integer({ min: 0, max: 200 }), ({ bytes, be, at, start, end }, n) => {
        const input = place(bytes, at);
        expect(kernels.findNthNewline16(start, end, n, be)).toBe(n === 0 ? -1 : ref.findNthNewline16(input, start, end, n, be));
      }),
      runs(400),
    );
  });

  it('countNewlineStyle16 counts CR units and CR LF pairs, with and without a CR before the range', () => {
    fc.assert(
      fc.property(placedUnits, fc.boolean(), ({ bytes, be, at, start, end }, prevIsCR) => {
        const input = place(bytes, at);
        expect(kernels.countNewlineStyle16(start, end, prevIsCR, be)).toEqual(ref.countNewlineStyle16(input, start, end, prevIsCR, be));
      }),
      runs(400),
    );
  });

  it('scanLines16 gives per-block LF counts, CR and CRLF of whole windows (block edges, odd last byte)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: CHUNK_SIZE }), fc.integer(), fc.boolean(), fc.boolean(), (len, seed, be, prevIsCR) => {
        const units: number[] = [];
        let s = seed >>> 0 || 1;
        for (let i = 0; i < Math.ceil(len / 2); i++) {
          s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
          units.push(UNITS[s % UNITS.length]!);
        }
        const input = place(encode(units, be).subarray(0, len));
        const out = new Uint32Array(4).fill(0xdead);
        const r = kernels.scanLines16(len, out, 0, prevIsCR, be);
        const even = len - (len % 2);
        const blocks = ref.countNewlinesPerBlock16(input, even, BLOCK_SIZE, be);
        if (len % 2 === 1 && even % BLOCK_SIZE === 0 && len > 0) blocks.push(0);
        expect([...out.subarray(0, blocks.length)]).toEqual(blocks);
        expect(r.newlines).toBe(blocks.reduce((a, b) => a + b, 0));
        expect({ cr: r.cr, crlf: r.crlf }).toEqual(ref.countNewlineStyle16(input, 0, even, prevIsCR, be));
      }),
      runs(30),
    );
  });

  it('counts a window that is all LF units (16-bit lane counters never overflow)', () => {
    for (const be of [false, true]) {
      place(encode(new Array<number>(CHUNK_SIZE / 2).fill(10), be));
      const out = new Uint32Array(4);
      expect(kernels.scanLines16(CHUNK_SIZE, out, 0, false, be).newlines).toBe(CHUNK_SIZE / 2);
      expect([...out]).toEqual(new Array(4).fill(BLOCK_SIZE / 2));
      expect(kernels.findNthNewline16(0, CHUNK_SIZE, CHUNK_SIZE / 2, be)).toBe(CHUNK_SIZE - 2);
    }
  });
});

describe('UTF-16 validator', () => {
  it('utf16Stream finds the first lone surrogate or truncated unit, however the bytes are fed', () => {
    fc.assert(
      fc.property(unitsArb(300), fc.boolean(), fc.boolean(), fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 8 }), (units, be, oddTail, rawCuts) => {
        let bytes = encode(units, be);
        if (oddTail) bytes = Uint8Array.from([...bytes, 0x41]);
        // Every feed but the last has an even length.
        const cuts = [...new Set([0, ...rawCuts.map((c) => 2 * c).filter((c) => c < bytes.length), bytes.length])].sort((a, b) => a - b);
        const stream = kernels.utf16Stream(be);
        let bad = -1;
        for (const chunk of chunksAt(bytes, cuts)) {
          kernels.input.set(chunk);
          bad = stream.feed(chunk.length);
        }
        if (bad < 0) bad = stream.finish();
        expect(bad).toBe(ref.utf16FirstInvalid(bytes, be));
      }),
      runs(500),
    );
  });

  it('accepts a pair split across two feeds and refuses a high surrogate at the very end', () => {
    const s = kernels.utf16Stream(false);
    kernels.input.set([0x3d, 0xd8]);
    expect(s.feed(2)).toBe(-1);
    expect(s.pending()).toBe(2);
    kernels.input.set([0x00, 0xde, 0x41, 0x00]);
    expect(s.feed(4)).toBe(-1);
    expect(s.finish()).toBe(-1);
    s.reset();
    kernels.input.set([0x41, 0x00, 0x3d, 0xd8]);
    expect(s.feed(4)).toBe(-1);
    expect(s.finish()).toBe(2);
  });
});
