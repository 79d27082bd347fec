import { useState } from 'react';
import type { ReviewProposal } from '../../src-main/api/schemas.ts';
import { DiffPreview } from './DiffPreview.tsx';
import { targetLabelOf } from './QueuePanel.tsx';

/** The selected proposal: its diff, its conflict if it went stale, and the decision buttons. */
export function ProposalDetail({
  proposal,
  busy,
  onApprove,
  onReject,
}: {
  proposal: ReviewProposal;
  busy: boolean;
  onApprove(): void;
  onReject(reason: string): void;
}) {
  const [reason, setReason] = useState('');
  const conflict = proposal.conflict as { code?: string; message?: string } | null;
  return (
    <section className="proposal-detail" data-testid="proposal-detail" aria-label={`Proposal ${proposal.id}`}>
      <h3>
        {proposal.path} <small>{targetLabelOf(proposal.target)}</small>
      </h3>
      {conflict && (
        <p className="conflict" role="alert" data-testid="proposal-conflict">
          <code>{conflict.code ?? 'conflict'}</code> {conflict.message ?? ''}
        </p>
      )}
      <DiffPreview preview={proposal.preview} />
      <form
        className="decision"
        onSubmit={(event) => {
          event.preventDefault();
          onReject(reason);
        }}
      >
        <button type="button" className="approve" data-testid="approve" disabled={busy || proposal.status !== 'pending'} onClick={onApprove}>
          Approve
        </button>
        <input
          data-testid="reject-reason"
          type="text"
          placeholder="Reason (optional)"
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
        <button type="submit" className="reject" data-testid="reject" disabled={busy}>
          Reject
        </button>
      </form>
    </section>
  );
}
