import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { BLOCK_SIZE, CHUNK_SIZE, type Kernels } from '../../src-main/engine/kernels/kernels.mjs';
import * as ref from './reference.ts';
import { INVALID_PIECES, VALID_PIECES, anyBytes, chunksAt, concat, kernelFixture, logText, splits, textBytes } from './arbitraries.ts';

const { kernels, place } = kernelFixture();

interface StreamRun {
  /** finish() result */
  firstInvalid: number;
  /** feed() result and pending() after each chunk */
  steps: { fed: number; result: number; pending: number }[];
}

/** Feed `chunks` one by one through the input window of `k`, then finish. */
function validateStream(chunks: Uint8Array[], k: Kernels = kernels): StreamRun {
  const stream = k.utf8Stream();
  const steps: StreamRun['steps'] = [];
  for (const chunk of chunks) {
    k.input.set(chunk, 0);
    const result = stream.feed(chunk.length);
    steps.push({ fed: stream.position(), result, pending: stream.pending() });
  }
  return { firstInvalid: stream.finish(), steps };
}

/** What each step must report: the reference on the prefix fed so far (a truncated tail is pending, not an error). */
function expectedSteps(bytes: Uint8Array, chunks: Uint8Array[]): StreamRun['steps'] {
  let fed = 0;
  return chunks.map((c) => {
    fed += c.length;
    const r = ref.utf8FirstInvalid(bytes.subarray(0, fed), false);
    return { fed, result: r.firstInvalid, pending: r.pending };
  });
}

/** Split into chunks no longer than the input window. */
function windowChunks(bytes: Uint8Array, size: number = CHUNK_SIZE): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let o = 0; o < bytes.length; o += size) out.push(bytes.subarray(o, o + size));
  return out.length ? out : [bytes];
}

