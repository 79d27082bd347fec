/**
 * The text a person starts from when they resolve or edit a proposal by hand,
 * for every kind alike: the proposal's region of the file as it is now, with
 * each hunk put in where its old lines are still there, and a git-style conflict
 * block (file now / proposed) where they are not (someone changed them). What is
 * written is that text over the region's lines of the version read (review_approve
 * with if_match + lines), so edits elsewhere in the file are kept.
 */
import type { ChangeHunk, ProposalChange } from '../../src-main/api/schemas.ts';

export const MARK_NOW = '<<<<<<< file now';
export const MARK_SPLIT = '=======';
export const MARK_PROPOSED = '>>>>>>> proposed';

/** The lines of the file now that a proposal's hunks stand on, first to last (an insert alone: endLine = startLine - 1). */
export function hunkRegionOf(change: Pick<ProposalChange, 'hunks'>): { startLine: number; endLine: number } | null {
  if (change.hunks.length === 0) return null;
  return {
    startLine: Math.min(...change.hunks.map((h) => h.start_line)),
    endLine: Math.max(...change.hunks.map((h) => h.start_line + h.old_count - 1)),
  };
}

const sameAt = (lines: string[], at: number, want: string[]) => at >= 0 && at + want.length <= lines.length && want.every((w, k) => lines[at + k] === w);

/**
 * `current`: the region's lines now (line `regionStart` first). Hunks (file order)
 * are found at their line, else the nearest place after the previous one; a hunk
 * not found keeps the file's lines at its place, beside its new lines in a
 * conflict block. `grown`: lines the region gained since (an edit over it), given
 * to the first hunk not found. Returns the starting text and whether any hunk was
 * not found.
 */
export function mergedTextOf(
  hunks: Pick<ChangeHunk, 'start_line' | 'old_count' | 'old_lines' | 'new_lines' | 'status'>[],
  current: string[],
  regionStart: number,
  grown = 0,
): { lines: string[]; conflicts: number } {
  const out: string[] = [];
  let cursor = 0;
  let conflicts = 0;
  let extra = grown;
  for (const h of hunks) {
    if (h.status === 'rejected') continue;
    const expected = Math.max(cursor, h.start_line - regionStart);
    let at = -1;
    if (h.old_lines.length === 0 && h.old_count === 0) at = Math.min(expected, current.length);
    else if (sameAt(current, expected, h.old_lines)) at = expected;
    else for (let k = cursor; k + h.old_lines.length <= current.length && at < 0; k++) if (sameAt(current, k, h.old_lines)) at = k;
    if (at >= 0 && h.old_lines.length === h.old_count) {
      out.push(...current.slice(cursor, at), ...h.new_lines);
      cursor = at + h.old_count;
      continue;
    }
    // Its lines are gone: what the file has there now, beside what the agent proposed.
    const from = Math.min(expected, current.length);
    const to = Math.min(current.length, from + Math.max(0, h.old_count + extra));
    extra = 0;
    conflicts++;
    out.push(...current.slice(cursor, from), MARK_NOW, ...current.slice(from, to), MARK_SPLIT, ...h.new_lines, MARK_PROPOSED);
    cursor = to;
  }
  out.push(...current.slice(cursor));
  return { lines: out, conflicts };
}

/** The version-read side (old lines) and the proposed side (new lines) of the hunks, numbered as in the version the agent read and after. */
export function sidesOfHunks(hunks: Pick<ChangeHunk, 'old_start' | 'old_count' | 'new_count' | 'old_lines' | 'new_lines'>[]): {
  saw: { text: string; lineNos: number[] };
  proposed: { text: string; lineNos: number[] };
} {
  const saw: string[] = [];
  const sawNos: number[] = [];
  const proposed: string[] = [];
  const proposedNos: number[] = [];
  let delta = 0;
  for (const h of hunks) {
    h.old_lines.forEach((line, k) => {
      saw.push(line);
      sawNos.push(h.old_start + k);
    });
    h.new_lines.forEach((line, k) => {
      proposed.push(line);
      proposedNos.push(h.old_start + delta + k);
    });
    delta += h.new_count - h.old_count;
  }
  return { saw: { text: saw.join('\n'), lineNos: sawNos }, proposed: { text: proposed.join('\n'), lineNos: proposedNos } };
}
