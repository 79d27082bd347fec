/**
 * Directory search answers for agents, redacted file by file the way a one-file
 * search is (redact-search.ts): a line matches only if its redacted text matches,
 * a match only inside a secret is neither listed nor counted, and the text shown
 * is masked. Context lines are file text too: each is masked on its whole line
 * (read again when it was cut), and lines inside a private key block are replaced
 * whole. Each file is pinned while its lines are read again (pinned-file.ts): a
 * file swapped since the walk is dropped from the answer.
 *
 * count_only pages through the matches (COUNT_PAGE_MATCHES at a time, at most
 * COUNT_MAX_PAGES pages; past that the answer is truncated with next_cursor) and
 * counts per file what survives.
 */
import { join } from 'node:path';
import { withPinnedFile } from '../../engine/index/pinned-file.ts';
import { etagOf, statRegularFile } from '../../engine/index/identity.ts';
import type { SearchInput, SearchTreeOutput } from '../schemas.ts';
import { secretLinesAround } from './redact.ts';
import { visibleMatches } from './redact-search.ts';
import { maskedSlice, placeholderOf, secretSpansOf, type RedactionRule } from './secret-spans.ts';
import { lineBoundsOf } from './whole-lines.ts';

type TreeMatch = SearchTreeOutput['matches'][number];

const DEFAULT_MAX_LINE_CHARS = 400;
const COUNT_PAGE_MATCHES = 10_000;
const COUNT_MAX_PAGES = 10;

/** `shown` (line `lineNo` of `path`, maybe cut to maxChars from its start) with its secrets masked. */
async function maskedContextLine(rules: RedactionRule[], path: string, lineNo: number, shown: string, maxChars: number, keyLines: Set<number>) {
  if (keyLines.has(lineNo)) return { text: placeholderOf('private_key'), count: 1 };
  let whole = shown;
  if ([...shown].length >= maxChars) {
    const text = (await lineBoundsOf(path, lineNo))?.text;
    // Too long to read whole (past 1 MiB): show nothing of it rather than judge a slice.
    if (text === undefined) return { text: placeholderOf('unchecked_long_line'), count: 1 };
    whole = text;
  }
  const spans = secretSpansOf(whole, rules);
  if (!spans.length) return { text: shown, count: 0 };
  return maskedSlice(whole, spans, 0, shown.length);
}

/** The context lines of one file's matches, masked. */
async function visibleContext(
  rules: RedactionRule[],
  path: string,
  matches: TreeMatch[],
  maxChars: number,
): Promise<{ matches: TreeMatch[]; redactions: number }> {
  if (!matches.some((m) => m.context_before?.length || m.context_after?.length)) return { matches, redactions: 0 };
  const first = Math.min(...matches.map((m) => m.line - (m.context_before?.length ?? 0)));
  const last = Math.max(...matches.map((m) => m.line + (m.context_after?.length ?? 0)));
  const seen = matches.flatMap((m) => [...(m.context_before ?? []), ...(m.context_after ?? [])]).join('\n');
  const keyLines = await secretLinesAround(path, first, last, seen);
  let redactions = 0;
  const out: TreeMatch[] = [];
  for (const m of matches) {
    const before: string[] = [];
    const after: string[] = [];
    const nb = m.context_before?.length ?? 0;
    for (const [i, t] of (m.context_before ?? []).entries()) {
      const r = await maskedContextLine(rules, path, m.line - nb + i, t, maxChars, keyLines);
      redactions += r.count;
      before.push(r.text);
    }
    for (const [i, t] of (m.context_after ?? []).entries()) {
      const r = await maskedContextLine(rules, path, m.line + 1 + i, t, maxChars, keyLines);
      redactions += r.count;
      after.push(r.text);
    }
    out.push(m.context_before ? { ...m, context_before: before, context_after: after } : m);
  }
  return { matches: out, redactions };
}

/** Matches of one answer grouped by file, in order. */
function byFile(matches: TreeMatch[]): Map<string, TreeMatch[]> {
  const groups = new Map<string, TreeMatch[]>();
  for (const m of matches) {
    const g = groups.get(m.path);
    if (g) g.push(m);
    else groups.set(m.path, [m]);
  }
  return groups;
}

/** The visible matches of a directory search answer `r` (of the directory r.path), and the counts recomputed on them. */
export async function visibleTreeAnswer(
  rules: RedactionRule[],
  input: SearchInput,
  r: SearchTreeOutput,
  pinning: { refuseLinks: boolean },
): Promise<SearchTreeOutput & { redactions: number }> {
  const maxChars = input.max_line_chars ?? DEFAULT_MAX_LINE_CHARS;
  const matches: TreeMatch[] = [];
  const files: { path: string; count: number; etag: string | null }[] = [];
  let redactions = 0;
  const searched = new Map(r.files.map((f) => [f.path, f.etag]));
  for (const [rel, group] of byFile(r.matches)) {
    const shown = await withPinnedFile(
      join(r.path, rel),
      async (pinned) => {
        const seen = await visibleMatches(rules, pinned, input, group);
        const ctx = await visibleContext(rules, pinned, seen.matches, maxChars);
        // The search's version, if the file is still it as its lines are redacted (else they may not be what was searched).
        const etag = searched.get(rel) ?? null;
        return { matches: ctx.matches, redactions: seen.redactions + ctx.redactions, etag: etag === etagOf(statRegularFile(pinned)) ? etag : null };
      },
      pinning,
    ).catch(() => ({ matches: [] as TreeMatch[], redactions: 0, etag: null })); // swapped or gone since the walk: not shown
    if (!shown.matches.length) continue;
    matches.push(...shown.matches);
    files.push({ path: rel, count: shown.matches.length, etag: shown.etag });
    redactions += shown.redactions;
  }
  return { ...r, matches, files, count: matches.length, redactions };
}

/** count_only for an agent over a directory: per-file counts of the lines whose redacted text matches. */
export async function visibleTreeCount(
  rules: RedactionRule[],
  input: SearchInput,
  search: (input: SearchInput) => Promise<SearchTreeOutput>,
  pinning: { refuseLinks: boolean },
): Promise<SearchTreeOutput & { redactions: number }> {
  const asked = { ...input, count_only: false, context: undefined, max: COUNT_PAGE_MATCHES };
  const counts = new Map<string, number>();
  let filesSearched = 0;
  let bytesSearched = 0;
  let page = await search(asked);
  for (let pages = 1; ; pages++) {
    // A page resumed from a cursor searches the cursor's file again (its rest): count that file once.
    filesSearched += pages === 1 ? page.files_searched : Math.max(0, page.files_searched - 1);
    bytesSearched += page.bytes_searched;
    const seen = await visibleTreeAnswer(rules, asked, page, pinning);
    for (const f of seen.files) counts.set(f.path, (counts.get(f.path) ?? 0) + f.count);
    const more = page.truncated && page.next_cursor !== null;
    if (!more || pages >= COUNT_MAX_PAGES) {
      // Counted over several pages, each its own moment: no one version to give.
      const files = [...counts].map(([path, count]) => ({ path, count, etag: null }));
      return {
        ...page,
        matches: [],
        files,
        count: files.reduce((n, f) => n + f.count, 0),
        files_searched: filesSearched,
        bytes_searched: bytesSearched,
        truncated: more,
        next_cursor: more ? page.next_cursor : null,
        redactions: 0,
      };
    }
    page = await search({ ...asked, cursor: page.next_cursor! });
  }
}
