/**
 * How many existing lines a proposal replaces or deletes, to ask before a big
 * one is approved. Line targets say it themselves (1-based, inclusive); byte
 * targets are counted from the preview's removed lines. A preview too big to
 * diff (a summary) gives null: the count is unknown, and big by construction.
 */
import type { UpsertTarget } from '../../src-main/api/schemas.ts';
import { diffSidesOf } from './unified-diff.ts';

/** Approving a proposal that replaces more lines than this asks first. */
export const CONFIRM_ABOVE_LINES = 50;

export function replacedLineCountOf(target: UpsertTarget, preview: string): number | null {
  if ('append' in target || 'insert' in target) return 0;
  if (!('whole_file' in target)) {
    const range = 'replace' in target ? target.replace : target.delete;
    if ((range.units ?? 'lines') === 'lines') return range.end - range.start + 1;
  }
  if (diffSidesOf(preview).summaryOnly) return null;
  let removed = 0;
  let inHunk = false;
  for (const line of preview.split('\n')) {
    if (line.startsWith('@@')) inHunk = true;
    else if (inHunk && line.startsWith('-')) removed++;
  }
  return removed;
}

/** The question to ask before approving, or null when the edit is small enough to apply at once. */
export function approveQuestionOf(target: UpsertTarget, preview: string): string | null {
  const lines = replacedLineCountOf(target, preview);
  if (lines !== null && lines <= CONFIRM_ABOVE_LINES) return null;
  const verb = 'delete' in target ? 'deletes' : 'replaces';
  return lines === null ? `This ${verb} a region too big to preview. Approve?` : `This ${verb} ${lines} lines. Approve?`;
}
