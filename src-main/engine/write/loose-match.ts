/**
 * Loose matching of a quote that is nowhere in the file exactly (issue 27): the most
 * reported failure of agents' edit tools is "old_text not found" because of
 * whitespace, tabs against spaces, indentation, CRLF, or a typographic quote or dash
 * where the file has the ASCII one (Codex's apply_patch forgives the same).
 *
 * A quote matches loosely where each of its lines equals a whole line of the file once
 * both are put in a loose form: look-alike punctuation made ASCII (‘’‚‛ → ', “”„‟ → ",
 * ‐‑‒–—―− → -, no-break and other wide spaces → space), runs of spaces and tabs made
 * one space, and leading and trailing whitespace dropped. A quote that ends with a
 * newline covers its last line's newline too. Lines are compared whole: a quote that
 * starts or ends inside a line is matched exactly or not at all.
 *
 * It is applied only when exactly one place of the whole file matches so; several are
 * ambiguous, and a file larger than the scan's bounds is not matched loosely (the
 * caller says so). The new text then takes the file's indentation at that place
 * (`reindent`), and the answer says how the quote differed (`differencesOf`).
 */
import type { TextCodec } from '../text/codec.ts';
import { lineBatches } from './line-stream.ts';

/** How a loosely matched quote differed from the file's lines. */
export type LooseDifference = 'indentation' | 'trailing_whitespace' | 'inner_whitespace' | 'punctuation';

export interface LooseOptions {
  /** bytes of the file looked at, at most (default 64 MiB); a bigger file is not matched loosely */
  maxBytes?: number;
  /** time spent, at most, in ms (default 3000) */
  budgetMs?: number;
  /** bytes decoded at a time (default 1 MiB) */
  chunkBytes?: number;
}

export interface LooseHit {
  /** 1-based first line */
  line: number;
  /** the file's lines there (decoded, without their newlines) */
  lines: string[];
}

export interface LooseScan {
  /** places that match loosely (the first MAX_KEPT of them) */
  hits: LooseHit[];
  count: number;
  /** the whole file was looked at: `count` is all there is */
  complete: boolean;
}

const MAX_KEPT = 20;

const LOOKALIKES: [RegExp, string][] = [
  [/[\u2018\u2019\u201A\u201B\u2032]/g, "'"],
  [/[\u201C\u201D\u201E\u201F\u2033]/g, '"'],
  [/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g, '-'],
  [/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, ' '],
];

/** `s` with look-alike punctuation and spaces made ASCII. */
export function asciiLookalikes(s: string): string {
  let out = s;
  for (const [re, to] of LOOKALIKES) out = out.replace(re, to);
  return out;
}

/** The loose form of one line (see the header). */
export function looseForm(line: string): string {
  return asciiLookalikes(line)
    .replace(/[ \t\f\v]+/g, ' ')
    .trim();
}

/** The quote as lines (CRs dropped), and whether it ends with a newline (then its last line's newline is part of it). */
export function quoteLines(quote: string): { lines: string[]; withNewline: boolean } {
  const lines = quote.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const withNewline = lines.length > 1 && lines[lines.length - 1] === '';
  if (withNewline) lines.pop();
  return { lines, withNewline };
}

/** The places of bytes [fromByte, size) of `path` whose whole lines match `quote` loosely; null when the quote has no text to match on. */
export async function findLoose(
  path: string,
  codec: TextCodec,
  fromByte: number,
  size: number,
  quote: string,
  opts: LooseOptions = {},
): Promise<LooseScan | null> {
  const { lines: qLines } = quoteLines(quote);
  const keys = qLines.map(looseForm);
  const anchor = keys.findIndex((k) => k !== '');
  if (anchor < 0) return null;
  const k = keys.length;
  const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
  if (size - fromByte > maxBytes) return { hits: [], count: 0, complete: false };
  const deadline = Date.now() + (opts.budgetMs ?? 3000);
  const anchorKey = keys[anchor]!;
  const scan: LooseScan = { hits: [], count: 0, complete: false };
  let pending: string[] = [];
  let firstNo = 1;
  for await (const batch of lineBatches(path, codec, fromByte, size, Math.max(64, opts.chunkBytes ?? 1024 * 1024))) {
    for (const line of batch.lines) pending.push(line);
    const last = pending.length - k + 1;
    let s = 0;
    for (; s < last; s++) {
      // The anchor line first: a cheap length test, then its loose form.
      const a = pending[s + anchor]!;
      if (a.length < anchorKey.length || looseForm(a) !== anchorKey) continue;
      let all = true;
      for (let j = 0; j < k && all; j++) if (j !== anchor && looseForm(pending[s + j]!) !== keys[j]) all = false;
      if (!all) continue;
      scan.count++;
      if (scan.hits.length < MAX_KEPT) scan.hits.push({ line: firstNo + s, lines: pending.slice(s, s + k) });
    }
    pending = pending.slice(s);
    firstNo += s;
    if (batch.atEnd) scan.complete = true;
    else if (Date.now() > deadline) return scan;
  }
  scan.complete = true;
  return scan;
}

