/**
 * A conflicted proposal told plainly: which lines changed after the agent read
 * them, by what, and which way out fits ("apply to the current file" when only
 * the rest of the file moved; the 3-way view when its own lines changed).
 */
import type { ReviewJournalEntry, ReviewProposal } from '../../src-main/api/schemas.ts';
import { linesLabelOf, regionOf } from './proposal-edits.ts';

export { linesLabelOf };

export interface ConflictText {
  /** "Lines 51–61 changed after the agent read them." */
  headline: string;
  /** what changed them, when known: "An edit applied since (lines 55–58, by e2e-agent) changed them." */
  cause: string | null;
  /** true when the proposal's own lines changed: applying it to the current file cannot work, the 3-way view can */
  ownLinesChanged: boolean;
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function conflictTextOf(p: Pick<ReviewProposal, 'change' | 'conflict'>, history: ReviewJournalEntry[] = []): ConflictText | null {
  const c = p.conflict as { code?: string; message?: string; failed?: unknown; changed_by?: unknown } | null;
  if (!c) return null;
  const failed = Array.isArray(c.failed) ? c.failed.map(String) : [];
  const region = regionOf(p);
  const where = region ? linesLabelOf(region.startLine, region.endLine) : 'its lines';
  const own = failed.some((f) => f === 'region' || f === 'anchors' || f === 'expected_range_sha256' || f === 'expected_section_sha256' || f === 'old_text');
  if (own) {
    const entry = typeof c.changed_by === 'string' ? history.find((e) => e.id === c.changed_by) : undefined;
    const cause = entry
      ? `An edit applied since (${linesLabelOf(entry.range_after.start_line, entry.range_after.end_line)}, by ${entry.actor.name}) changed them.`
      : null;
    return {
      headline: `${capitalized(where)} changed after the agent read ${region && region.endLine > region.startLine ? 'them' : 'it'}.`,
      cause,
      ownLinesChanged: true,
    };
  }
  if (failed.length > 0) {
    return {
      headline: 'The file changed after the agent read it.',
      cause: region ? `If ${where} ${region.endLine > region.startLine ? 'are' : 'is'} as the agent saw, "Apply to current file" writes the edit there.` : null,
      ownLinesChanged: false,
    };
  }
  return { headline: c.message ? capitalized(c.message) : 'The proposal no longer applies.', cause: null, ownLinesChanged: false };
}

/**
 * Where a conflicted proposal's lines are now, after the journal entry that
 * changed them: its region grown or shrunk by that edit's line delta (the edit
 * overlapped it), or moved (the edit was before it). The 3-way view writes there.
 */
export function regionNowOf(
  region: { startLine: number; endLine: number },
  changedBy: Pick<ReviewJournalEntry, 'range_before' | 'range_after'> | null,
): { startLine: number; endLine: number } {
  if (!changedBy) return region;
  const before = changedBy.range_before;
  const delta = changedBy.range_after.end_line - changedBy.range_after.start_line - (before.end_line - before.start_line);
  if (before.start_line > region.endLine) return region;
  if (before.end_line < region.startLine) return { startLine: region.startLine + delta, endLine: region.endLine + delta };
  return { startLine: region.startLine, endLine: Math.max(region.startLine, region.endLine + delta) };
}
