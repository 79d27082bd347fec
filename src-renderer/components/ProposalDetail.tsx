import { useMemo, useState } from 'react';
import type { ReviewJournalEntry, ReviewProposal } from '../../src-main/api/schemas.ts';
import type { ChangeStop } from '../model/change-order.ts';
import { conflictTextOf, linesLabelOf } from '../model/conflict-text.ts';
import { decisionUnitsOf, diffSidesOfChange } from '../model/proposal-edits.ts';
import type { ReviewKeyAction } from '../model/review-keys.ts';
import { loadThreeWay, resolveThreeWay, type ThreeWay } from '../stores/review-flow.ts';
import type { ApproveHow } from '../stores/review-store.ts';
import { DiffPreview } from './DiffPreview.tsx';
import { HunkList } from './HunkList.tsx';
import { ProposalEditor } from './ProposalEditor.tsx';
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
  // The edited text while the editor is open (with the region it replaces); null when showing the diff. It outlives a conflict.
  const [edited, setEdited] = useState<string | null>(null);
  const [editBase, setEditBase] = useState<ThreeWay | null>(null);
  const [threeWay, setThreeWay] = useState(false);
  // Another proposal: its own state. Not a remount by key, which would recreate the diff editor for each
  // proposal stepped through (Monaco then warns of leaking listeners after a few dozen).
  const [shownId, setShownId] = useState(proposal.id);
  if (shownId !== proposal.id) {
    setShownId(proposal.id);
    setEdited(null);
    setEditBase(null);
    setThreeWay(false);
  }
  const conflict = conflictTextOf(proposal, history);
  const pending = proposal.status === 'pending';
  const change = proposal.change;
  const units = useMemo(() => decisionUnitsOf(proposal), [proposal]);
  const sides = useMemo(() => diffSidesOfChange(proposal), [proposal]);
  const fileOp = change.kind === 'move' || change.kind === 'delete';
  const perHunk = change.per_hunk;
  const unitStop = (hunk: number | null, startLine: number): ChangeStop => ({ proposalId: proposal.id, hunk, startLine });
  const hunkStop = (hunk: number): ChangeStop => unitStop(hunk, units.find((u) => u.hunk === hunk)?.startLine ?? 1);
  // Edit-then-approve, for every kind: the proposal's region now with its hunks in, written over that region of the version read.
  const startEdit = () =>
    void loadThreeWay(proposal).then((base) => {
      setEditBase(base);
      setEdited(base.content);
    });
  const language = languageOfProposalFile(proposal.path);
  return (
    <section className="proposal-detail" data-testid="proposal-detail" data-proposal-id={proposal.id} aria-label={`Proposal ${proposal.id}`}>
      <h3>
        {proposal.path} <small data-testid="proposal-label">{change.label}</small>
      </h3>
      <p className="proposal-meta muted">
        {proposal.id} · by {proposal.actor.name} ({proposal.actor.kind}){proposal.group ? ` · file ${proposal.group.index + 1} of ${proposal.group.of}` : ''}
      </p>
      {conflict && (
        <ConflictBox
          conflict={conflict}
          proposal={proposal}
          busy={busy}
          editing={edited !== null}
          onApplyCurrent={() => onApprove({ current: true })}
          onThreeWay={() => setThreeWay(true)}
        />
      )}
      {units.length > 0 && (
        <HunkList
          units={units}
          perHunk={perHunk}
          focusedHunk={focus?.proposalId === proposal.id ? focus.hunk : null}
          busy={busy}
          decidable={pending}
          keys={keys}
          onShow={(u) => onShow(unitStop(u.hunk, u.startLine))}
          onAccept={(hunk) => onApprove({ hunks: [hunk] }, hunkStop(hunk))}
          onReject={(hunk) => onReject([hunk], hunkStop(hunk))}
        />
      )}
      {edited === null ? <DiffPreview sides={sides} language={language} /> : <ProposalEditor initialText={edited} onChange={setEdited} language={language} />}
      {edited !== null && (
        <EditedActions proposal={proposal} edited={edited} editBase={editBase} busy={busy} pending={pending} onDone={() => setEdited(null)} />
      )}
      {edited === null && (
        <DecisionForm
          busy={busy}
          pending={pending}
          perHunk={perHunk}
          editable={proposal.status !== 'applied' && !fileOp}
          reason={reason}
          keys={keys}
          onReason={onReason}
          onApprove={() => onApprove({})}
          onEdit={startEdit}
          onReject={() => onReject()}
        />
      )}
      {threeWay && <ThreeWayView proposal={proposal} busy={busy} onClose={() => setThreeWay(false)} />}
    </section>
  );
}

