/**
 * Search answers for agents, so that search is not an oracle for secrets. A regex
 * anchored on a key name and grown one character per call (`password = "h`,
 * `password = "hu` …) would tell, by matching or not, what the hidden value is.
 * So for an agent a line matches only if its REDACTED text matches: each matched
 * line is taken whole (read again when the engine cut it to max_line_chars), its
 * secret spans found, and the pattern run again over the redacted line; a match
 * that exists only inside a secret is not listed and not counted. The text shown is
 * the engine's cut of the line with every part inside a secret span masked (so a
 * cut that drops the key name is masked too), and a match position inside a secret
 * is moved to the line start. count_only counts from the match listing filtered the
 * same way (visibleCount).
 */
import type { SearchInput, SearchOutput } from '../schemas.ts';
import { boundedLineTester } from './bounded-line-test.ts';
import { secretLinesAround } from './redact.ts';
import { maskedSlice, secretSpansOf, type RedactionRule, type SecretSpan } from './secret-spans.ts';
import { lineAroundSlice, lineBoundsOf } from './whole-lines.ts';

type Match = SearchOutput['matches'][number];

/** The engine's default cut of a matched line (engine/search DEFAULT_MAX_LINE_CHARS). */
const DEFAULT_MAX_LINE_CHARS = 400;
/** count_only pages through matches this many at a time (the engine's cap on `max`)… */
const COUNT_PAGE_MATCHES = 10_000;
/** …and at most this many pages per call: past 100,000 matching lines it answers truncated with next_start_byte to continue. */
const COUNT_MAX_PAGES = 10;

/** The pattern as the engine runs it on each line (flags among 'imsu'). */
function lineRegexOf(input: SearchInput): RegExp {
  return new RegExp(input.pattern, (input.flags ?? '').replace(/[^imsu]/g, ''));
}

/** Code points → UTF-16 offset in `s`. */
function unitOffsetOf(s: string, codePoints: number): number {
  let units = 0;
  for (let cp = 0; cp < codePoints && units < s.length; cp++) units += s.codePointAt(units)! > 0xffff ? 2 : 1;
  return units;
}

/** The whole line of a match, and where the match's shown text starts in it (-1: not found). */
async function wholeLineOf(path: string, m: Match, maxChars: number): Promise<{ whole: string; offset: number }> {
  if (!m.text_truncated) return { whole: m.text, offset: 0 };
  const bounds = await lineBoundsOf(path, m.line);
  if (!bounds) return { whole: m.text, offset: -1 };
  let whole = bounds.text;
  if (whole === undefined) {
    const around = await lineAroundSlice(bounds, path, m.byte_offset, m.byte_offset);
    whole = around.before + around.after;
  }
  // The engine cuts around the match: a quarter of the window before it (engine/search/line-text.mjs).
  const cps = [...whole].length;
  const fromCp = Math.max(0, Math.min(m.column - 1 - Math.floor(maxChars / 4), cps - maxChars));
  const guess = unitOffsetOf(whole, fromCp);
  const offset = whole.startsWith(m.text, guess) ? guess : whole.indexOf(m.text);
  return { whole, offset };
}

/**
 * The matches an agent may see, redacted: those whose line still matches once
 * redacted, with their text masked. `dropped` counts the matches that were only in
 * secrets.
 */
export async function visibleMatches<M extends Match>(
  rules: RedactionRule[],
  path: string,
  input: SearchInput,
  matches: M[],
): Promise<{ matches: M[]; dropped: number; redactions: number }> {
  if (!matches.length) return { matches, dropped: 0, redactions: 0 };
  const matchesRedacted = boundedLineTester(lineRegexOf(input));
  const maxChars = input.max_line_chars ?? DEFAULT_MAX_LINE_CHARS;
  const lines = [];
  for (const m of matches) lines.push(await wholeLineOf(path, m, maxChars));
  const keyLines = await secretLinesAround(path, matches[0]!.line, matches.at(-1)!.line, lines.map((l) => l.whole).join('\n'));
  const kept: M[] = [];
  let redactions = 0;
  for (const [i, m] of matches.entries()) {
    const { whole, offset } = lines[i]!;
    const spans: SecretSpan[] = keyLines.has(m.line) ? [{ start: 0, end: Math.max(1, whole.length), kind: 'private_key' }] : secretSpansOf(whole, rules);
    if (!spans.length) {
      kept.push(m);
      continue;
    }
    if (!matchesRedacted(maskedSlice(whole, spans).text)) continue;
    // Text not found in its line (should not happen): show only the placeholder rather than guess.
    const shown = offset < 0 ? { text: `[REDACTED:${spans[0]!.kind}]`, count: 1 } : maskedSlice(whole, spans, offset, m.text.length);
    redactions += shown.count;
    const at = unitOffsetOf(whole, m.column - 1);
    const inSecret = spans.some((s) => at >= s.start && at < s.end);
    const lineStart = inSecret ? (await lineBoundsOf(path, m.line))?.startByte : undefined;
    kept.push({ ...m, text: shown.text, ...(inSecret ? { column: 1, byte_offset: lineStart ?? m.byte_offset } : {}) });
  }
  return { matches: kept, dropped: matches.length - kept.length, redactions };
}

/**
 * count_only for an agent: the matching lines whose redacted text matches, counted
 * from the match listing page by page (COUNT_PAGE_MATCHES per page, at most
 * COUNT_MAX_PAGES pages; past that the answer is truncated with next_start_byte).
 */
export async function visibleCount(
  rules: RedactionRule[],
  path: string,
  input: SearchInput,
  search: (input: SearchInput) => Promise<SearchOutput>,
): Promise<SearchOutput> {
  let page = await search({ ...input, count_only: false, max: COUNT_PAGE_MATCHES });
  const scannedFrom = page.scanned.start_byte;
  let count = 0;
  for (let pages = 1; ; pages++) {
    const seen = await visibleMatches(rules, path, input, page.matches);
    count += seen.matches.length;
    const more = page.truncated && page.next_start_byte !== null;
    if (!more || pages >= COUNT_MAX_PAGES) {
      return {
        ...page,
        matches: [],
        count,
        truncated: more,
        next_start_byte: more ? page.next_start_byte : null,
        scanned: { start_byte: scannedFrom, end_byte: page.scanned.end_byte },
      };
    }
    page = await search({ ...input, count_only: false, max: COUNT_PAGE_MATCHES, start_line: undefined, start_byte: page.next_start_byte! });
  }
}
