import { useEffect } from 'react';
import { useColumnsStore } from '../stores/columns-store.ts';
import { useHighlightStore } from '../stores/highlight-store.ts';
import { useJsonLineStore } from '../stores/json-line-store.ts';
import { useLineStepStore } from '../stores/line-step-store.ts';
import { followViewerMarks, useMarksStore } from '../stores/marks-store.ts';
import { useQueryStore } from '../stores/query-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';
import { useWrapStore } from '../stores/wrap-store.ts';
import { HighlightsPanel } from './HighlightsPanel.tsx';
import { JsonColumnsBar } from './JsonColumns.tsx';
import { JsonLinePanel } from './JsonLinePanel.tsx';
import { MarksPanel } from './MarksPanel.tsx';
import { QueryPanel } from './QueryPanel.tsx';
import './log-marks.css';

/** The toolbar's log tools: Highlights, Marks, Wrap, JSON, Columns, Query, and what the last step (e, h, u) found. */
export function LogToolButtons({ disabled }: { disabled: boolean }) {
  const highlightsOpen = useHighlightStore((s) => s.open);
  const marksOpen = useMarksStore((s) => s.open);
  const wrap = useWrapStore((s) => s.wrap);
  const columns = useColumnsStore((s) => s.on);
  const queryOpen = useQueryStore((s) => s.open);
  const stepStatus = useLineStepStore((s) => s.status);
  const markStatus = useMarksStore((s) => s.status);
  const status = markStatus ?? stepStatus;

  useEffect(() => {
    void useHighlightStore.getState().load();
    const path = useViewerStore.getState().path;
    if (path) void useMarksStore.getState().load(path);
    return followViewerMarks();
  }, []);
  // A step of one kind replaces what the other said.
  useEffect(() => useLineStepStore.subscribe(() => useMarksStore.getState().status && useMarksStore.setState({ status: null })), []);

  return (
    <>
      <button
        type="button"
        aria-pressed={highlightsOpen}
        onClick={() => useHighlightStore.getState().toggleOpen()}
        title="Highlight rules (h / H: next / previous)"
      >
        Highlights
      </button>
      <button
        type="button"
        aria-pressed={marksOpen}
        disabled={disabled}
        onClick={() => useMarksStore.getState().toggleOpen()}
        title="Marked lines (m marks, u / U next / previous)"
      >
        Marks
      </button>
      <button type="button" aria-pressed={wrap} disabled={disabled} onClick={() => useWrapStore.getState().toggle()} title="Wrap long lines (Alt+Z)">
        Wrap: {wrap ? 'on' : 'off'}
      </button>
      <button type="button" disabled={disabled} onClick={() => void useJsonLineStore.getState().show()} title="The current line as pretty-printed JSON (j)">
        JSON
      </button>
      <button
        type="button"
        aria-pressed={columns}
        disabled={disabled}
        onClick={() => useColumnsStore.getState().toggle()}
        title="JSON Lines fields as columns beside the lines in view (c)"
      >
        Columns
      </button>
      <button
        type="button"
        data-testid="query-open"
        aria-pressed={queryOpen}
        disabled={disabled}
        onClick={() => useQueryStore.getState().toggle()}
        title="SQL over the log's lines and fields; a result row links to its line (q)"
      >
        Query
      </button>
      {status && (
        <span className="step-status" role="status" data-testid="step-status">
          {status}
        </span>
      )}
    </>
  );
}

/** The log tools' panels above the file view. */
export function LogToolPanels() {
  const highlightsOpen = useHighlightStore((s) => s.open);
  const marksOpen = useMarksStore((s) => s.open);
  const columns = useColumnsStore((s) => s.on);
  const queryOpen = useQueryStore((s) => s.open);
  const hasFile = useViewerStore((s) => s.info !== null);
  return (
    <>
      {highlightsOpen && <HighlightsPanel />}
      {marksOpen && <MarksPanel />}
      {columns && <JsonColumnsBar />}
      {queryOpen && hasFile && <QueryPanel />}
    </>
  );
}

export { JsonLinePanel };