/** The conflict told plainly, with the ways out: apply to the current file, or resolve in the 3-way view. */
function ConflictBox({
  conflict,
  proposal,
  busy,
  editing,
  onApplyCurrent,
  onThreeWay,
}: {
  conflict: NonNullable<ReturnType<typeof conflictTextOf>>;
  proposal: ReviewProposal;
  busy: boolean;
  editing: boolean;
  onApplyCurrent(): void;
  onThreeWay(): void;
}) {
  return (
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
          disabled={busy || editing}
          title="Write the agent's edit over its lines as they are now: works when they are unchanged"
          onClick={onApplyCurrent}
        >
          Apply to current file
        </button>
        <button
          type="button"
          data-testid="open-three-way"
          disabled={busy}
          onClick={onThreeWay}
          title="What the agent saw, what the file has now, what it proposed: edit and approve"
        >
          Resolve in 3-way view
        </button>
      </div>
    </div>
  );
}

/** While editing: approve (or apply) the edited text over its region, copy it, or go back to the diff. */
function EditedActions({
  proposal,
  edited,
  editBase,
  busy,
  pending,
  onDone,
}: {
  proposal: ReviewProposal;
  edited: string;
  editBase: ThreeWay | null;
  busy: boolean;
  pending: boolean;
  onDone(): void;
}) {
  return (
    <div className="decision">
      <button
        type="button"
        className="approve"
        data-testid="approve-edited"
        disabled={busy || editBase === null}
        title={editBase ? `Write your text over ${linesLabelOf(editBase.region.startLine, editBase.region.endLine)} of the file as it is now` : undefined}
        onClick={() => {
          if (!editBase) return;
          void resolveThreeWay(proposal, edited, editBase.region, editBase.now.etag).then((ok) => ok && onDone());
        }}
      >
        {pending ? 'Approve edited' : 'Apply edited to current file'}
      </button>
      <button type="button" data-testid="copy-edited" onClick={() => void navigator.clipboard?.writeText(edited)} title="Copy your text">
        Copy
      </button>
      <button type="button" data-testid="cancel-edit" disabled={busy} onClick={onDone}>
        Back to the diff
      </button>
    </div>
  );
}

/** The decision buttons under the diff: approve, edit, reject with the reason. */
function DecisionForm({
  busy,
  pending,
  perHunk,
  editable,
  reason,
  keys,
  onReason,
  onApprove,
  onEdit,
  onReject,
}: {
  busy: boolean;
  pending: boolean;
  perHunk: boolean | undefined;
  editable: boolean;
  reason: string;
  keys: Record<ReviewKeyAction, string>;
  onReason(reason: string): void;
  onApprove(): void;
  onEdit(): void;
  onReject(): void;
}) {
  return (
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
        onClick={onApprove}
        title={`Accept${perHunk ? ' every pending hunk' : ''} (${perHunk ? 'button only' : keys.accept})`}
      >
        {perHunk ? 'Accept all' : 'Approve'}
      </button>
      <button
        type="button"
        data-testid="edit"
        title="Edit the proposed text, then approve yours"
        // A delete or move has no text to edit: it is approved or rejected as it is.
        disabled={busy || !editable}
        onClick={onEdit}
      >
        Edit
      </button>
      <input data-testid="reject-reason" type="text" placeholder="Reason (optional)" value={reason} onChange={(event) => onReason(event.target.value)} />
      <button
        type="submit"
        className="reject"
        data-testid="reject"
        disabled={busy}
        title={`Reject${perHunk ? ' every pending hunk' : ''} with the reason (${perHunk ? 'button only' : keys.reject})`}
      >
        {perHunk ? 'Reject all' : 'Reject'}
      </button>
    </form>
  );
}