const leadingOf = (s: string): string => /^[ \t]*/.exec(s)![0];
const collapse = (s: string): string => s.replace(/[ \t]+/g, ' ');

/** How the quote's lines differ from the file's lines they matched loosely, in a fixed order. */
export function differencesOf(quote: string[], file: string[]): LooseDifference[] {
  const seen = new Set<LooseDifference>();
  quote.forEach((q, i) => {
    const f = file[i] ?? '';
    if (q === f) return;
    if (q.trim() !== '' && leadingOf(q) !== leadingOf(f)) seen.add('indentation');
    if (/[ \t]*$/.exec(q)![0] !== /[ \t]*$/.exec(f)![0]) seen.add('trailing_whitespace');
    const [qi, fi] = [q.trim(), f.trim()];
    if (qi === fi) return;
    // A difference that survives collapsing whitespace is a look-alike; one that survives making look-alikes ASCII is whitespace.
    if (collapse(qi) !== collapse(fi)) seen.add('punctuation');
    if (asciiLookalikes(qi) !== asciiLookalikes(fi)) seen.add('inner_whitespace');
  });
  const order: LooseDifference[] = ['indentation', 'trailing_whitespace', 'inner_whitespace', 'punctuation'];
  return order.filter((d) => seen.has(d));
}

/** The smallest step between the indentation widths of `lines` (blank ones aside) and `base`, in characters; `fallback` when there is none. */
function indentStep(lines: string[], base: string, fallback: number): number {
  let step = Infinity;
  for (const l of lines) {
    if (l.trim() === '') continue;
    const d = leadingOf(l).length - base.length;
    if (d > 0) step = Math.min(step, d);
  }
  return Number.isFinite(step) ? step : fallback;
}

/**
 * `newText` with the file's indentation where the quote had another: each line that
 * starts with the quote's base indentation (that of its first line with text) gets the
 * file's base indentation there instead, and indentation beyond the base is turned to
 * the file's kind (tabs or spaces, a quote's indent step per tab). Other lines are kept.
 */
export function reindent(newText: string, quote: string[], file: string[]): string {
  const at = quote.findIndex((l) => l.trim() !== '');
  if (at < 0) return newText;
  const qBase = leadingOf(quote[at]!);
  const fBase = leadingOf(file[at] ?? '');
  const fileIndents = file.filter((l) => l.trim() !== '').map(leadingOf);
  const quoteIndents = quote.filter((l) => l.trim() !== '').map(leadingOf);
  const fileTabs = fileIndents.some((i) => i.includes('\t'));
  const fileSpaces = fileIndents.some((i) => i.includes(' '));
  const quoteSpaces = quoteIndents.some((i) => i.includes(' '));
  const quoteTabs = quoteIndents.some((i) => i.includes('\t'));
  const qStep = indentStep(quote, qBase, 4);
  const fStep = indentStep(file, fBase, 4);
  const convert = (extra: string): string => {
    if (fileTabs && !fileSpaces && quoteSpaces) return extra.replace(new RegExp(` {${qStep}}`, 'g'), '\t');
    if (fileSpaces && !fileTabs && quoteTabs) return extra.replace(/\t/g, ' '.repeat(fStep));
    return extra;
  };
  if (qBase === fBase && convert('\t') === '\t' && convert(' '.repeat(qStep)) === ' '.repeat(qStep)) return newText;
  return newText
    .split('\n')
    .map((line) => {
      if (line.trim() === '' || !line.startsWith(qBase)) return line;
      const rest = line.slice(qBase.length);
      const extra = leadingOf(rest);
      return fBase + convert(extra) + rest.slice(extra.length);
    })
    .join('\n');
}
