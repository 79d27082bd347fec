import { useEffect, useMemo, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { sessionStopsOf, stopPositionOf } from '../model/change-order.ts';
import { keyLabelsOf } from '../model/review-keys.ts';
import { confirmAsked, requestApprove, requestReject, showChange, showProposal, stepReview } from '../stores/review-flow.ts';
import { useReviewStore } from '../stores/review-store.ts';
import { AppliedEditsList } from './AppliedEditsList.tsx';
import { BatchBar } from './BatchBar.tsx';
import { ChangedFiles } from './ChangedFiles.tsx';
import { ConfirmApproveDialog } from './ConfirmApproveDialog.tsx';
import { DamagedReviewData } from './DamagedReviewData.tsx';
import { ProposalDetail } from './ProposalDetail.tsx';
import { QueuePanel } from './QueuePanel.tsx';
import { ReviewHelp } from './ReviewHelp.tsx';

/** The current time, ticking, for "3 min ago" labels. */
function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

const MIN_WIDTH_PX = 260;
const KEYS = keyLabelsOf(/Mac|iPhone|iPad/.test(navigator.platform));

/** The panel's width, dragged on its left edge (or arrow keys there); kept in a CSS variable of the app grid. */
function useResizer() {
  // A focusable separator is a range widget: it must say its value (axe: aria-required-attr).
  const [widthPx, setWidthPx] = useState<number | null>(null);
  const maxPx = () => Math.round(Math.max(MIN_WIDTH_PX, window.innerWidth * 0.7));
  const setWidth = (px: number) => {
    const width = Math.round(Math.min(maxPx(), Math.max(MIN_WIDTH_PX, px)));
    setWidthPx(width);
    document.documentElement.style.setProperty('--review-width', `${width}px`);
  };
  const widthNow = () => document.querySelector('.review-panel')?.getBoundingClientRect().width ?? 420;
  return {
    'aria-valuenow': widthPx ?? Math.round(widthNow()),
    'aria-valuemin': MIN_WIDTH_PX,
    'aria-valuemax': maxPx(),
    onPointerDown(event: PointerEvent<HTMLDivElement>) {
      event.currentTarget.setPointerCapture(event.pointerId);
    },
    onPointerMove(event: PointerEvent<HTMLDivElement>) {
      if (event.currentTarget.hasPointerCapture(event.pointerId)) setWidth(window.innerWidth - event.clientX);
    },
    onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
      if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
      event.preventDefault();
      setWidth(widthNow() + (event.key === 'ArrowLeft' ? 24 : -24));
    },
  };
}

/** Agents' proposals: the queue, the selected one's metadata, hunks and decision, the applied edits. The diff is drawn in the file view. */
export function ReviewPanel() {
  const {
    queue,
    history,
    damaged,
    selectedId,
    selected,
    busy,
    problem,
    notice,
    reason,
    focus,
    asking,
    helpOpen,
    filesOpen,
    setReason,
    setHelpOpen,
    setFilesOpen,
    undo,
    redo,
    stepEntry,
  } = useReviewStore();
  const now = useNow(10_000);
  // A question about a proposal that is no longer the selected one is not answered by accident: it goes.
  useEffect(() => {
    if (asking && asking.id !== selectedId) void confirmAsked(false);
  }, [asking, selectedId]);
  const resizer = useResizer();
  // Undo / redo keys (Ctrl+Z, Ctrl+Y) are the app's, wherever the focus is (App.tsx, review-keys.ts).
  const stops = useMemo(() => sessionStopsOf(queue), [queue]);
  const position = stopPositionOf(stops, focus);
  // Nothing to show (no proposal, no applied edit, no message): a slim rail, and the file view takes the width.
  const empty = queue.length === 0 && !selected && history.length === 0 && damaged.length === 0 && !problem && !notice;
  return (
    <aside className={empty ? 'review-panel collapsed' : 'review-panel'} data-testid="review-panel" data-collapsed={empty} tabIndex={0} aria-label="Review">
      <div
        className="review-resizer"
        role="separator"
        aria-orientation="vertical"
        aria-label="Resize the review panel (arrow keys)"
        tabIndex={0}
        data-testid="review-resizer"
        {...resizer}
      />
      <header className="review-header">
        <h2>
          Review <small data-testid="queue-count">{queue.length}</small>
        </h2>
        <button
          type="button"
          data-testid="previous-change"
          disabled={queue.length === 0}
          onClick={() => void stepReview(-1)}
          title={`Previous change (${KEYS.previous})`}
        >
          ↑ Prev
        </button>
        <button type="button" data-testid="next-change" disabled={queue.length === 0} onClick={() => void stepReview(1)} title={`Next change (${KEYS.next})`}>
          Next ↓
        </button>
        <button
          type="button"
          data-testid="changed-files-open"
          onClick={() => setFilesOpen(!filesOpen)}
          title={`Changed files of the session (${KEYS.files})`}
          aria-expanded={filesOpen}
        >
          Files
        </button>
        <button type="button" data-testid="review-help-open" onClick={() => setHelpOpen(!helpOpen)} title="Review keys (?)" aria-expanded={helpOpen}>
          ?
        </button>
      </header>
      {stops.length > 0 && (
        <p className="change-position muted" data-testid="change-position" aria-live="polite">
          {position
            ? `Hunk ${position.index} of ${position.total} · ${stops[position.index - 1]!.path ?? ''} · line ${stops[position.index - 1]!.startLine}`
            : `${stops.length} pending hunk${stops.length === 1 ? '' : 's'} · ${KEYS.next.split(' ')[0]} goes to the next`}
        </p>
      )}
      <DamagedReviewData damaged={damaged} />
      <QueuePanel queue={queue} selectedId={selectedId} now={now} onSelect={(id) => void showProposal(id)} />
      <BatchBar queue={queue} selected={selected} />
      {selected && (
        <ProposalDetail
          proposal={selected}
          history={history}
          busy={busy}
          reason={reason}
          focus={focus}
          keys={KEYS}
          onReason={setReason}
          onApprove={(how, stop) => void requestApprove(selected.id, how, stop)}
          onReject={(hunks, stop) => void requestReject(selected.id, hunks, stop)}
          onShow={(stop) => void showChange(stop)}
        />
      )}
      {problem && (
        <p className="review-problem" role="alert" data-testid="review-problem">
          <code>{problem.code}</code> {problem.message}
        </p>
      )}
      {notice && !problem && (
        <p className="review-notice" role="status" data-testid="review-notice">
          {notice}
        </p>
      )}
      <AppliedEditsList
        entries={history}
        busy={busy}
        now={now}
        onUndo={() => void undo()}
        onRedo={() => void redo()}
        onStep={(id, action) => void stepEntry(id, action)}
      />
      {asking && <ConfirmApproveDialog question={asking.question} onCancel={() => void confirmAsked(false)} onApprove={() => void confirmAsked(true)} />}
      {helpOpen && <ReviewHelp labels={KEYS} onClose={() => setHelpOpen(false)} />}
      {filesOpen && <ChangedFiles queue={queue} onClose={() => setFilesOpen(false)} />}
    </aside>
  );
}
