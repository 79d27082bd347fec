import { useState } from 'react';
import type { ReviewJournalEntry, ReviewProposal } from '../../src-main/api/schemas.ts';
import type { ChangeStop } from '../model/change-order.ts';
import { conflictTextOf } from '../model/conflict-text.ts';
import { lineEditsOf } from '../model/proposal-edits.ts';
import type { ReviewKeyAction } from '../model/review-keys.ts';
import type { ApproveHow } from '../stores/review-store.ts';
import { DiffPreview } from './DiffPreview.tsx';
import { HunkList } from './HunkList.tsx';
import { ProposalEditor } from './ProposalEditor.tsx';
import { targetLabelOf } from './QueuePanel.tsx';
import { ThreeWayView } from './ThreeWayView.tsx';
import { languageOfProposalFile } from './use-file-language.ts';

/**
 * The selected proposal: its metadata, its hunks (several edits), its conflict
 * told plainly with the ways out, its diff (or its content in an editor, to edit
 * before approving) and the decision buttons, each naming its keys. The diff
 * itself is drawn in the file view; the panel keeps a compact copy.
 */
export function ProposalDetail({
  proposal,
  history,
  busy,
  reason,
  focus,
  keys,
  onReason,
  onApprove,
  onReject,
  onShow,
}: {
  proposal: ReviewProposal;
  history: ReviewJournalEntry[];
  busy: boolean;
  reason: string;
  focus: ChangeStop | null;
  keys: Record<ReviewKeyAction, string>;
  onReason(reason: string): void;
  onApprove(how: ApproveHow, stop?: ChangeStop): void;
  /** hunks: only these edits */
  onReject(hunks?: number[], stop?: ChangeStop): void;
  onShow(stop: ChangeStop): void;
}) {
  // The edited text while the editor is open; null when showing the diff. It outlives a conflict.
  const [edited, setEdited] = useState<string | null>(null);
  const [threeWay, setThreeWay] = useState(false);
  // Another proposal: its own state. Not a remount by key, which would recreate the diff editor for each
  // proposal stepped through (Monaco then warns of leaking listeners after a few dozen).
  const [shownId, setShownId] = useState(proposal.id);
  if (shownId !== proposal.id) {
    setShownId(proposal.id);
    setEdited(null);
    setThreeWay(false);
  }
  const conflict = conflictTextOf(proposal, history);
  const pending = proposal.status === 'pending';
  const edits = lineEditsOf(proposal);
  const language = languageOfProposalFile(proposal.path);
  const several = (proposal.targets?.length ?? proposal.quoted?.length ?? 1) > 1;
  const hunkStop = (hunk: number): ChangeStop => ({ proposalId: proposal.id, hunk, startLine: edits?.find((e) => e.hunk === hunk)?.startLine ?? 1 });
  return (
    <section className="proposal-detail" data-testid="proposal-detail" data-proposal-id={proposal.id} aria-label={`Proposal ${proposal.id}`}>
      <h3>
        {proposal.path} <small>{targetLabelOf(proposal.target)}</small>
      </h3>
      <p className="proposal-meta muted">
        {proposal.id} · by {proposal.actor.name} ({proposal.actor.kind}){several ? ` · ${proposal.targets?.length ?? proposal.quoted?.length} hunks` : ''}
      </p>
      {conflict && (
        <div className="conflict-box" role="alert" data-testid="proposal-conflict">
          <p className="conflict" data-testid="conflict-text">
            {conflict.headline} {conflict.cause}
          </p>
          <details>
            <summary>Details</summary>
            <code>{String(proposal.conflict?.code ?? 'conflict')}</code> {String(proposal.conflict?.message ?? '')}
          </details>
          <div className="decision">
            <button
              type="button"
              className={conflict.ownLinesChanged ? undefined : 'approve'}
              data-testid="apply-current"
              disabled={busy || edited !== null}
              title="Write the agent's edit over its lines as they are now: works when they are unchanged"
              onClick={() => onApprove({ current: true })}
            >
              Apply to current file
            </button>
            <button
              type="button"
              data-testid="open-three-way"
              disabled={busy || proposal.content === undefined || several}
              onClick={() => setThreeWay(true)}
              title="What the agent saw, what the file has now, what it proposed: edit and approve"
            >
              Resolve in 3-way view
            </button>
          </div>
        </div>
      )}
      {several && edits && (
        <HunkList
          edits={edits}
          focusedHunk={focus?.proposalId === proposal.id ? focus.hunk : null}
          busy={busy}
          decidable={pending}
          keys={keys}
          onShow={(e) => onShow(hunkStop(e.hunk!))}
          onAccept={(hunk) => onApprove({ hunks: [hunk] }, hunkStop(hunk))}
          onReject={(hunk) => onReject([hunk], hunkStop(hunk))}
        />
      )}
      {edited === null ? (
        <DiffPreview preview={proposal.preview} language={language} />
      ) : (
        <ProposalEditor initialText={edited} onChange={setEdited} language={language} />
      )}
      {edited !== null && (
        <div className="decision">
          {pending ? (
            <button type="button" className="approve" data-testid="approve-edited" disabled={busy} onClick={() => onApprove({ content: edited })}>
              Approve edited
            </button>
          ) : (
            <button
              type="button"
              className="approve"
              data-testid="approve-edited-current"
              disabled={busy}
              onClick={() => onApprove({ content: edited, current: true })}
              title="Write your text over the proposal's lines as they are now"
            >
              Apply edited to current file
            </button>
          )}
          <button type="button" data-testid="copy-edited" onClick={() => void navigator.clipboard?.writeText(edited)} title="Copy your text">
            Copy
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
            onReject();
          }}
        >
          <button
            type="button"
            className="approve"
            data-testid="approve"
            disabled={busy || !pending}
            onClick={() => onApprove({})}
            title={`Accept${several ? ' every pending hunk' : ''} (${several ? 'button only' : keys.accept})`}
          >
            {several ? 'Accept all' : 'Approve'}
          </button>
          <button
            type="button"
            data-testid="edit"
            title="Edit the proposed text, then approve yours"
            // review_show brings the content; the queue's copy of the proposal has none. Several edits take no edited text.
            disabled={busy || proposal.status === 'applied' || proposal.content === undefined || several}
            onClick={() => setEdited(proposal.content ?? '')}
          >
            Edit
          </button>
          <input data-testid="reject-reason" type="text" placeholder="Reason (optional)" value={reason} onChange={(event) => onReason(event.target.value)} />
          <button
            type="submit"
            className="reject"
            data-testid="reject"
            disabled={busy}
            title={`Reject${several ? ' every pending hunk' : ''} with the reason (${several ? 'button only' : keys.reject})`}
          >
            {several ? 'Reject all' : 'Reject'}
          </button>
        </form>
      )}
      {threeWay && <ThreeWayView proposal={proposal} busy={busy} onClose={() => setThreeWay(false)} />}
    </section>
  );
}
