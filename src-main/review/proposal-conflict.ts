/**
 * How a stale proposal becomes a conflict: which engine errors mean "the file is
 * no longer what this edit expects" (stale-codes.ts), and what the conflict says to a person and
 * to the agent.
 */
import { FolioError, isFolioError } from '../engine/errors.ts';
import { loadBytes } from './blobs.ts';
import { assignFields, nowIso, proposalOf } from './records.ts';
import { changedText, linesText, ownLinesOf } from './rebase.ts';
import type { ReviewStore } from './store.ts';
import type { Proposal, ReviewActor, StoredBytes } from './types.ts';
import { STALE_CODES } from './stale-codes.ts';

/** Range preconditions: when one of these failed, the proposal's own lines changed. */
const REGION_CHECKS = new Set(['region', 'anchors', 'expected_range_sha256', 'expected_section_sha256']);

/**
 * What a conflict says to a person and to the agent, in plain words: which of the
 * proposal's lines changed, or that the file changed elsewhere (outside the journal)
 * and its own lines may still apply to the current file.
 */
export function conflictTextOf(p: Proposal, err: FolioError): string {
  if (err.details.changed_by !== undefined) return err.message; // staleErrorOf speaks plainly already
  if (err.code !== 'precondition_failed') return err.message;
  const failed = Array.isArray(err.details.failed) ? (err.details.failed as string[]) : [];
  const lines = ownLinesOf(p);
  if (failed.some((f) => REGION_CHECKS.has(f))) return lines ? changedText(lines) : 'the lines it edits changed after the agent read them';
  const own = lines ? linesText(lines) : { text: 'the lines it edits', one: false };
  return `the file changed after the agent read it (not through Folio); if ${own.text} ${own.one ? 'is' : 'are'} unchanged, approve with current to apply it to the current file`;
}

/**
 * `err` as approve throws it: a stale proposal (the engine's stale codes) is marked
 * "conflict" first, with the reason in plain words. A person's edited text
 * (`edited`) is kept with the proposal, never lost: approving with current
 * applies it to the current file.
 */
export function staleProposal(store: ReviewStore, actor: ReviewActor, id: string, err: unknown, edited: StoredBytes | null = null): unknown {
  if (!isFolioError(err) || !STALE_CODES.has(err.code)) return err;
  const text = conflictTextOf(proposalOf(store, id), err);
  store.commit((d) =>
    assignFields(d, 'proposals', id, {
      status: 'conflict',
      decided_by: actor,
      decided_at: nowIso(),
      conflict: { ...err.details, code: err.code, message: text, ...(text !== err.message ? { engine_message: err.message } : {}) },
      ...(edited ? { edited_content: edited } : {}),
    }),
  );
  const kept = edited ? '; your edited text is kept with it: approve with current applies it to the current file' : '';
  return new FolioError(err.code, `proposal ${id}: ${text}. It is now "conflict"; nothing was written${kept}`, {
    ...err.details,
    proposal_id: id,
    status: 'conflict',
    ...(edited ? { edited_content: loadBytes(store.blobsDir, edited).toString('utf8') } : {}),
  });
}
