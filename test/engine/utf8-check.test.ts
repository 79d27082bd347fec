/**
 * The index's UTF-8 check has two paths (index-worker.mjs, validateChunk): the
 * platform's validator (buffer.isUtf8, simdutf) with countLeads for text dense in
 * multi-byte characters, and the WASM validator, which places and counts errors.
 * Both must give the same scan: first invalid offset, ill-formed and multi-byte
 * counts, pending bytes. Inputs span several 256 KiB chunks so that sequences and
 * errors fall across chunk boundaries, and ranges start and end mid-file like the
 * pieces of a parallel build.
 */
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { BLOCK_SIZE, CHUNK_SIZE, loadKernels } from '../../src-main/engine/kernels/kernels.mjs';
import { scanFileRange } from '../../src-main/engine/index/index-worker.mjs';
import { INVALID_PIECES, VALID_PIECES, concat, logText } from '../wasm/arbitraries.ts';
import { tempDir } from '../fixtures/generate.ts';
import { runs } from '../fixtures/effort.ts';

const tmp = tempDir('folio-utf8-check-');
afterAll(() => tmp.cleanup());
const kernels = loadKernels();
const enc = new TextEncoder();

/** ~CHUNK_SIZE * 1.5..3 bytes: dense multi-byte text with a few pieces (valid or not) placed at random offsets, chunk edges included. */
const bigText = fc
  .record({
    base: fc.constantFrom('日本語のテキスト。', 'Привет, мир! ', 'naïve café ', 'emoji 😀 ', 'ascii log line\n'),
    size: fc.integer({ min: CHUNK_SIZE + CHUNK_SIZE / 2, max: 3 * CHUNK_SIZE }),
    inserts: fc.array(
      fc.record({
        at: fc.oneof(
          fc.integer({ min: 0, max: 3 * CHUNK_SIZE }),
          fc.constantFrom(CHUNK_SIZE - 1, CHUNK_SIZE - 2, CHUNK_SIZE - 3, CHUNK_SIZE, 2 * CHUNK_SIZE - 1),
        ),
        piece: fc.constantFrom(...VALID_PIECES, ...INVALID_PIECES),
      }),
      { maxLength: 6 },
    ),
  })
  .map(({ base, size, inserts }) => {
    const unit = enc.encode(base);
    const bytes = new Uint8Array(size);
    for (let o = 0; o < size; o += unit.length) bytes.set(unit.subarray(0, Math.min(unit.length, size - o)), o);
    for (const { at, piece } of inserts) bytes.set(piece.subarray(0, Math.max(0, size - (at % size))), at % size);
    return bytes;
  });

function scanWith(path: string, utf8Check: 'wasm' | 'isUtf8' | 'auto', start: number, end: number, isLast: boolean) {
  const blocks = Math.ceil((end - start) / BLOCK_SIZE) + 1;
  return scanFileRange({ kernels, path, start, end, isLast, counts: new Uint32Array(blocks), firstBlock: Math.floor(start / BLOCK_SIZE), utf8Check });
}

describe('UTF-8 check of the index scan: isUtf8 path = WASM path', () => {
  it('give the same counts and first error over whole files and mid-file pieces', () => {
    const path = tmp.path('text.bin');
    fc.assert(
      fc.property(bigText, fc.integer({ min: 0, max: 3 }), (bytes, piece) => {
        writeFileSync(path, bytes);
        const blocks = Math.ceil(bytes.length / BLOCK_SIZE);
        const start = Math.min(blocks - 1, piece) * BLOCK_SIZE;
        for (const [s, e, last] of [
          [0, bytes.length, true],
          [start, bytes.length, true],
          [0, Math.min(bytes.length, (piece + 2) * BLOCK_SIZE), false],
        ] as const) {
          const wasm = scanWith(path, 'wasm', s, e, last);
          expect(scanWith(path, 'isUtf8', s, e, last)).toEqual(wasm);
          expect(scanWith(path, 'auto', s, e, last)).toEqual(wasm);
        }
      }),
      runs(40),
    );
  });

  it('count a log and concatenated pieces alike on both paths', () => {
    const path = tmp.path('log.txt');
    const pieces = concat(
      Array.from({ length: 40_000 }, (_, i) => [...VALID_PIECES, ...INVALID_PIECES][(i * 7919) % (VALID_PIECES.length + INVALID_PIECES.length)]!),
    );
    for (const bytes of [logText(3 * CHUNK_SIZE + 17, 5, { multibyteEvery: 2 }), pieces]) {
      writeFileSync(path, bytes);
      const wasm = scanWith(path, 'wasm', 0, bytes.length, true);
      expect(scanWith(path, 'isUtf8', 0, bytes.length, true)).toEqual(wasm);
    }
  });
});
