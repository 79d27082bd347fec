/**
 * The nearest near-miss of a quote that matched nowhere, so an agent can fix its
 * old_text in one step: where the text almost is, what it really says there, and
 * how it differs.
 *
 * The file is decoded line by line (streamed, like every big-file read) and each
 * window of as many lines as the quote has is compared with the quote under
 * normalisations, most specific first:
 *   newlines     equal once line endings are ignored (CRLF vs LF, a missing final newline)
 *   indentation  equal once leading whitespace of each line is ignored
 *   whitespace   equal once runs of spaces/tabs are collapsed and lines trimmed
 *   case         equal once letters are lowercased
 * A quote's first line may be the tail of a file line and its last line the head
 * of one (quotes rarely start and end on line boundaries), so those two compare by
 * endsWith / startsWith, and a one-line quote by includes.
 * Failing all of them ('other'), the line most similar to the quote's first
 * non-blank line is named, scored by character bigrams (Dice's coefficient, with
 * the file line's length counted at most twice the quote's, so a fragment inside a
 * longer line still scores by how much of it is there).
 *
 * It is a hint, not a proof, so it is bounded: at most `maxBytes` of the file and
 * `budgetMs` of time (the answer says how much was scanned); a 'newlines' hit ends
 * the scan at once (nothing can be nearer).
 */
import type { TextCodec } from '../text/codec.ts';
import { lineBatches } from './line-stream.ts';

export type Differs = 'newlines' | 'indentation' | 'whitespace' | 'case' | 'other';

export interface NearMiss {
  /** 1-based line where the near-miss starts, and where it ends */
  line: number;
  end_line: number;
  /** the file's text of those lines (joined by '\n'), cut to TEXT_MAX_CHARS */
  text: string;
  text_truncated: boolean;
  differs: Differs;
  /** 0..1, bigram similarity of the quote and `text` */
  similarity: number;
}

export interface NearMissReport {
  nearest: NearMiss | null;
  scannedBytes: number;
  /** the whole file was looked at */
  complete: boolean;
}

export interface NearMissOptions {
  /** bytes of the file looked at, at most (default 64 MiB) */
  maxBytes?: number;
  /** time spent, at most, in ms (default 1500) */
  budgetMs?: number;
  /** bytes decoded at a time (default 1 MiB) */
  chunkBytes?: number;
  /**
   * What the caller may see of each line, called once per line in file order (so it
   * may keep state, e.g. inside a block): the quote is compared with, and `text`
   * shows, these lines. The agent guard passes its redacted view, so a near-miss
   * is no measure of how close a guess comes to a hidden value.
   */
  lineView?: (line: string) => string;
}

export const TEXT_MAX_CHARS = 300;
/** Below this similarity an 'other' candidate is not worth showing. */
const MIN_SIMILARITY = 0.2;
/** Characters of a line that take part in similarity scoring. */
const SCORE_MAX_CHARS = 1000;

