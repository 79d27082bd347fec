/**
 * Where a patch's hunks go in a file's lines (patch-parse.ts gives the hunks):
 * each becomes a replacement of whole lines on the version read, which the caller
 * sends as one all-or-nothing upsert guarded by that version.
 *
 * Old lines are looked for as Codex's seek_sequence does, with falling strictness:
 * exactly, then ignoring trailing whitespace, then in their loose form (indentation,
 * runs of blanks and look-alike punctuation ignored: loose-match.ts). A hunk found
 * only loosely says so in `loose`, and its new lines take the file's indentation.
 *
 * Unlike Codex and Aider, which take the first place that matches, a hunk that
 * matches in several places is `ambiguous_match`, unless the format says which:
 * - codex: hunks go in file order after the previous one; an `@@ line` header puts
 *   the hunk after the first such line (then the first match after it is meant);
 *   `*** End of File` anchors it at the end; a hunk of added lines only goes at the end;
 * - unified: the match nearest the line number of its @@ header;
 * - search_replace: the block must match once in the whole file.
 */
import { FolioError } from '../errors.ts';
import { differencesOf, looseForm, reindent, type LooseDifference } from './loose-match.ts';
import type { PatchFormat, PatchHunk } from './patch-parse.ts';

export interface LineReplacement {
  /** 0-based index of the first old line */
  start: number;
  oldCount: number;
  newLines: string[];
  /** the hunk (0-based) */
  hunk: number;
  /** found only loosely: how the hunk's old lines differ from the file's */
  loose?: LooseDifference[];
  /** where the hunk's old lines were found (0-based first line, count) */
  found: { start: number; count: number };
}

type Level = (s: string) => string;
const LEVELS: Level[] = [(s) => s, (s) => s.trimEnd(), looseForm];

function matchesAt(lines: string[], pattern: string[], i: number, level: Level): boolean {
  for (let k = 0; k < pattern.length; k++) if (level(lines[i + k]!) !== level(pattern[k]!)) return false;
  return true;
}

/** Every start >= from where `pattern` matches at the first level that matches anywhere there, with that level's index. */
function matchesOf(lines: string[], pattern: string[], from: number): { at: number[]; level: number } {
  for (let level = 0; level < LEVELS.length; level++) {
    const at: number[] = [];
    for (let i = from; i + pattern.length <= lines.length; i++) if (matchesAt(lines, pattern, i, LEVELS[level]!)) at.push(i);
    if (at.length) return { at, level };
  }
  return { at: [], level: -1 };
}

const lineList = (at: number[], len: number) => at.map((i) => (len > 1 ? `${i + 1}-${i + len}` : `${i + 1}`)).join(', ');

/**
 * The replacements of `hunks` in `lines` (the file's lines without their newlines),
 * in file order. no_match when a hunk's old lines (or its context line) are not in
 * the file; ambiguous_match when they are in several places the format does not
 * choose between; invalid_input when two hunks overlap.
 */
export function resolveHunks(lines: string[], hunks: PatchHunk[], format: PatchFormat, path: string): LineReplacement[] {
  const out: LineReplacement[] = [];
  let cursor = 0;
  for (const [h, hunk] of hunks.entries()) {
    const where = `hunk ${h + 1} of ${path}`;
    let from = format === 'codex' ? cursor : 0;
    let anchored = false;
    if (hunk.context !== undefined) {
      const ctx = matchesOf(lines, [hunk.context], from);
      if (!ctx.at.length) {
        throw new FolioError('no_match', `${where}: its @@ line '${hunk.context}' is not in the file${from ? ` after line ${from}` : ''}`, {
          path,
          hunk: h + 1,
          context: hunk.context,
        });
      }
      from = ctx.at[0]! + 1;
      anchored = true;
    }
    if (hunk.old.length === 0) {
      // Added lines only: at the end (codex), or of a created/empty file (search_replace), or at the header's line (unified).
      const at = format === 'unified' && hunk.line !== undefined ? Math.min(Math.max(hunk.line - 1, 0), lines.length) : lines.length;
      out.push({ start: at, oldCount: 0, newLines: hunk.new, hunk: h, found: { start: at, count: 0 } });
      continue;
    }
    let old = hunk.old;
    let neu = hunk.new;
    let found = findHunk(lines, old, from, hunk, format, anchored, where, path, h);
    if (!found && old[old.length - 1] === '' && neu[neu.length - 1] === '') {
      // A blank line closing the hunk is often the patch's, not the file's (Codex retries without it too).
      old = old.slice(0, -1);
      neu = neu.slice(0, -1);
      if (old.length) found = findHunk(lines, old, from, hunk, format, anchored, where, path, h);
    }
    if (!found) {
      throw new FolioError(
        'no_match',
        `${where}: its ${old.length} old line(s) are not in the file${format === 'codex' && from ? ` after line ${from}` : ''}`,
        {
          path,
          hunk: h + 1,
          old_lines: old.slice(0, 20),
        },
      );
    }
    const { start, level } = found;
    const fileLines = lines.slice(start, start + old.length);
    const differs = level > 0 ? differencesOf(old, fileLines) : [];
    const loose = level > 0 ? { loose: differs.length ? differs : (['trailing_whitespace'] as LooseDifference[]) } : {};
    // Only the lines the hunk changes are replaced: its context lines stay as the file has them.
    for (const c of changedRuns(old, neu)) {
      const newLines = differs.includes('indentation') && c.newLines.length ? reindent(c.newLines.join('\n'), old, fileLines).split('\n') : c.newLines;
      out.push({ start: start + c.at, oldCount: c.oldCount, newLines, hunk: h, found: { start, count: old.length }, ...loose });
    }
    cursor = start + old.length;
  }
  out.sort((a, b) => a.start - b.start || a.hunk - b.hunk);
  for (let i = 1; i < out.length; i++) {
    const [a, b] = [out[i - 1]!, out[i]!];
    if (b.start < a.start + a.oldCount) {
      throw new FolioError('invalid_input', `hunks ${a.hunk + 1} and ${b.hunk + 1} of ${path} change the same lines (${b.start + 1}): merge them into one`, {
        path,
        hunks: [a.hunk + 1, b.hunk + 1],
      });
    }
  }
  return out;
}

