import type { ReviewProposal } from '../../src-main/api/schemas.ts';
import { isSameFile } from '../model/change-order.ts';
import { inlineChangesOf } from '../model/proposal-edits.ts';
import { keyLabelsOf } from '../model/review-keys.ts';
import { requestApprove, requestReject } from '../stores/review-flow.ts';
import { useReviewStore } from '../stores/review-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';

const KEYS = keyLabelsOf(/Mac|iPhone|iPad/.test(navigator.platform));

/** The selected proposal when it is a file-level change (create, delete, move) of the open file. */
export function useFileChangeOf(): ReviewProposal | null {
  const selected = useReviewStore((s) => s.selected);
  const path = useViewerStore((s) => s.path);
  if (!selected || selected.change.kind === 'edit' || !isSameFile(path, selected.path)) return null;
  return selected;
}

function DecisionButtons({ p, busy }: { p: ReviewProposal; busy: boolean }) {
  const stop = { proposalId: p.id, hunk: null, startLine: 1 };
  return (
    <>
      <button
        type="button"
        className="folio-inline-button inline-accept"
        data-testid="inline-accept"
        disabled={busy || p.status !== 'pending'}
        title={`Accept: ${p.change.label} (${KEYS.accept})`}
        onClick={() => void requestApprove(p.id, {}, stop)}
      >
        Accept
      </button>
      <button
        type="button"
        className="folio-inline-button inline-reject"
        data-testid="inline-reject"
        disabled={busy}
        title={`Reject: ${p.change.label} (${KEYS.reject})`}
        onClick={() => void requestReject(p.id, undefined, stop)}
      >
        Reject
      </button>
    </>
  );
}

/**
 * What happens to the open file as a whole ("move a.ts → b.ts", "delete",
 * "create"), over the file view. When no hunk carries the decision inline (a move
 * that keeps the content), the banner has Accept and Reject.
 */
export function ChangeBanner() {
  const p = useFileChangeOf();
  const busy = useReviewStore((s) => s.busy);
  if (!p) return null;
  const inlineHunks = p.change.hunks.some((h) => h.status === 'pending');
  return (
    <div className="change-banner" role="status" data-testid="change-banner" data-proposal-id={p.id}>
      <span data-testid="change-banner-label">{p.change.label}</span> <small>by {p.actor.name}</small>
      {!inlineHunks && <DecisionButtons p={p} busy={busy} />}
    </div>
  );
}

/**
 * A create whose file is not there yet: its lines as the new file would have
 * them, all added, with the decision (the file view has no file to draw on).
 */
export function ProposedFile({ p }: { p: ReviewProposal }) {
  const busy = useReviewStore((s) => s.busy);
  const added = inlineChangesOf(p).flatMap((c) => c.added);
  return (
    <section className="proposed-file" data-testid="proposed-file" aria-label={`${p.change.label}: ${p.path}`}>
      <div className="folio-inline-zone focused" data-testid="inline-zone" data-proposal-id={p.id}>
        <div className="folio-inline-toolbar">
          <span className="folio-inline-title">
            {p.id} · {p.change.label} · {p.path} · by {p.actor.name}
          </span>
          <DecisionButtons p={p} busy={busy} />
        </div>
      </div>
      <ol className="proposed-file-lines" data-testid="inline-added">
        {added.map((line, i) => (
          <li key={i} className="folio-inline-added">
            {line === '' ? '\u00a0' : line}
          </li>
        ))}
      </ol>
    </section>
  );
}
