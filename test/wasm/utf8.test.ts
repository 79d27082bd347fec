import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { BLOCK_SIZE, CHUNK_SIZE, type Kernels } from '../../src-main/engine/kernels/kernels.mjs';
import * as ref from './reference.ts';
import { INVALID_PIECES, VALID_PIECES, anyBytes, chunksAt, concat, kernelFixture, logText, splits, textBytes } from './arbitraries.ts';
import { runs } from '../fixtures/effort.ts';

const { kernels, place } = kernelFixture();

interface StreamRun {
  /** finish() result */
  firstInvalid: number;
  /** counts() after finish() */
  invalid: number;
  multibyte: number;
  /** feed() result, pending() and counts() after each chunk */
  steps: { fed: number; result: number; pending: number; invalid: number; multibyte: number }[];
}

/** Feed `chunks` one by one through the input window of `k`, then finish. */
function validateStream(chunks: Uint8Array[], k: Kernels = kernels): StreamRun {
  const stream = k.utf8Stream();
  const steps: StreamRun['steps'] = [];
  for (const chunk of chunks) {
    k.input.set(chunk, 0);
    const result = stream.feed(chunk.length);
    steps.push({ fed: stream.position(), result, pending: stream.pending(), ...stream.counts() });
  }
  const firstInvalid = stream.finish();
  return { firstInvalid, ...stream.counts(), steps };
}

/** What each step must report: the reference on the prefix fed so far (a truncated tail is pending, not an error). */
function expectedSteps(bytes: Uint8Array, chunks: Uint8Array[]): StreamRun['steps'] {
  let fed = 0;
  return chunks.map((c) => {
    fed += c.length;
    const r = ref.utf8Counts(bytes.subarray(0, fed), false);
    return { fed, result: r.firstInvalid, pending: r.pending, invalid: r.invalid, multibyte: r.multibyte };
  });
}

/** The reference's final answer in a StreamRun's terms. */
function expectedEnd(bytes: Uint8Array): Pick<StreamRun, 'firstInvalid' | 'invalid' | 'multibyte'> {
  const r = ref.utf8Counts(bytes);
  return { firstInvalid: r.firstInvalid, invalid: r.invalid, multibyte: r.multibyte };
}

