import { count } from '../model/file-labels.ts';
import { useMarksStore } from '../stores/marks-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';

/** The "Marks" panel: the open file's marked lines with their text; a click (or Enter) shows the line; × unmarks it. */
export function MarksPanel() {
  const { lines, lost, texts, error, toggleOpen, toggle } = useMarksStore();
  return (
    <section className="marks-panel" aria-label="Marks" data-testid="marks-panel" onKeyDown={(e) => e.key === 'Escape' && toggleOpen()}>
      <span className="muted">
        {lines.length === 0
          ? 'No marked lines: m or a click in the gutter lane marks one'
          : `${count.format(lines.length)} marked · m marks, u / U next / previous`}
      </span>
      {lost.length > 0 && (
        <span className="muted" data-testid="marks-lost">
          {lost.length === 1 ? '1 marked line was edited' : `${count.format(lost.length)} marked lines were edited`}: kept at{' '}
          {lost.length === 1 ? 'its number' : 'their numbers'}
        </span>
      )}
      {error && (
        <p className="find-error" role="alert">
          {error.message}
        </p>
      )}
      <ul className="marks-list" aria-label="Marked lines">
        {lines.map((lineNo) => (
          <li key={lineNo} data-testid="mark-row">
            <button
              type="button"
              className="mark-row"
              aria-label={`Show marked line ${lineNo}`}
              onClick={() => void useViewerStore.getState().goToLine(lineNo, { at: 'center', select: false, highlight: true })}
            >
              <span className="line-no">{lineNo}</span>
              <span data-testid="mark-text">{texts[lineNo] ?? ''}</span>
            </button>
            <button type="button" aria-label={`Unmark line ${lineNo}`} onClick={() => void toggle(lineNo)}>
              ×
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