const NORMALISERS: [Differs, (s: string) => string][] = [
  ['newlines', (s) => s],
  ['indentation', (s) => s.trimStart()],
  ['whitespace', (s) => s.replace(/[ \t]+/g, ' ').trim()],
  ['case', (s) => s.toLowerCase()],
];
/** Coarser than every normaliser: a cheap first filter on a window's first line. */
const coarse = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** Character bigrams of `s` as a multiset (code-unit pairs packed into one number). */
function bigramsOf(s: string): Map<number, number> {
  const m = new Map<number, number>();
  for (let i = 0; i + 1 < s.length; i++) {
    const k = s.charCodeAt(i) * 65536 + s.charCodeAt(i + 1);
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

/** Similarity of `text` to a quote whose bigrams are `q` (qTotal of them); see the header. */
function similarityTo(q: Map<number, number>, qTotal: number, text: string): number {
  const n = Math.max(0, text.length - 1);
  if (qTotal === 0 || n === 0) return 0;
  const seen = new Map<number, number>();
  let common = 0;
  for (let i = 0; i < n; i++) {
    const k = text.charCodeAt(i) * 65536 + text.charCodeAt(i + 1);
    const want = q.get(k);
    if (want === undefined) continue;
    const had = seen.get(k) ?? 0;
    if (had < want) {
      common++;
      seen.set(k, had + 1);
    }
  }
  return (2 * common) / (qTotal + Math.min(n, 2 * qTotal));
}

/** The best a line of `n` bigrams can score against a quote of qTotal (all its bigrams in common). */
const bestPossible = (qTotal: number, n: number): number => (n <= 0 ? 0 : (2 * Math.min(n, qTotal)) / (qTotal + Math.min(n, 2 * qTotal)));

interface Candidate {
  rank: number;
  score: number;
  lineNo: number;
  lines: string[];
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * The near-miss of `quote` (the agent's old_text, as sent) nearest to matching in
 * bytes [fromByte, size) of `path`, decoded with `codec`.
 */
export async function nearestMiss(
  path: string,
  codec: TextCodec,
  fromByte: number,
  size: number,
  quote: string,
  opts: NearMissOptions = {},
): Promise<NearMissReport> {
  const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
  const deadline = Date.now() + (opts.budgetMs ?? 1500);
  const chunkBytes = Math.max(64, opts.chunkBytes ?? 1024 * 1024);
  const view = opts.lineView;

  const qLines = quote.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const k = qLines.length;
  const qForms = NORMALISERS.map(([, f]) => qLines.map(f));
  const qFirstCoarse = coarse(qLines[0]!);
  const anchorIdx = Math.max(
    0,
    qLines.findIndex((l) => l.trim() !== ''),
  );
  const anchor = coarse(qLines[anchorIdx]!).slice(0, SCORE_MAX_CHARS);
  const anchorGrams = bigramsOf(anchor);
  const anchorTotal = Math.max(0, anchor.length - 1);
  const quoteText = qLines.join('\n').slice(0, 4 * TEXT_MAX_CHARS);
  const quoteGrams = bigramsOf(quoteText);
  const quoteTotal = Math.max(0, quoteText.length - 1);

  /** the nearest so far: rank is the normaliser's index, NORMALISERS.length for 'other' */
  let best: Candidate | null = null;
  const exact = (): boolean => best?.rank === 0;

  /** Does the window of lines `at(0..k-1)` hold the quote under normaliser r? */
  const windowMatches = (r: number, at: (j: number) => string): boolean => {
    const f = NORMALISERS[r]![1];
    const q = qForms[r]!;
    if (k === 1) return f(at(0)).includes(q[0]!);
    if (!f(at(0)).endsWith(q[0]!)) return false;
    for (let j = 1; j < k - 1; j++) if (f(at(j)) !== q[j]) return false;
    return f(at(k - 1)).startsWith(q[k - 1]!);
  };

  /** Look at the window starting at lines[s] (line number lineNo); lines past the end read as ''. */
  const consider = (lines: string[], s: number, lineNo: number): void => {
    const at = (j: number): string => lines[s + j] ?? '';
    const first = coarse(at(0));
    if (k === 1 ? first.includes(qFirstCoarse) : first.endsWith(qFirstCoarse)) {
      for (let r = 0; r < NORMALISERS.length && (!best || r < best.rank); r++) {
        if (windowMatches(r, at)) {
          best = { rank: r, score: 1, lineNo, lines: lines.slice(s, s + k) };
          return;
        }
      }
    }
    if (best && best.rank < NORMALISERS.length) return;
    // 'other': the line most like the quote's anchor line.
    const cand = coarse(at(anchorIdx).slice(0, SCORE_MAX_CHARS));
    const n = cand.length - 1;
    if (bestPossible(anchorTotal, n) <= (best?.score ?? MIN_SIMILARITY)) return;
    const score = similarityTo(anchorGrams, anchorTotal, cand);
    if (score > (best?.score ?? MIN_SIMILARITY)) best = { rank: NORMALISERS.length, score, lineNo, lines: lines.slice(s, s + k) };
  };

  let pos = fromByte;
  /** complete lines not yet looked at as a window start; pending[0] is line firstNo */
  let pending: string[] = [];
  let firstNo = 1;
  const stop = (): boolean => exact() || pos - fromByte >= maxBytes || Date.now() > deadline;
  for await (const batch of lineBatches(path, codec, fromByte, size, chunkBytes)) {
    pos = batch.pos;
    for (const line of batch.lines) pending.push(view ? view(line) : line);
    // Windows that lie wholly in what was read, or all that is left at the end.
    const last = batch.atEnd ? pending.length : pending.length - k + 1;
    let s = 0;
    for (; s < last; s++) {
      consider(pending, s, firstNo + s);
      if (exact()) break;
    }
    pending = pending.slice(s);
    firstNo += s;
    if (stop()) break;
  }
  const found = best as Candidate | null; // assigned in closures, which control-flow narrowing does not see
  let nearest: NearMiss | null = null;
  if (found) {
    const start = Math.max(1, found.lineNo);
    const whole = found.lines.join('\n');
    nearest = {
      line: start,
      end_line: start + Math.max(0, found.lines.length - 1),
      text: whole.slice(0, TEXT_MAX_CHARS),
      text_truncated: whole.length > TEXT_MAX_CHARS,
      differs: found.rank < NORMALISERS.length ? NORMALISERS[found.rank]![0] : 'other',
      // An 'other' near-miss is not the quote: never shown as 1 (0.996 rounded up said "identical").
      similarity:
        found.rank < NORMALISERS.length
          ? round2(similarityTo(quoteGrams, quoteTotal, whole.slice(0, 4 * TEXT_MAX_CHARS)))
          : Math.min(0.99, round2(found.score)),
    };
  }
  return { nearest, scannedBytes: Math.min(size, pos) - fromByte, complete: pos >= size };
}