function findHunk(
  lines: string[],
  old: string[],
  from: number,
  hunk: PatchHunk,
  format: PatchFormat,
  anchored: boolean,
  where: string,
  path: string,
  h: number,
): { start: number; level: number } | null {
  if (hunk.eof && lines.length >= old.length) {
    const end = lines.length - old.length;
    for (let level = 0; level < LEVELS.length; level++) if (matchesAt(lines, old, end, LEVELS[level]!)) return { start: end, level };
  }
  if (format === 'unified' && hunk.line !== undefined) {
    const hint = hunk.line - 1;
    if (hint >= 0 && hint + old.length <= lines.length && matchesAt(lines, old, hint, LEVELS[0]!)) return { start: hint, level: 0 };
  }
  const m = matchesOf(lines, old, from);
  if (!m.at.length) return null;
  if (m.at.length === 1 || anchored) return { start: m.at[0]!, level: m.level };
  if (format === 'unified' && hunk.line !== undefined) {
    const hint = hunk.line - 1;
    const dist = m.at.map((i) => Math.abs(i - hint));
    const best = Math.min(...dist);
    if (dist.filter((d) => d === best).length === 1) return { start: m.at[dist.indexOf(best)]!, level: m.level };
  }
  const shown = m.at.slice(0, 10);
  throw new FolioError(
    'ambiguous_match',
    `${where}: its old lines match at lines ${lineList(shown, old.length)}${m.at.length > shown.length ? ' …' : ''}; ` +
      (format === 'codex' ? "add context lines, or an '@@ line' naming the enclosing function or class" : 'add context lines so that it matches once'),
    { path, hunk: h + 1, lines: shown.map((i) => ({ start_line: i + 1, end_line: i + old.length })), count: m.at.length },
  );
}

/** Largest old × new lines a hunk is diffed over; beyond, only its common first and last lines are left out. */
const MAX_DIFF_CELLS = 4_000_000;

/**
 * The runs of a hunk's lines that change (by a longest common subsequence of its
 * old and new lines): each at its offset in the old lines, with the old lines it
 * replaces and the new ones. A hunk that changes nothing has none.
 */
export function changedRuns(old: string[], neu: string[]): { at: number; oldCount: number; newLines: string[] }[] {
  let head = 0;
  while (head < old.length && head < neu.length && old[head] === neu[head]) head++;
  let tail = 0;
  while (tail < old.length - head && tail < neu.length - head && old[old.length - 1 - tail] === neu[neu.length - 1 - tail]) tail++;
  const a = old.slice(head, old.length - tail);
  const b = neu.slice(head, neu.length - tail);
  if (a.length === 0 && b.length === 0) return [];
  if (a.length === 0 || b.length === 0 || a.length * b.length > MAX_DIFF_CELLS) return [{ at: head, oldCount: a.length, newLines: b }];
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
  const runs: { at: number; oldCount: number; newLines: string[] }[] = [];
  let run: { at: number; oldCount: number; newLines: string[] } | null = null;
  const open = (i: number) => (run ??= { at: head + i, oldCount: 0, newLines: [] });
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      if (run) runs.push(run);
      run = null;
      i++;
      j++;
    } else if (j < b.length && (i === a.length || lcs[i * w + j + 1]! >= lcs[(i + 1) * w + j]!)) {
      open(i).newLines.push(b[j++]!);
    } else {
      open(i).oldCount++;
      i++;
    }
  }
  if (run) runs.push(run);
  return runs;
}
