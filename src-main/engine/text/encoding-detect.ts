/**
 * The encoding a file is reported in (file_info, every read answer):
 * - 'binary' when the sniff says so;
 * - 'utf-16le' / 'utf-16be' when the index reads it as UTF-16 (text-layout.ts);
 * - 'utf-8' when it is valid UTF-8 (or still being indexed: provisional);
 * - otherwise a legacy encoding when the evidence is clear, else 'unknown'.
 *
 * The legacy rule, on a 64 KiB sample starting a little before the first invalid
 * byte: decoded as UTF-8, it must hold at least MIN_NON_ASCII non-ASCII bytes
 * (detectors need text to go on) and at least as many invalid sequences as valid
 * multi-byte characters. A file that is mostly UTF-8 with a few bad bytes fails
 * that test and stays 'utf-8' (its reads replace and report the bad bytes, and
 * upserts refuse it as before). Then `chardet` names candidates; the first that
 * iconv-lite decodes and that is ASCII-compatible with a plain '\n' (not UTF-16/32,
 * not ISO-2022's escape-switched forms) with confidence >= MIN_CONFIDENCE is the
 * answer, lower-cased ('windows-1252', 'shift_jis', 'koi8-r', ...), with its
 * confidence in 0..1. Guesses are cached per version.
 */
import chardet from 'chardet';
import type { BinaryVerdict } from './binary-sniff.ts';
import type { LineIndex } from '../index/line-index.ts';
import { isLegacyEncoding } from './codec.ts';
import { readBytes } from './window.ts';

export type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'binary' | 'unknown' | (string & {});

export interface EncodingVerdict {
  encoding: Encoding;
  /** chardet's confidence (0..1) for a detected legacy encoding */
  confidence?: number;
}

const SAMPLE_BYTES = 64 * 1024;
const LOOK_BEHIND = 4096;
const MIN_NON_ASCII = 8;
const MIN_CONFIDENCE = 10;

const guesses = new Map<string, EncodingVerdict>();

/** Valid multi-byte characters and invalid sequences of `buf` read as UTF-8 (WHATWG decoding). */
function utf8Evidence(buf: Uint8Array): { nonAscii: number; valid: number; invalid: number } {
  let nonAscii = 0;
  for (const b of buf) if (b >= 0x80) nonAscii++;
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(buf);
  let valid = 0;
  let invalid = 0;
  for (const ch of text) {
    if (ch === '\uFFFD') invalid++;
    else if (ch.codePointAt(0)! >= 0x80) valid++;
  }
  return { nonAscii, valid, invalid };
}

/** A legacy encoding for a sample that is not UTF-8, or null if the evidence (`e`, its UTF-8 evidence) is not clear. */
export function guessLegacyEncoding(sample: Uint8Array, e = utf8Evidence(sample)): EncodingVerdict | null {
  if (e.nonAscii < MIN_NON_ASCII || e.invalid < e.valid) return null;
  for (const m of chardet.analyse(sample)) {
    const name = m.name.toLowerCase();
    if (m.confidence < MIN_CONFIDENCE) break;
    if (name.startsWith('utf-') || name.startsWith('iso-2022')) continue;
    if (isLegacyEncoding(name)) return { encoding: name, confidence: m.confidence / 100 };
  }
  return null;
}

export function encodingOf(verdict: BinaryVerdict, index: LineIndex, etag: string): EncodingVerdict {
  if (verdict.isBinary) return { encoding: 'binary' };
  if (index.layout !== 'utf-8') return { encoding: index.layout };
  if (!index.complete || index.facts.firstInvalid === null) return { encoding: 'utf-8' };
  let v = guesses.get(etag);
  if (!v) {
    const from = Math.max(0, index.facts.firstInvalid - LOOK_BEHIND);
    const sample = readBytes(index.path, from, Math.min(index.size, from + SAMPLE_BYTES));
    const e = utf8Evidence(sample);
    v = guessLegacyEncoding(sample, e) ?? { encoding: e.nonAscii >= MIN_NON_ASCII && e.valid > e.invalid ? 'utf-8' : 'unknown' };
    if (guesses.size > 1000) guesses.clear();
    guesses.set(etag, v);
  }
  return v;
}
