import type { ReviewProposal, UpsertTarget } from '../../src-main/api/schemas.ts';
import { ageLabelOf } from '../model/file-labels.ts';

/** "lines 5–6", "insert at line 3", "append" */
export function targetLabelOf(target: UpsertTarget): string {
  if ('append' in target) return 'append';
  if ('whole_file' in target) return 'whole file';
  const unit = (units: string | undefined) => (units === 'bytes' ? 'bytes' : 'lines');
  if ('insert' in target) return `insert at ${unit(target.insert.units) === 'bytes' ? 'byte' : 'line'} ${target.insert.at}`;
  const range = 'replace' in target ? target.replace : target.delete;
  return `${'replace' in target ? '' : 'delete '}${unit(range.units)} ${range.start}–${range.end}`;
}

/** Proposals waiting for a decision (and those that went stale), oldest first. */
export function QueuePanel({
  queue,
  selectedId,
  now,
  onSelect,
}: {
  queue: ReviewProposal[];
  selectedId: string | null;
  now: number;
  onSelect(id: string): void;
}) {
  if (queue.length === 0) {
    return (
      <p className="queue-empty" data-testid="queue-empty">
        No proposals waiting.
      </p>
    );
  }
  return (
    // Focusable: the list scrolls when the window is short, and a scrolling region must be reachable by keyboard (axe).
    <ul className="queue-panel" data-testid="queue-panel" role="listbox" aria-label="Proposals" tabIndex={0}>
      {queue.map((p) => (
        <li
          key={p.id}
          role="option"
          aria-selected={p.id === selectedId}
          data-testid="queue-item"
          data-proposal-id={p.id}
          data-status={p.status}
          className={`${p.id === selectedId ? 'selected' : ''} ${p.status}`}
          onClick={() => onSelect(p.id)}
        >
          <span className="file">{p.path}</span>
          <span className="range">{p.change.label}</span>
          <span className="actor">
            {p.actor.name} <small>({p.actor.kind})</small>
          </span>
          <span className="age" title={p.created_at}>
            {ageLabelOf(p.created_at, now)}
          </span>
          {p.status === 'conflict' && <span className="badge conflict">conflict</span>}
        </li>
      ))}
    </ul>
  );
}
