import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { count } from '../model/file-labels.ts';
import { filteredIndicesOf, headingIndexAt, rowOfHeading, scrollTopToShow, visibleRowsOf } from '../model/outline-rows.ts';
import { useOutlineStore } from '../stores/outline-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';

/** Row height in px; fixed, so the rows in view follow from scrollTop alone (matches .outline-row in styles.css). */
export const OUTLINE_ROW_PX = 22;

/**
 * The headings of the open markdown file as an indented list with their line
 * numbers (Ctrl+Shift+O or the toolbar's Outline). Clicking one shows its line
 * at the top of the viewer; the heading whose section holds the top line is
 * marked and kept in view as the file scrolls; the box filters by text. Only the
 * rows in view are rendered.
 */
export function OutlinePanel({ onShowLine, onClose }: { onShowLine(lineNo: number): void; onClose(): void }) {
  const topLine = useViewerStore((s) => s.topLine);
  const { headings, loading, error, filter } = useOutlineStore();
  const setFilter = useOutlineStore((s) => s.setFilter);
  const listRef = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewportPx, setViewportPx] = useState(0);

  const texts = useMemo(() => headings.map((h) => h.text.toLowerCase()), [headings]);
  const rows = useMemo(() => filteredIndicesOf(texts, filter), [texts, filter]);
  const current = headingIndexAt(headings, topLine);
  const currentRow = useMemo(() => (current < 0 ? -1 : rowOfHeading(rows, current)), [rows, current]);

  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list) return;
    setViewportPx(list.clientHeight);
    const observer = new ResizeObserver(() => setViewportPx(list.clientHeight));
    observer.observe(list);
    return () => observer.disconnect();
  }, []);

  // A new filter starts the list from its top.
  useLayoutEffect(() => {
    if (listRef.current) listRef.current.scrollTop = 0;
    setScrollTop(0);
  }, [filter]);

  // Keep the marked heading in view when the file scrolls to another section (not when the person scrolls the list).
  useEffect(() => {
    const list = listRef.current;
    if (!list || currentRow < 0 || list.clientHeight === 0) return;
    const to = scrollTopToShow(currentRow, list.scrollTop, list.clientHeight, OUTLINE_ROW_PX);
    if (to !== null) list.scrollTop = to;
  }, [currentRow]);

  const { first, end } = visibleRowsOf(scrollTop, viewportPx || 600, OUTLINE_ROW_PX, rows.length);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && filter) setFilter('');
  };
  const shown = rows.slice(first, end);
  return (
    <nav className="outline-panel" data-testid="outline-panel" aria-label="Outline" onKeyDown={onKeyDown}>
      <header>
        <h2>Outline</h2>
        <span className="muted" data-testid="outline-count">
          {filter.trim() ? `${count.format(rows.length)} of ${count.format(headings.length)}` : count.format(headings.length)}
        </span>
        <button type="button" className="close" aria-label="Close outline" data-testid="outline-close" onClick={onClose}>
          ×
        </button>
      </header>
      <input
        type="search"
        data-testid="outline-filter"
        placeholder="Filter headings"
        aria-label="Filter headings"
        spellCheck={false}
        autoComplete="off"
        value={filter}
        onChange={(event) => setFilter(event.target.value)}
      />
      {error && (
        <p className="outline-problem" role="alert" data-testid="outline-error">
          <code>{error.code}</code> {error.message}
        </p>
      )}
      {!error && loading && headings.length === 0 && <p className="muted">Reading headings…</p>}
      {!error && !loading && headings.length === 0 && (
        <p className="muted" data-testid="outline-empty">
          No headings
        </p>
      )}
      <div className="outline-list" ref={listRef} onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}>
        <ol style={{ height: rows.length * OUTLINE_ROW_PX }}>
          {shown.map((index, i) => {
            const h = headings[index]!;
            const row = first + i;
            return (
              <li
                key={index}
                className={`outline-row${row === currentRow ? ' current' : ''}`}
                data-testid="outline-row"
                data-line={h.line}
                data-level={h.level}
                aria-current={row === currentRow ? 'location' : undefined}
                title={h.path}
                style={{ top: row * OUTLINE_ROW_PX, paddingLeft: `${0.4 + (h.level - 1) * 0.9}rem` }}
                onClick={() => onShowLine(h.line)}
              >
                <span className="text">{h.text}</span>
                <span className="line-no">{count.format(h.line)}</span>
              </li>
            );
          })}
        </ol>
      </div>
    </nav>
  );
}
