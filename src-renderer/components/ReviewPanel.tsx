import { useEffect, useState, type KeyboardEvent } from 'react';
import { useReviewStore } from '../stores/review-store.ts';
import { AppliedEditsList } from './AppliedEditsList.tsx';
import { ProposalDetail } from './ProposalDetail.tsx';
import { QueuePanel } from './QueuePanel.tsx';

/** The current time, ticking, for "3 min ago" labels. */
function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** Undo / redo keys while the panel has focus, except inside a text box or the proposal editor (which have their own undo). */
function undoKeyOf(event: KeyboardEvent): 'undo' | 'redo' | null {
  if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== 'z') return null;
  if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return null;
  if (event.target instanceof Element && event.target.closest('.monaco-editor')) return null;
  return event.shiftKey ? 'redo' : 'undo';
}

/** Agents' proposals: the queue, the selected one's diff and decision, the applied edits. */
export function ReviewPanel() {
  const { queue, history, selectedId, selected, busy, problem, notice, select, approve, reject, undo, redo, stepEntry } = useReviewStore();
  const now = useNow(10_000);
  const onKeyDown = (event: KeyboardEvent) => {
    const key = undoKeyOf(event);
    if (!key) return;
    event.preventDefault();
    void (key === 'undo' ? undo() : redo());
  };
  return (
    <aside className="review-panel" data-testid="review-panel" tabIndex={0} onKeyDown={onKeyDown} aria-label="Review">
      <h2>
        Review <small data-testid="queue-count">{queue.length}</small>
      </h2>
      <QueuePanel queue={queue} selectedId={selectedId} now={now} onSelect={(id) => void select(id)} />
      {selected && (
        <ProposalDetail
          key={selected.id}
          proposal={selected}
          busy={busy}
          onApprove={(content) => void approve(selected.id, content)}
          onReject={(reason) => void reject(selected.id, reason)}
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
    </aside>
  );
}
