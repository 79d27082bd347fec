import type { ReviewJournalEntry } from '../../src-main/api/schemas.ts';
import { ageLabelOf } from '../model/file-labels.ts';

/** Edits that were applied (newest first), with Undo and Redo of your latest, and each entry's own Undo (or Redo once undone). */
export function AppliedEditsList({
  entries,
  busy,
  now,
  onUndo,
  onRedo,
  onStep,
}: {
  entries: ReviewJournalEntry[];
  busy: boolean;
  now: number;
  onUndo(): void;
  onRedo(): void;
  onStep(id: string, action: 'undo' | 'redo'): void;
}) {
  return (
    <section className="applied-edits" data-testid="applied-edits">
      <header>
        <h3>Applied edits</h3>
        <button type="button" data-testid="undo" disabled={busy} onClick={onUndo} title="Undo your latest edit (Ctrl+Z)">
          Undo latest
        </button>
        <button type="button" data-testid="redo" disabled={busy} onClick={onRedo} title="Redo your latest undone edit (Ctrl+Shift+Z)">
          Redo latest
        </button>
      </header>
      {entries.length === 0 ? (
        <p className="muted">None yet.</p>
      ) : (
        <ul>
          {entries.map((e) => (
            <li key={e.id} data-testid="applied-edit" data-journal-id={e.id} data-undone={e.undone} className={e.undone ? 'undone' : ''}>
              <span className="file">{e.path}</span>
              <span className="range">
                lines {e.range_after.start_line}–{e.range_after.end_line}
              </span>
              <span className="actor">
                {e.actor.name} → {e.decided_by.name}
              </span>
              <span className="age">{e.undone ? 'undone' : ageLabelOf(e.applied_at, now)}</span>
              <button
                type="button"
                className="entry-step"
                data-testid={e.undone ? 'entry-redo' : 'entry-undo'}
                disabled={busy}
                onClick={() => onStep(e.id, e.undone ? 'redo' : 'undo')}
                title={e.undone ? `Redo this edit of ${e.path}` : `Undo this edit of ${e.path}`}
              >
                {e.undone ? 'Redo' : 'Undo'}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
