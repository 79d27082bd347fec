/**
 * The encoding a file is reported in (file_info, every read answer):
 * - 'binary' when the sniff says so;
 * - 'utf-16le' / 'utf-16be' when the index reads it as UTF-16 (index/layout.ts);
 * - 'utf-8' when it is valid UTF-8 (or still being indexed: provisional);
 * - for a file that is not valid UTF-8, the evidence of the whole file decides, as
 *   the index pass counted it (facts.utf8: valid multi-byte characters and
 *   ill-formed sequences, each one U+FFFD when decoded), never a sample alone:
 *   - 'utf-8' when valid multi-byte characters outnumber ill-formed sequences: a
 *     UTF-8 file with a binary blob or a few bad bytes (reads and search decode it
 *     as UTF-8, replacing and reporting the bad bytes);
 *   - a legacy encoding only with clear evidence (legacyEncodingOf);
 *   - else 'unknown' (read as UTF-8 too, with U+FFFD, reported).
 * Verdicts are cached per version.
 */
import { createRequire } from 'node:module';
import type { BinaryVerdict } from './binary-sniff.ts';
import type { LineIndex } from '../index/line-index.ts';
import { decoderOf, isByteWiseLegacy } from './units.mjs';
import { readBytes } from './window.ts';

export type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'binary' | 'unknown' | (string & {});

export interface EncodingVerdict {
  encoding: Encoding;
  /** chardet's confidence (0..1) for a detected legacy encoding */
  confidence?: number;
}

/** What the index counted over the whole file (see IndexFacts.utf8). */
export interface Utf8Evidence {
  /** ill-formed sequences (maximal subparts) */
  invalid: number;
  /** valid characters of 2-4 bytes */
  multibyte: number;
}

const SAMPLE_BYTES = 64 * 1024;
const LOOK_BEHIND = 4096;
/** Ill-formed sequences a file needs before a legacy encoding is considered: detectors need text to go on. */
export const MIN_INVALID = 8;

/** chardet loads for a file that is not valid UTF-8, not on every start (synchronous: verdicts are made in synchronous code). */
let chardetLib: typeof import('chardet') | undefined;
const chardet = () => (chardetLib ??= createRequire(import.meta.url)('chardet') as typeof import('chardet'));
/**
 * Valid multi-byte characters per ill-formed sequence a legacy file may have.
 * In single-byte encodings (windows-125x, ISO-8859-x, KOI8-R) a valid UTF-8
 * sequence takes an unlikely pair like "Ã©": essentially none (measured: 0 in
 * French, German and Russian text, 1% in KOI8-R). The double-byte encodings'
 * byte pairs form UTF-8 sequences by chance (measured: 15% of the ill-formed count
 * in Big5 and EUC-KR, 26% in Shift_JIS, 30% in GB18030, 35% in EUC-JP text).
 */
const MAX_VALID_PER_INVALID_SINGLE_BYTE = 1 / 20;
const MAX_VALID_PER_INVALID_DOUBLE_BYTE = 1 / 2;
const DOUBLE_BYTE = new Set(['shift_jis', 'euc-jp', 'euc-kr', 'gb18030', 'gbk', 'big5']);
/** chardet's confidence (0..100) below which a candidate is not considered. */
const MIN_CONFIDENCE = 10;
/** Control bytes (not \t \n \v \f \r or ESC) a text sample may hold, per byte. */
const MAX_CONTROL_RATIO = 0.01;

const verdicts = new Map<string, EncodingVerdict>();

/** Whether `sample` reads as text: no NUL byte and few control bytes (binary data has both). */
function looksLikeText(sample: Uint8Array): boolean {
  let control = 0;
  for (const b of sample) {
    if (b === 0) return false;
    if ((b < 0x20 && (b < 9 || b > 13) && b !== 0x1b) || b === 0x7f) control++;
  }
  return control <= sample.length * MAX_CONTROL_RATIO;
}

/**
 * The legacy encoding of a file that is not UTF-8, or null without clear evidence:
 * at least MIN_INVALID ill-formed sequences over the whole file, essentially no
 * valid multi-byte character (see MAX_VALID_PER_INVALID_*), a `sample` of the file
 * around its first ill-formed sequence (whole lines) that reads as text (a binary
 * blob does not),
 * and a candidate named by `chardet` (confidence >= 10%) that iconv-lite decodes
 * without replacement characters and that keeps '\n' a plain byte (not UTF-16/32,
 * not ISO-2022's escape-switched forms).
 */
export function legacyEncodingOf(sample: Uint8Array, e: Utf8Evidence): EncodingVerdict | null {
  if (e.invalid < MIN_INVALID || e.multibyte > e.invalid * MAX_VALID_PER_INVALID_DOUBLE_BYTE) return null;
  if (!looksLikeText(sample)) return null;
  for (const m of chardet().analyse(sample)) {
    const name = m.name.toLowerCase();
    if (m.confidence < MIN_CONFIDENCE) break;
    if (!isByteWiseLegacy(name)) continue;
    const bar = DOUBLE_BYTE.has(name) ? MAX_VALID_PER_INVALID_DOUBLE_BYTE : MAX_VALID_PER_INVALID_SINGLE_BYTE;
    if (e.multibyte > e.invalid * bar) continue;
    if (decoderOf(name)(sample).includes('\uFFFD')) continue;
    return { encoding: name, confidence: m.confidence / 100 };
  }
  return null;
}

/** The verdict for a file that is not valid UTF-8, from its whole-file counts and a sample at its first ill-formed sequence. */
export function verdictOfInvalid(sample: Uint8Array, e: Utf8Evidence): EncodingVerdict {
  if (e.multibyte > e.invalid) return { encoding: 'utf-8' };
  return legacyEncodingOf(sample, e) ?? { encoding: 'unknown' };
}

/** About SAMPLE_BYTES of whole lines from a little before byte `at` (cut lines would decode badly in a double-byte encoding). */
function sampleAt(index: LineIndex, at: number): Uint8Array {
  const from = Math.max(0, at - LOOK_BEHIND);
  const to = Math.min(index.size, from + SAMPLE_BYTES);
  let sample = readBytes(index.path, from, to);
  if (to < index.size) {
    const last = sample.lastIndexOf(10);
    if (last > at - from) sample = sample.subarray(0, last + 1);
  }
  if (from > 0) {
    const first = sample.indexOf(10);
    sample = sample.subarray(first >= 0 && first < at - from ? first + 1 : at - from);
  }
  return sample;
}

export function encodingOf(verdict: BinaryVerdict, index: LineIndex, etag: string): EncodingVerdict {
  if (verdict.isBinary) return { encoding: 'binary' };
  if (index.layout !== 'utf-8') return { encoding: index.layout };
  // A UTF-8 byte-order mark declares the encoding: its invalid bytes are reported, not a reason to guess another.
  if (index.bom || !index.complete || index.facts.firstInvalid === null || !index.facts.utf8) return { encoding: 'utf-8' };
  const e = index.facts.utf8;
  if (e.multibyte > e.invalid) return { encoding: 'utf-8' };
  let v = verdicts.get(etag);
  if (!v) {
    v = verdictOfInvalid(sampleAt(index, index.facts.firstInvalid), e);
    if (verdicts.size > 1000) verdicts.clear();
    verdicts.set(etag, v);
  }
  return v;
}
