import type { ReviewJournalEntry } from '../../src-main/api/schemas.ts';
import { ageLabelOf } from '../model/file-labels.ts';

/** Edits that were applied (newest first), with Undo and Redo of your latest. */
export function AppliedEditsList({
  entries,
  busy,
  now,
  onUndo,
  onRedo,
}: {
  entries: ReviewJournalEntry[];
  busy: boolean;
  now: number;
  onUndo(): void;
  onRedo(): void;
}) {
  return (
    <section className="applied-edits" data-testid="applied-edits">
      <header>
        <h3>Applied edits</h3>
        <button type="button" data-testid="undo" disabled={busy} onClick={onUndo} title="Undo (Ctrl+Z)">
          Undo
        </button>
        <button type="button" data-testid="redo" disabled={busy} onClick={onRedo} title="Redo (Ctrl+Shift+Z)">
          Redo
        </button>
      </header>
      {entries.length === 0 ? (
        <p className="muted">None yet.</p>
      ) : (
        <ul>
          {entries.map((e) => (
            <li key={e.id} data-testid="applied-edit" data-undone={e.undone} className={e.undone ? 'undone' : ''}>
              <span className="file">{e.path}</span>
              <span className="range">
                lines {e.range_after.start_line}–{e.range_after.end_line}
              </span>
              <span className="actor">
                {e.actor.name} → {e.decided_by.name}
              </span>
              <span className="age">{e.undone ? 'undone' : ageLabelOf(e.applied_at, now)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
