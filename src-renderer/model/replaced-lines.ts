/**
 * How many existing lines a proposal replaces or deletes, to ask before a big
 * one is approved: counted from its change model's pending hunks (a hunk too big
 * to carry its lines still says how many), so a rename or a small create asks
 * nothing whatever the agent's target was.
 */
import type { ReviewProposal } from '../../src-main/api/schemas.ts';
import { replacedLineCountOf } from './proposal-edits.ts';

/** Approving a proposal that replaces more lines than this asks first. */
export const CONFIRM_ABOVE_LINES = 50;

export { replacedLineCountOf };

/** The question to ask before approving (it names the change), or null when the edit is small enough to apply at once. */
export function approveQuestionOf(p: Pick<ReviewProposal, 'change'>): string | null {
  const lines = replacedLineCountOf(p);
  if (lines <= CONFIRM_ABOVE_LINES) return null;
  const verb = p.change.kind === 'delete' || p.change.hunks.every((h) => h.new_count === 0) ? 'deletes' : 'replaces';
  return `${p.change.label}: this ${verb} ${lines} lines. Approve?`;
}
