/**
 * The JSON structure kernel (wasm/json.ts) against its one-byte-at-a-time
 * reference (reference.ts jsonScan): same stop offset and same carried state, for
 * JSON-like bytes (quotes, escapes, brackets, commas, multi-byte text) placed
 * anywhere in the window, scanned whole or cut into pieces at any byte (the state
 * carried across), with and without a comma to stop at.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CHUNK_SIZE } from '../../src-main/engine/kernels/kernels.mjs';
import * as ref from './reference.ts';
import { kernelFixture } from './arbitraries.ts';
import { runs } from '../fixtures/effort.ts';

const { kernels, place } = kernelFixture();

const PIECES = ['{', '}', '[', ']', ',', '"', '\\', '\\\\', '\\"', ':', ' ', 'a', '1', 'é', '€', '\n', 'true', '"x,y]"'].map((s) => Buffer.from(s));
const jsonish = fc.array(fc.constantFrom(...PIECES), { maxLength: 400 }).map((parts) => new Uint8Array(Buffer.concat(parts)));
const fresh = () => ({ depth: 0, inString: false, escaped: false, commas: 0 });

describe('jsonScan', () => {
  it('stops where the reference stops, with the same state, whole or in pieces', () => {
    fc.assert(
      fc.property(
        jsonish,
        fc.integer({ min: 0, max: 200 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 4 }),
        fc.integer({ min: 0, max: 6 }),
        (bytes, at0, cuts, stopAt) => {
          const at = Math.min(at0, CHUNK_SIZE - bytes.length);
          const input = place(bytes, at);
          const edges = [at, ...cuts.map((c) => at + Math.min(c, bytes.length)).sort((a, b) => a - b), at + bytes.length];
          const want = fresh();
          const wanted = ref.jsonScan(input, at, at + bytes.length, want, stopAt);
          const got = fresh();
          let answer: ReturnType<typeof kernels.jsonScan> = -1;
          for (let k = 0; k + 1 < edges.length && answer === -1; k++) answer = kernels.jsonScan(edges[k]!, edges[k + 1]!, got, stopAt);
          expect(answer).toEqual(wanted);
          if (wanted === -1) expect(got).toEqual(want);
          else expect(got.commas).toBe(want.commas);
        },
      ),
      runs(1500),
    );
  });

  it('finds the end of real JSON at the end of the window, and the n-th item of an array', () => {
    const doc = Buffer.from(JSON.stringify({ a: ['x,]"\\', { b: [1, 2, 3] }], 'k"}': 'é€' }) + '   ');
    const at = CHUNK_SIZE - doc.length;
    place(new Uint8Array(doc), at);
    expect(kernels.jsonScan(at, CHUNK_SIZE, fresh())).toBe(at + doc.length - 3);
    const arr = Buffer.from('[10, "a,b", [1, 2], {"c": ","}, 5]');
    place(new Uint8Array(arr));
    const s = fresh();
    expect(kernels.jsonScan(0, arr.length, s, 3)).toBe(arr.indexOf(', {'));
    expect(kernels.jsonScan(arr.indexOf(', {') + 1, arr.length, s, 4)).toBe(arr.indexOf(', 5'));
    expect(kernels.jsonScan(arr.indexOf(', 5') + 1, arr.length, s)).toBe(arr.length);
    expect(s.commas).toBe(4);
    place(new Uint8Array(Buffer.from('1]')));
    expect(kernels.jsonScan(0, 2, fresh())).toEqual({ unmatched: 1 });
  });
});
