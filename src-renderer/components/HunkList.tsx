import type { DecisionUnit } from '../model/proposal-edits.ts';

/**
 * The hunks of a proposal, whatever its kind (change.hunks): each one's place and
 * decision; Accept and Reject per row when it is decided hunk by hunk.
 */
export function HunkList({
  units,
  perHunk,
  focusedHunk,
  busy,
  decidable,
  keys,
  onShow,
  onAccept,
  onReject,
}: {
  units: DecisionUnit[];
  perHunk: boolean;
  focusedHunk: number | null;
  busy: boolean;
  decidable: boolean;
  keys: { accept: string; reject: string };
  onShow(unit: DecisionUnit): void;
  onAccept(hunk: number): void;
  onReject(hunk: number): void;
}) {
  return (
    <ol className="hunk-list" data-testid="hunk-list" aria-label="Hunks">
      {units.map((u, i) => {
        const n = u.hunk ?? i + 1;
        return (
          <li
            key={`${n}-${u.startLine}`}
            data-testid="hunk"
            data-hunk={n}
            data-decision={u.decision}
            className={`${u.decision}${u.hunk !== null && u.hunk === focusedHunk ? ' focused' : ''}`}
          >
            <button type="button" className="link" data-testid="hunk-show" onClick={() => onShow(u)} title="Show this hunk in the file">
              Hunk {n} · {u.label}
            </button>
            {perHunk && u.hunk !== null && u.decision === 'pending' ? (
              <span className="hunk-buttons">
                <button
                  type="button"
                  className="approve"
                  data-testid="hunk-accept"
                  disabled={busy || !decidable}
                  onClick={() => onAccept(u.hunk!)}
                  title={`Accept hunk ${n} (${keys.accept})`}
                >
                  Accept
                </button>
                <button
                  type="button"
                  className="reject"
                  data-testid="hunk-reject"
                  disabled={busy}
                  onClick={() => onReject(u.hunk!)}
                  title={`Reject hunk ${n} (${keys.reject})`}
                >
                  Reject
                </button>
              </span>
            ) : (
              u.decision !== 'pending' && <span className="hunk-decision">{u.decision}</span>
            )}
          </li>
        );
      })}
    </ol>
  );
}
