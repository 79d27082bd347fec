import { count } from '../model/file-labels.ts';
import { lineSizeLabelOf, MAX_LONG_LINE_HEAD_BYTES } from '../model/window-reader.ts';
import { useLongLineStore } from '../stores/long-line-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';

/**
 * Above the file view while a line longer than the read cap is in view: says it
 * is shown cut, and offers more of it in place or the whole of it in a side view.
 */
export function LongLineBar() {
  const win = useViewerStore((s) => s.window);
  const topLine = useViewerStore((s) => s.topLine);
  const visibleLines = useViewerStore((s) => s.visibleLines);
  const cut = win?.cutLines?.find((c) => c.lineNo >= topLine && c.lineNo < topLine + Math.max(1, visibleLines));
  if (!cut) return null;
  const more = cut.shownChars < MAX_LONG_LINE_HEAD_BYTES && cut.shownChars < cut.lineBytes;
  return (
    <div className="long-line-bar" role="status" data-testid="long-line-bar">
      <span data-testid="long-line-label">
        Line {count.format(cut.lineNo)}: {lineSizeLabelOf(cut.lineBytes)} line — showing the first {count.format(cut.shownChars)} characters
      </span>
      {more && (
        <button type="button" data-testid="long-line-more" onClick={() => void useViewerStore.getState().showMoreOf(cut.lineNo)}>
          Show more
        </button>
      )}
      <button type="button" data-testid="long-line-open" onClick={() => void useLongLineStore.getState().open(cut)}>
        Open in a side view
      </button>
    </div>
  );
}

/** The side view of a long line: one slice at a time, wrapped, with where it is in the line. */
export function LongLinePanel() {
  const { line, offset, endOffset, text, error } = useLongLineStore();
  const { page, close } = useLongLineStore.getState();
  if (!line) return null;
  return (
    <aside className="long-line-panel" aria-label={`Line ${count.format(line.lineNo)}`} data-testid="long-line-panel">
      <header>
        <strong>Line {count.format(line.lineNo)}</strong>
        <span data-testid="long-line-range">
          bytes {count.format(offset)}–{count.format(endOffset)} of {count.format(line.lineBytes)}
        </span>
        <button type="button" aria-label="Previous slice" disabled={offset === 0} onClick={() => void page(-1)}>
          ‹
        </button>
        <button type="button" aria-label="Next slice" disabled={endOffset >= line.lineBytes} onClick={() => void page(1)}>
          ›
        </button>
        <button type="button" className="close" aria-label="Close line view" onClick={close}>
          ×
        </button>
      </header>
      {error ? (
        <p role="alert">
          <code>{error.code}</code> {error.message}
        </p>
      ) : (
        <pre data-testid="long-line-text">{text}</pre>
      )}
    </aside>
  );
}
