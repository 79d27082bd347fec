/**
 * The literal line finder (wasm/find.ts findLines) against its one-line-at-a-time
 * reference (reference.ts findLines): same lines, same first hits, same stop,
 * for needles drawn from the text itself and from near misses, placed anywhere in
 * the window (up to its last byte, so the kernel's loads past the end are
 * exercised), with and without ASCII case folding, counting or capped.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CHUNK_SIZE, HITS_MAX, NEEDLE_MAX } from '../../src-main/engine/kernels/kernels.mjs';
import * as ref from './reference.ts';
import { kernelFixture } from './arbitraries.ts';

const { kernels, place } = kernelFixture();

const PIECES = [
  'ERROR',
  'error',
  'ErRoR',
  'ERRO',
  'RROR',
  'E',
  'R',
  'x',
  ' ',
  '\n',
  '\r\n',
  'é',
  'É',
  '€',
  'K',
  'k',
  '\u212a',
  'timeout',
  'TIMEOUT',
  'aaaa',
  'a',
].map((s) => Buffer.from(s));
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 300 }).map((parts) => new Uint8Array(Buffer.concat(parts)));
const NEEDLES = ['ERROR', 'error', 'E', 'R', 'RR', 'aa', 'aaaaa', 'timeout', 'é', '€', 'k', 'x ERROR', 'OR\r'];

function check(bytes: Uint8Array, at: number, needleText: string, fold: boolean, cap: number) {
  const needle = Buffer.from(fold ? needleText.toLowerCase() : needleText);
  const input = place(bytes, at);
  const want = ref.findLines(input, at, at + bytes.length, needle, fold, cap);
  const got = kernels.findLines(at, at + bytes.length, needle, fold, cap);
  expect({ found: got.found, stop: got.stop, hits: cap === 0 ? [] : [...kernels.hits.subarray(0, got.found)] }).toEqual(want);
}

describe('findLines', () => {
  it('finds the lines the reference finds, anywhere in the window, counting or capped, folded or not', () => {
    fc.assert(
      fc.property(
        text,
        fc.nat(),
        fc.boolean(),
        fc.constantFrom(...NEEDLES),
        fc.boolean(),
        fc.constantFrom(0, 1, 2, 7, HITS_MAX),
        (bytes, at0, atEnd, needle, fold, cap) => {
          const room = CHUNK_SIZE - bytes.length;
          check(bytes, atEnd ? room : at0 % (room + 1), needle, fold, cap);
        },
      ),
    );
  });

  it('finds a needle taken from the text at any place, of any length up to NEEDLE_MAX', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 9000 }), fc.nat(), fc.nat(), fc.boolean(), (bytes, from0, len0, fold) => {
        const from = from0 % bytes.length;
        const len = 1 + (len0 % Math.min(NEEDLE_MAX, bytes.length - from));
        const needle = Buffer.from(bytes.subarray(from, from + len));
        if (needle.includes(10)) return;
        const lowered = fold ? Buffer.from(needle.map((b) => (b >= 0x41 && b <= 0x5a ? b + 0x20 : b))) : needle;
        const input = place(bytes, CHUNK_SIZE - bytes.length);
        const at = CHUNK_SIZE - bytes.length;
        const want = ref.findLines(input, at, CHUNK_SIZE, lowered, fold, 0);
        expect(want.found).toBeGreaterThan(0);
        expect(kernels.findLines(at, CHUNK_SIZE, lowered, fold, 0)).toEqual({ found: want.found, stop: want.stop });
      }),
      { numRuns: 60 },
    );
  });

  it('counts every line of a full window and resumes after a cap where the reference stops', () => {
    const line = Buffer.from('2026-01-01 INFO a line with the word Timeout in it\n');
    const bytes = new Uint8Array(CHUNK_SIZE);
    for (let i = 0; i + line.length <= CHUNK_SIZE; i += line.length) bytes.set(line, i);
    const input = place(bytes, 0);
    const lines = Math.floor(CHUNK_SIZE / line.length);
    expect(kernels.findLines(0, CHUNK_SIZE, Buffer.from('timeout'), true, 0).found).toBe(lines);
    expect(kernels.findLines(0, CHUNK_SIZE, Buffer.from('timeout'), false, 0).found).toBe(0);
    let from = 0;
    let total = 0;
    while (from < CHUNK_SIZE) {
      const { found, stop } = kernels.findLines(from, CHUNK_SIZE, Buffer.from('Timeout'), false, HITS_MAX);
      const want = ref.findLines(input, from, CHUNK_SIZE, Buffer.from('Timeout'), false, HITS_MAX);
      expect({ found, stop }).toEqual({ found: want.found, stop: want.stop });
      total += found;
      if (found < HITS_MAX) break;
      from = stop;
    }
    expect(total).toBe(lines);
  });

  it('never finds a needle cut by the end of the range, though its last bytes follow in memory', () => {
    fc.assert(
      fc.property(text, fc.constantFrom(...NEEDLES), fc.nat(), fc.boolean(), (bytes, needleText, at0, fold) => {
        const needle = Buffer.from(needleText);
        const whole = Buffer.concat([bytes, Buffer.from('\n'), needle]);
        const at = at0 % (CHUNK_SIZE - whole.length + 1);
        const input = place(whole, at);
        for (const cut of [1, needle.length - 1]) {
          if (cut < 1 || cut >= needle.length + 1) continue;
          const end = at + whole.length - cut;
          const lowered = fold ? Buffer.from(needleText.toLowerCase()) : needle;
          const want = ref.findLines(input, at, end, lowered, fold, 0);
          expect(kernels.findLines(at, end, lowered, fold, 0)).toEqual({ found: want.found, stop: want.stop });
        }
      }),
    );
  });

  it('refuses a needle or a cap it cannot hold', () => {
    expect(() => kernels.findLines(0, 10, new Uint8Array(0), false, 0)).toThrow(RangeError);
    expect(() => kernels.findLines(0, 10, new Uint8Array(NEEDLE_MAX + 1), false, 0)).toThrow(RangeError);
    expect(() => kernels.findLines(0, 10, Buffer.from('a'), false, HITS_MAX + 1)).toThrow(RangeError);
    expect(() => kernels.findLines(0, CHUNK_SIZE + 1, Buffer.from('a'), false, 0)).toThrow(RangeError);
  });
});
