import type { LineEdit } from '../model/proposal-edits.ts';
import { linesLabelOf } from '../model/conflict-text.ts';

/** The edits of a proposal with several: each one's place and decision, with its own Accept and Reject. */
export function HunkList({
  edits,
  focusedHunk,
  busy,
  decidable,
  keys,
  onShow,
  onAccept,
  onReject,
}: {
  edits: LineEdit[];
  focusedHunk: number | null;
  busy: boolean;
  decidable: boolean;
  keys: { accept: string; reject: string };
  onShow(edit: LineEdit): void;
  onAccept(hunk: number): void;
  onReject(hunk: number): void;
}) {
  return (
    <ol className="hunk-list" data-testid="hunk-list" aria-label="Hunks">
      {edits.map((e) => (
        <li
          key={e.hunk}
          data-testid="hunk"
          data-hunk={e.hunk}
          data-decision={e.decision}
          className={`${e.decision}${e.hunk === focusedHunk ? ' focused' : ''}`}
        >
          <button type="button" className="link" data-testid="hunk-show" onClick={() => onShow(e)} title="Show this hunk in the file">
            Hunk {e.hunk} · {e.kind === 'insert' ? `insert before line ${e.startLine}` : `${e.kind} ${linesLabelOf(e.startLine, e.endLine)}`}
          </button>
          {e.decision === 'pending' ? (
            <span className="hunk-buttons">
              <button
                type="button"
                className="approve"
                data-testid="hunk-accept"
                disabled={busy || !decidable}
                onClick={() => onAccept(e.hunk!)}
                title={`Accept hunk ${e.hunk} (${keys.accept})`}
              >
                Accept
              </button>
              <button
                type="button"
                className="reject"
                data-testid="hunk-reject"
                disabled={busy}
                onClick={() => onReject(e.hunk!)}
                title={`Reject hunk ${e.hunk} (${keys.reject})`}
              >
                Reject
              </button>
            </span>
          ) : (
            <span className="hunk-decision">{e.decision}</span>
          )}
        </li>
      ))}
    </ol>
  );
}