/** U+FFFD a WHATWG decoder (Node's TextDecoder) inserts into `bytes`, and the characters of 2-4 bytes it decodes. */
function decoderCounts(bytes: Uint8Array): { invalid: number; multibyte: number } {
  const inFile = Buffer.from(bytes).toString('latin1').split('\xef\xbf\xbd').length - 1; // U+FFFD written in the file
  let fffd = 0;
  let nonAscii = 0;
  for (const ch of new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes)) {
    if (ch === '\uFFFD') fffd++;
    if (ch.codePointAt(0)! >= 0x80) nonAscii++;
  }
  const invalid = fffd - inFile;
  return { invalid, multibyte: nonAscii - invalid };
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
        const run = validateStream([bytes]);
        expect(run.firstInvalid).toBe(ref.utf8FirstInvalid(bytes).firstInvalid);
        expect({ firstInvalid: run.firstInvalid, invalid: run.invalid, multibyte: run.multibyte }).toEqual(expectedEnd(bytes));
      }),
      runs(1000),
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
      runs(1000),
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
        expect({ firstInvalid: run.firstInvalid, invalid: run.invalid, multibyte: run.multibyte }).toEqual(expectedEnd(bytes));
      }),
      runs(1000),
    );
  });

  it('gives the same answers fed one byte at a time (every multi-byte sequence split everywhere)', () => {
    fc.assert(
      fc.property(textBytes(60), (bytes) => {
        const chunks = [...bytes].map((b) => Uint8Array.of(b));
        const run = validateStream(chunks);
        expect(run.steps).toEqual(expectedSteps(bytes, chunks));
        expect(run.firstInvalid).toBe(ref.utf8FirstInvalid(bytes).firstInvalid);
        expect({ firstInvalid: run.firstInvalid, invalid: run.invalid, multibyte: run.multibyte }).toEqual(expectedEnd(bytes));
      }),
      runs(300),
    );
  });

  it('finds every kind of invalid sequence at every offset around SIMD group edges (0..130)', () => {
    const valid = concat(VALID_PIECES.filter((p) => p.every((b) => b < 0x80 && b !== 0)));
    for (const bad of INVALID_PIECES) {
      for (let at = 0; at <= 130; at++) {
        for (const tail of [new Uint8Array(0), Uint8Array.of(0x41), concat([VALID_PIECES[10]!, valid])]) {
          const bytes = concat([new TextEncoder().encode('x'.repeat(at)), bad, tail, valid.subarray(0, 70)]);
          const expected = ref.utf8FirstInvalid(bytes).firstInvalid;
          const run = validateStream([bytes]);
          expect(run.firstInvalid).toBe(expected);
          expect(expected === -1).toBe(isUtf8(bytes));
          expect({ invalid: run.invalid, multibyte: run.multibyte }).toEqual(decoderCounts(bytes));
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
          const counts = ref.utf8Counts(bytes);
          // One feed, 64 KiB feeds, and feeds cut just before/after the boundary.
          for (const chunks of [
            [bytes],
            windowChunks(bytes, BLOCK_SIZE),
            ...[BLOCK_SIZE - back - 1, BLOCK_SIZE - back + 1, BLOCK_SIZE + 1].map((cut) => chunksAt(bytes, [0, cut, bytes.length])),
          ]) {
            const run = validateStream(chunks);
            expect(run.firstInvalid).toBe(expected);
            expect([run.invalid, run.multibyte]).toEqual([counts.invalid, counts.multibyte]);
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

  it('keeps the first error once found (sticky) while position and the counts go on', () => {
    const stream = kernels.utf8Stream();
    place(Uint8Array.of(0x61, 0xff, 0x62));
    expect(stream.feed(3)).toBe(1);
    place(Uint8Array.of(0xc0, 0x80, 0xc3, 0xa9, 0xe2));
    expect(stream.feed(5)).toBe(1);
    expect(stream.pending()).toBe(1);
    expect(stream.counts()).toEqual({ invalid: 3, multibyte: 1 });
    expect(stream.finish()).toBe(1);
    expect(stream.counts()).toEqual({ invalid: 4, multibyte: 1 }); // the cut-off E2 counts once, at finish
    expect(stream.finish()).toBe(1);
    expect(stream.counts()).toEqual({ invalid: 4, multibyte: 1 });
    expect(stream.position()).toBe(8);
    stream.reset();
    expect(stream.counts()).toEqual({ invalid: 0, multibyte: 0 });
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
        expect(sa.counts()).toEqual({ invalid: ref.utf8Counts(a).invalid, multibyte: ref.utf8Counts(a).multibyte });
        expect(sb.counts()).toEqual({ invalid: ref.utf8Counts(b).invalid, multibyte: ref.utf8Counts(b).multibyte });
      }),
      runs(300),
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

describe("UTF-8 counts (the evidence for a file's encoding)", () => {
  it('count ill-formed sequences as a WHATWG decoder replaces them, and valid multi-byte characters, on any bytes', () => {
    fc.assert(
      fc.property(anyBytes(2000), (bytes) => {
        const run = validateStream([bytes]);
        expect({ invalid: run.invalid, multibyte: run.multibyte }).toEqual(decoderCounts(bytes));
      }),
      runs(1000),
    );
  });

  it('agree with Python\'s UTF-8 decoder (errors="replace") on text, binary and mixes', () => {
    const samples = fc.sample(
      fc.oneof(anyBytes(3000), fc.uint8Array({ minLength: 100, maxLength: 5000, size: 'max' }), textBytes(600)),
      runs(200, { seed: 16 }),
    );
    const script = [
      'import sys, json',
      'out = []',
      'for h in json.load(sys.stdin):',
      '    b = bytes.fromhex(h)',
      '    t = b.decode("utf-8", "replace")',
      '    fffd = t.count("\\ufffd") - b.count(b"\\xef\\xbf\\xbd")',
      '    out.append([fffd, sum(1 for c in t if ord(c) >= 0x80) - fffd])',
      'print(json.dumps(out))',
    ].join('\n');
    const input = JSON.stringify(samples.map((b) => Buffer.from(b).toString('hex')));
    const python = JSON.parse(execFileSync('python3', ['-c', script], { input, encoding: 'utf8', maxBuffer: 1 << 26 })) as [number, number][];
    samples.forEach((bytes, i) => {
      const run = validateStream(windowChunks(bytes, 997));
      expect([run.invalid, run.multibyte]).toEqual(python[i]);
    });
  });

  it('resume SIMD after an error: a binary blob anywhere in megabytes of text is counted exactly', () => {
    const text = logText(CHUNK_SIZE * 3 + 5, 7, { multibyteEvery: 3 });
    let s = 99;
    const blob = Uint8Array.from({ length: 5000 }, () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 24);
    for (const at of [0, 63, 64, 1000, CHUNK_SIZE - 2500, CHUNK_SIZE * 2 + 17, text.length - blob.length]) {
      const bytes = text.slice();
      bytes.set(blob, at);
      const expected = ref.utf8Counts(bytes);
      const run = validateStream(windowChunks(bytes));
      expect({ firstInvalid: run.firstInvalid, invalid: run.invalid, multibyte: run.multibyte }).toEqual({
        firstInvalid: expected.firstInvalid,
        invalid: expected.invalid,
        multibyte: expected.multibyte,
      });
      expect({ invalid: run.invalid, multibyte: run.multibyte }).toEqual(decoderCounts(bytes));
    }
  });

  it('count sparse errors in long multi-byte text, each error at every offset of a 64-byte group', () => {
    const base = logText(4096, 3, { multibyteEvery: 2 });
    for (const bad of [Uint8Array.of(0xff), Uint8Array.of(0xe2, 0x82), Uint8Array.of(0x80, 0x80), Uint8Array.of(0xf0, 0x9f, 0x98)]) {
      for (let at = 1000; at < 1000 + 70; at++) {
        const bytes = base.slice();
        bytes.set(bad, at);
        bytes.set(bad, at + 1500);
        const run = validateStream([bytes]);
        expect({ invalid: run.invalid, multibyte: run.multibyte }).toEqual(decoderCounts(bytes));
      }
    }
  });
});
