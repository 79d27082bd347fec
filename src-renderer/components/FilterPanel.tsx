import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { count } from '../model/file-labels.ts';
import { useFilterStore } from '../stores/filter-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';
import { FilterForm } from './FilterForm.tsx';

/** Row height of the filtered list, as the editor's. */
const ROW_PX = 19;
/**
 * The list's scroll height at most. A browser caps an element's height (Chromium
 * near 33.5 million px, Firefox near 17.9 million): at 19 px a row, a filter of a
 * GiB log passing 2 million lines was cut there, and scrolling to the end showed
 * a row two thirds of the way. Past this height the scroll position is scaled:
 * the scrollbar's range maps onto the rows' range, and the rows drawn sit where
 * the view is.
 */
const MAX_SCROLL_PX = 8_000_000;

/** How the list's scroll position maps to rows: which row is at the top for a scrollTop, and back. */
export function scrollMapOf(rows: number, viewPx: number) {
  const fullPx = rows * ROW_PX;
  const spacerPx = Math.min(fullPx, MAX_SCROLL_PX);
  const fit = viewPx / ROW_PX;
  // Rows a scroll pixel moves: 1/ROW_PX until the cap, more past it (the last scroll position shows the last row).
  const rowsPerPx = fullPx > spacerPx ? Math.max(0, rows - fit) / Math.max(1, spacerPx - viewPx) : 1 / ROW_PX;
  return {
    spacerPx,
    /** the row (fractional) at the top of the view */
    topRowOf: (scrollTop: number) => scrollTop * rowsPerPx,
    /** the scrollTop that puts row `row` at the top */
    scrollTopOf: (row: number) => Math.max(0, Math.min(spacerPx - viewPx, row / rowsPerPx)),
    /** where row `index` is drawn for the view at `scrollTop` */
    rowPxOf: (index: number, scrollTop: number) => scrollTop + (index - scrollTop * rowsPerPx) * ROW_PX,
  };
}
/** Rows drawn beyond the visible ones, above and below. */
const OVERSCAN = 20;

/**
 * The filter view: only the lines that match the filters (each a regex to keep
 * or to drop; Enter applies), a boolean expression (filter-expr.ts) and the
 * chosen levels, numbered as in the file.
 * The list is a listbox: arrows, PageUp/PageDown, Home/End move, Enter or a
 * click shows the line in the main view. It draws only the rows in view.
 */
export function FilterPanel() {
  const { terms, expression, levels, caseSensitive, rows, total, searchedBytes, fileBytes, loading, counting, error, appliedFor, nextStartByte } =
    useFilterStore();
  const { setTerms, setExpression, setLevels, setCaseSensitive, apply, hide } = useFilterStore.getState();
  // Another file opened: the filters apply to it.
  const path = useViewerStore((s) => s.path);
  useEffect(() => {
    if (appliedFor && path && appliedFor.path !== path) void apply();
  }, [appliedFor, path, apply]);
  const done = fileBytes === 0 || searchedBytes >= fileBytes;
  const percent = fileBytes > 0 ? Math.floor((100 * searchedBytes) / fileBytes) : 100;
  return (
    <section className="filter-panel" aria-label="Filter view" data-testid="filter-panel" onKeyDown={(e) => e.key === 'Escape' && hide()}>
      <FilterForm
        terms={terms}
        expression={expression}
        levels={levels}
        caseSensitive={caseSensitive}
        setTerms={setTerms}
        setExpression={setExpression}
        setLevels={setLevels}
        setCaseSensitive={setCaseSensitive}
        apply={() => void apply()}
        hide={hide}
        closeLabel="Close filter view"
      />
      {error && (
        <p className="find-error" role="alert" data-testid="filter-error">
          <code>{error.code}</code> {error.message}
        </p>
      )}
      {appliedFor && !error && (
        <p className="find-status" data-testid="filter-status" aria-live="polite">
          {count.format(total)} {total === 1 ? 'line' : 'lines'}
          {done ? ' · whole file searched' : ` · ${percent}% searched`}
          {rows.length < total ? ` · ${count.format(rows.length)} listed` : ''}
          {loading || counting ? ' …' : ''}
        </p>
      )}
      {appliedFor && <FilterRows key={`${appliedFor.path}\n${appliedFor.pattern}\n${appliedFor.caseSensitive}`} canLoadMore={nextStartByte !== null} />}
    </section>
  );
}

