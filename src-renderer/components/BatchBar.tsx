import type { ReviewProposal } from '../../src-main/api/schemas.ts';
import { call } from '../transport.ts';
import { batchSummaryOf, useReviewStore } from '../stores/review-store.ts';

/**
 * Decide every pending proposal of the selected proposal's file in one step
 * (review_batch): approvals are one write per file and one journal group, so one
 * undo takes the whole batch back. Shown when the file has two or more pending.
 */
export function BatchBar({ queue, selected }: { queue: ReviewProposal[]; selected: ReviewProposal | null }) {
  const { busy, reason, perform } = useReviewStore();
  if (!selected) return null;
  const pending = queue.filter((p) => p.path === selected.path && p.status === 'pending').length;
  if (pending < 2) return null;
  const name = selected.path.split(/[\\/]/).pop();
  const decide = (decision: 'approve' | 'reject') =>
    void perform(async () => {
      const r = await call('review_batch', { decision, path: selected.path, ...(decision === 'reject' && reason.trim() ? { reason: reason.trim() } : {}) });
      return `${name}: ${batchSummaryOf(r)}`;
    });
  return (
    <div className="batch-bar" data-testid="batch-bar" role="group" aria-label={`All pending proposals of ${name}`}>
      <span>
        {pending} pending in {name}
      </span>
      <button
        type="button"
        className="approve"
        data-testid="batch-approve"
        disabled={busy}
        onClick={() => decide('approve')}
        title="Approve them all: one write, one undo"
      >
        Approve all
      </button>
      <button type="button" data-testid="batch-reject" disabled={busy} onClick={() => decide('reject')} title="Reject them all, with the reason typed below">
        Reject all
      </button>
    </div>
  );
}
