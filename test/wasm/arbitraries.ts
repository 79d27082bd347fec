/**
 * Input generators shared by the kernel suites: arbitrary bytes, text-heavy mixes
 * (ASCII, newlines, CR/CRLF, 2/3/4-byte UTF-8 and every class of invalid UTF-8),
 * chunk splits, and a seeded log-like text filler for large inputs.
 */
import fc from 'fast-check';
import { loadKernels, CHUNK_SIZE } from '../../src-main/engine/kernels/kernels.mjs';

const enc = new TextEncoder();

/** Byte pieces text is built from; the invalid ones cover every error class of the validator. */
export const VALID_PIECES: Uint8Array[] = [
  ...[
    'a',
    'hello ',
    'log line 42: ok',
    ' ',
    '\t',
    '\x1b[31m',
    '\n',
    '\r',
    '\r\n',
    '\n\n',
    'é',
    'ß',
    'Ω',
    '€',
    '中文',
    'ｱ',
    '😀',
    '𝄞',
    '\u{10FFFF}',
    '\u{FFFD}',
    '\u07FF',
    '\u0800',
    '\uFFFF',
    '\u{10000}',
    '\uD7FF',
    '\uE000',
  ].map((s) => enc.encode(s)),
];
export const INVALID_PIECES: Uint8Array[] = [
  [0x80],
  [0xbf],
  [0xc0],
  [0xc1],
  [0xf5],
  [0xf8],
  [0xff],
  [0xfe], // never valid
  [0xc3],
  [0xe2, 0x82],
  [0xe2],
  [0xf0, 0x9f, 0x98],
  [0xf0, 0x9f],
  [0xf4], // truncated
  [0xc0, 0xaf],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0xaf],
  [0xe0, 0x9f, 0xbf],
  [0xf0, 0x80, 0x80, 0xaf],
  [0xf0, 0x8f, 0xbf, 0xbf], // overlong
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xed, 0xaf, 0xbf, 0xed, 0xb0, 0x80], // surrogates
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5, 0x80, 0x80, 0x80],
  [0xf7, 0xbf, 0xbf, 0xbf], // > U+10FFFF
  [0xe2, 0x82, 0xac, 0x80],
  [0xc3, 0xa9, 0xa9], // extra continuation
  [0x00],
  [0x01],
  [0x7f],
  [0x1b],
  [0x0b],
  [0x0c], // NUL and control bytes (valid UTF-8)
].map((b) => Uint8Array.from(b));

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

const piece = fc.oneof(
  { arbitrary: fc.constantFrom(...VALID_PIECES), weight: 8 },
  { arbitrary: fc.constantFrom(...INVALID_PIECES), weight: 1 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => enc.encode(s)), weight: 2 },
  { arbitrary: fc.uint8Array({ maxLength: 8 }), weight: 1 },
);

// size: 'max' because fast-check's default size keeps arrays to a few elements,
// which would never reach the kernels' 64-byte SIMD loops.

/** Text-heavy byte strings: mostly valid UTF-8 with newlines, CR/CRLF and some invalid sequences. */
export const textBytes = (maxPieces = 200) => fc.array(piece, { maxLength: maxPieces, size: 'max' }).map(concat);

/** Valid UTF-8 text (no invalid pieces). */
export const validTextBytes = (maxPieces = 200) => fc.array(fc.constantFrom(...VALID_PIECES), { maxLength: maxPieces, size: 'max' }).map(concat);

/** Either arbitrary bytes or text. */
export const anyBytes = (maxLength = 600) =>
  fc.oneof(fc.uint8Array({ maxLength, size: 'max' }), textBytes(Math.ceil(maxLength / 4)), validTextBytes(Math.ceil(maxLength / 4)));

/** Sorted cut points splitting [0, len] into chunks. */
export const splits = (len: number) =>
  fc.array(fc.integer({ min: 0, max: len }), { maxLength: 12 }).map((cuts) => [...new Set([0, ...cuts, len])].sort((a, b) => a - b));

/** Chunks of `bytes` cut at the given sorted points (empty chunks kept: feeding 0 bytes is legal). */
export function chunksAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 1; i < cuts.length; i++) out.push(bytes.subarray(cuts[i - 1], cuts[i]));
  return out.length ? out : [bytes.subarray(0, 0)];
}

/** Deterministic log-like text: ASCII lines, ~2% with multi-byte characters, optional CRLF. */
export function logText(size: number, seed: number, opts: { crlf?: boolean; multibyteEvery?: number } = {}): Uint8Array {
  const out = new Uint8Array(size);
  let s = seed >>> 0 || 1;
  const rand = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const mb = [enc.encode('é'), enc.encode('€ '), enc.encode('😀'), enc.encode('中文')];
  const every = opts.multibyteEvery ?? 50;
  let o = 0;
  let line = 0;
  while (o < size) {
    const len = 20 + Math.floor(rand() * 120);
    const text = enc.encode(`2024-05-01T12:00:${String(line % 60).padStart(2, '0')}Z INFO worker-${line % 7} request ${line} handled in ${len}ms `);
    const withMb = line % every === every - 1;
    for (let i = 0; i < len && o < size; i++) {
      if (withMb && i === 10) {
        const m = mb[line % mb.length]!;
        if (o + m.length > size) break;
        out.set(m, o);
        o += m.length;
      } else out[o++] = text[i % text.length]!;
    }
    if (opts.crlf && o < size) out[o++] = 13;
    if (o < size) out[o++] = 10;
    line++;
  }
  // Never end inside a multi-byte character: replace a cut-off tail with ASCII.
  for (let i = Math.max(0, size - 3); i < size; i++) if (out[i]! >= 0x80) out.fill(0x2e, i);
  return out;
}

/** One kernel instance per suite; `fresh` fills the input window with bytes that would expose over-reads. */
export function kernelFixture() {
  const kernels = loadKernels();
  return {
    kernels,
    /** Place `bytes` at `at` in a window otherwise full of '\n', '\r', NUL and continuation bytes. */
    place(bytes: Uint8Array, at = 0): Uint8Array {
      const input = kernels.input;
      for (let i = 0; i < CHUNK_SIZE; i += 4) {
        input[i] = 10;
        input[i + 1] = 13;
        input[i + 2] = 0x80;
        input[i + 3] = 0;
      }
      input.set(bytes, at);
      return input;
    },
  };
}
