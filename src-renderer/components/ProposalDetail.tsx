import { useState } from 'react';
import type { ReviewProposal } from '../../src-main/api/schemas.ts';
import { approveQuestionOf } from '../model/replaced-lines.ts';
import { ConfirmApproveDialog } from './ConfirmApproveDialog.tsx';
import { DiffPreview } from './DiffPreview.tsx';
import { ProposalEditor } from './ProposalEditor.tsx';
import { targetLabelOf } from './QueuePanel.tsx';

/** An approve waiting for the person's answer: with the edited text, or the agent's (undefined). */
interface PendingApprove {
  content: string | undefined;
  question: string;
}

/**
 * The selected proposal: its diff (or its content in an editor, to edit before
 * approving), its conflict if it went stale, and the decision buttons. A big edit
 * asks before it is approved.
 */
export function ProposalDetail({
  proposal,
  busy,
  onApprove,
  onReject,
}: {
  proposal: ReviewProposal;
  busy: boolean;
  /** content: the person's text instead of the agent's (edit-then-approve) */
  onApprove(content?: string): void;
  onReject(reason: string): void;
}) {
  const [reason, setReason] = useState('');
  // The edited text while the editor is open; null when showing the diff.
  const [edited, setEdited] = useState<string | null>(null);
  const [asking, setAsking] = useState<PendingApprove | null>(null);
  const conflict = proposal.conflict as { code?: string; message?: string } | null;
  const pending = proposal.status === 'pending';
  const approve = (content: string | undefined) => {
    const question = approveQuestionOf(proposal.target, proposal.preview);
    if (question) setAsking({ content, question });
    else onApprove(content);
  };
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
      {edited === null ? <DiffPreview preview={proposal.preview} /> : <ProposalEditor initialText={edited} onChange={setEdited} />}
      {edited !== null && (
        <div className="decision">
          <button type="button" className="approve" data-testid="approve-edited" disabled={busy || !pending} onClick={() => approve(edited)}>
            Approve edited
          </button>
          <button type="button" data-testid="cancel-edit" disabled={busy} onClick={() => setEdited(null)}>
            Back to the diff
          </button>
        </div>
      )}
      {edited === null && (
        <form
          className="decision"
          onSubmit={(event) => {
            event.preventDefault();
            onReject(reason);
          }}
        >
          <button type="button" className="approve" data-testid="approve" disabled={busy || !pending} onClick={() => approve(undefined)}>
            Approve
          </button>
          <button
            type="button"
            data-testid="edit"
            title="Edit the proposed text, then approve yours"
            // review_show brings the content; the queue's copy of the proposal has none.
            disabled={busy || !pending || proposal.content === undefined}
            onClick={() => setEdited(proposal.content ?? '')}
          >
            Edit
          </button>
          <input data-testid="reject-reason" type="text" placeholder="Reason (optional)" value={reason} onChange={(event) => setReason(event.target.value)} />
          <button type="submit" className="reject" data-testid="reject" disabled={busy}>
            Reject
          </button>
        </form>
      )}
      {asking && (
        <ConfirmApproveDialog
          question={asking.question}
          onCancel={() => setAsking(null)}
          onApprove={() => {
            setAsking(null);
            onApprove(asking.content);
          }}
        />
      )}
    </section>
  );
}