describe('streaming UTF-8 validator', () => {
  it('reports the same first invalid offset as the scalar reference on arbitrary bytes and text', () => {
    fc.assert(
      fc.property(anyBytes(800), (bytes) => {
        expect(validateStream([bytes]).firstInvalid).toBe(ref.utf8FirstInvalid(bytes).firstInvalid);
      }),
      { numRuns: 1000 },
    );
  });

  it('agrees with Node isUtf8 (simdutf), and the valid prefix it reports is valid UTF-8', () => {
    fc.assert(
      fc.property(anyBytes(800), (bytes) => {
        const off = validateStream([bytes]).firstInvalid;
        expect(off === -1).toBe(isUtf8(bytes));
        if (off >= 0) {
          expect(isUtf8(bytes.subarray(0, off))).toBe(true);
          expect(isUtf8(bytes.subarray(0, off + 4))).toBe(false); // the error is right there
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('gives the same answers for any chunk split, after every feed and at finish', () => {
    const split = textBytes(150).chain((bytes) => splits(bytes.length).map((cuts) => ({ bytes, cuts })));
    fc.assert(
      fc.property(split, ({ bytes, cuts }) => {
        const chunks = chunksAt(bytes, cuts);
        const run = validateStream(chunks);
        expect(run.steps).toEqual(expectedSteps(bytes, chunks));
        expect(run.firstInvalid).toBe(ref.utf8FirstInvalid(bytes).firstInvalid);
      }),
      { numRuns: 1000 },
    );
  });

  it('gives the same answers fed one byte at a time (every multi-byte sequence split everywhere)', () => {
    fc.assert(
      fc.property(textBytes(60), (bytes) => {
        const chunks = [...bytes].map((b) => Uint8Array.of(b));
        const run = validateStream(chunks);
        expect(run.steps).toEqual(expectedSteps(bytes, chunks));
        expect(run.firstInvalid).toBe(ref.utf8FirstInvalid(bytes).firstInvalid);
      }),
      { numRuns: 300 },
    );
  });

  it('finds every kind of invalid sequence at every offset around SIMD group edges (0..130)', () => {
    const valid = concat(VALID_PIECES.filter((p) => p.every((b) => b < 0x80 && b !== 0)));
    for (const bad of INVALID_PIECES) {
      for (let at = 0; at <= 130; at++) {
        for (const tail of [new Uint8Array(0), Uint8Array.of(0x41), concat([VALID_PIECES[10]!, valid])]) {
          const bytes = concat([new TextEncoder().encode('x'.repeat(at)), bad, tail, valid.subarray(0, 70)]);
          const expected = ref.utf8FirstInvalid(bytes).firstInvalid;
          expect(validateStream([bytes]).firstInvalid).toBe(expected);
          expect(expected === -1).toBe(isUtf8(bytes));
        }
      }
    }
  });

  it('is unaffected by 64 KiB boundaries: an invalid or multi-byte sequence straddling the boundary at offsets 0..3', () => {
    const sequences = [...INVALID_PIECES, ...VALID_PIECES.filter((p) => p.length > 1)];
    for (const size of [BLOCK_SIZE - 2, BLOCK_SIZE, BLOCK_SIZE + 3, 2 * BLOCK_SIZE + 1]) {
      const base = logText(size, size);
      for (const seq of sequences) {
        for (let back = 0; back <= 3; back++) {
          const at = BLOCK_SIZE - back;
          if (at >= size) continue;
          const bytes = base.slice();
          bytes.set(seq.subarray(0, Math.min(seq.length, size - at)), at); // cut short by the end of input
          const expected = ref.utf8FirstInvalid(bytes).firstInvalid;
          expect(expected === -1).toBe(isUtf8(bytes));
          // One feed, 64 KiB feeds, and feeds cut just before/after the boundary.
          expect(validateStream([bytes]).firstInvalid).toBe(expected);
          expect(validateStream(windowChunks(bytes, BLOCK_SIZE)).firstInvalid).toBe(expected);
          for (const cut of [BLOCK_SIZE - back - 1, BLOCK_SIZE - back + 1, BLOCK_SIZE + 1]) {
            expect(validateStream(chunksAt(bytes, [0, cut, bytes.length])).firstInvalid).toBe(expected);
          }
        }
      }
    }
  });

  it('reports a truncated final sequence at finish(), and pending() counts its bytes before that', () => {
    for (const [text, pending] of [
      [[0xc3], 1],
      [[0xe2, 0x82], 2],
      [[0xf0, 0x9f, 0x98], 3],
      [[0xe2, 0x82, 0xac], 0],
    ] as const) {
      const bytes = concat([new TextEncoder().encode('abc\n'.repeat(30)), Uint8Array.from(text)]);
      const stream = kernels.utf8Stream();
      kernels.input.set(bytes);
      expect(stream.feed(bytes.length)).toBe(-1);
      expect(stream.pending()).toBe(pending);
      expect(stream.finish()).toBe(pending ? bytes.length - pending : -1);
      expect(stream.position()).toBe(bytes.length);
    }
  });

  it('keeps the first error once found (sticky) while position keeps counting', () => {
    const stream = kernels.utf8Stream();
    place(Uint8Array.of(0x61, 0xff, 0x62));
    expect(stream.feed(3)).toBe(1);
    place(Uint8Array.of(0xc0, 0x80));
    expect(stream.feed(2)).toBe(1);
    expect(stream.finish()).toBe(1);
    expect(stream.position()).toBe(5);
    stream.reset();
    place(new TextEncoder().encode('ok'));
    expect(stream.feed(2)).toBe(-1);
    expect(stream.finish()).toBe(-1);
    expect(stream.position()).toBe(2);
  });

  it('interleaved streams on one instance do not disturb each other', () => {
    const pair = fc.tuple(textBytes(80), textBytes(80)).chain(([a, b]) => fc.tuple(splits(a.length), splits(b.length)).map(([ca, cb]) => ({ a, b, ca, cb })));
    fc.assert(
      fc.property(pair, ({ a, b, ca, cb }) => {
        const sa = kernels.utf8Stream();
        const sb = kernels.utf8Stream();
        const chunksA = chunksAt(a, ca);
        const chunksB = chunksAt(b, cb);
        for (let i = 0; i < Math.max(chunksA.length, chunksB.length); i++) {
          for (const [s, chunks] of [
            [sa, chunksA],
            [sb, chunksB],
          ] as const) {
            const c = chunks[i];
            if (!c) continue;
            place(c); // also overwrites the window around the other stream's bytes
            s.feed(c.length);
          }
        }
        expect(sa.finish()).toBe(ref.utf8FirstInvalid(a).firstInvalid);
        expect(sb.finish()).toBe(ref.utf8FirstInvalid(b).firstInvalid);
      }),
      { numRuns: 300 },
    );
  });

  it('accepts a few MiB of log-like multi-byte text in 256 KiB feeds and finds a late error exactly', () => {
    const bytes = logText(3 * 1024 * 1024 + 17, 99, { multibyteEvery: 5 });
    expect(validateStream(windowChunks(bytes)).firstInvalid).toBe(-1);
    const at = 2 * CHUNK_SIZE - 1; // a 3-byte sequence cut by the window edge, then broken
    bytes.set([0xe2, 0x82, 0x41], at);
    expect(validateStream(windowChunks(bytes)).firstInvalid).toBe(ref.utf8FirstInvalid(bytes).firstInvalid);
    expect(ref.utf8FirstInvalid(bytes).firstInvalid).toBe(at);
  });

  it('treats empty input and empty feeds as valid', () => {
    expect(validateStream([new Uint8Array(0)]).firstInvalid).toBe(-1);
    expect(validateStream([Uint8Array.of(0xe2), new Uint8Array(0), Uint8Array.of(0x82, 0xac)]).firstInvalid).toBe(-1);
  });
});