function FilterRows({ canLoadMore }: { canLoadMore: boolean }) {
  const rows = useFilterStore((s) => s.rows);
  const rowsStart = useFilterStore((s) => s.rowsStart);
  const total = useFilterStore((s) => s.total);
  const listRef = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(300);
  const [active, setActive] = useState(0);

  useEffect(() => {
    const list = listRef.current;
    if (!list) return;
    const observer = new ResizeObserver(() => setHeight(list.clientHeight));
    observer.observe(list);
    return () => observer.disconnect();
  }, []);

  // Indices among all passing lines: the list is as tall as the count so far; `rows` hold a window of them.
  const known = Math.max(total, rowsStart + rows.length);
  const map = scrollMapOf(known, height);
  const topRow = map.topRowOf(scrollTop);
  const first = Math.max(0, Math.floor(topRow) - OVERSCAN);
  const last = Math.min(known, Math.ceil(topRow + height / ROW_PX) + OVERSCAN);
  useEffect(() => {
    if (first < rowsStart || last > rowsStart + rows.length - OVERSCAN) void useFilterStore.getState().showRows(first, last);
  }, [canLoadMore, first, last, rowsStart, rows.length]);
  const rowAt = (index: number) => rows[index - rowsStart];

  const show = (index: number) => {
    const row = rowAt(index);
    if (!row) return;
    setActive(index);
    void useViewerStore.getState().goToLine(row.line, { at: 'center', select: false, highlight: true });
  };
  const moveTo = (index: number) => {
    const next = Math.min(Math.max(0, index), known - 1);
    setActive(next);
    const list = listRef.current;
    if (!list) return;
    const top = map.topRowOf(list.scrollTop);
    const fit = list.clientHeight / ROW_PX;
    if (next < top) list.scrollTop = map.scrollTopOf(next);
    else if (next + 1 > top + fit) list.scrollTop = map.scrollTopOf(next + 1 - fit);
  };
  const page = Math.max(1, Math.floor(height / ROW_PX) - 1);
  const onKeyDown = (event: KeyboardEvent) => {
    const moves: Record<string, number> = {
      ArrowDown: active + 1,
      ArrowUp: active - 1,
      PageDown: active + page,
      PageUp: active - page,
      Home: 0,
      End: known - 1,
    };
    if (event.key in moves) {
      event.preventDefault();
      moveTo(moves[event.key]!);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      show(active);
    }
  };

  const activeRow = rowAt(active);
  return (
    <div
      ref={listRef}
      className="filter-rows"
      role="listbox"
      tabIndex={0}
      aria-label="Filtered lines"
      aria-activedescendant={activeRow ? `filter-row-${active}` : undefined}
      data-testid="filter-rows"
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      onKeyDown={onKeyDown}
    >
      <div style={{ height: map.spacerPx, position: 'relative' }}>
        {rows.slice(Math.max(0, first - rowsStart), Math.max(0, last - rowsStart)).map((row, i) => {
          const index = Math.max(first, rowsStart) + i;
          return (
            <div
              key={row.byte_offset}
              id={`filter-row-${index}`}
              role="option"
              aria-selected={index === active}
              className="filter-row"
              data-testid="filter-row"
              data-line={row.line}
              style={{ top: map.rowPxOf(index, scrollTop) }}
              onClick={() => show(index)}
            >
              <span className="line-no">{count.format(row.line)}</span>
              <span className="text">{row.text}</span>
            </div>
          );
        })}
      </div>
    </div>
  );
}
