import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { count } from '../model/file-labels.ts';
import { useFilterStore } from '../stores/filter-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';
import { FilterForm } from './FilterForm.tsx';

/** Row height of the filtered list, as the editor's. */
const ROW_PX = 19;
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
  const first = Math.max(0, Math.floor(scrollTop / ROW_PX) - OVERSCAN);
  const last = Math.min(known, Math.ceil((scrollTop + height) / ROW_PX) + OVERSCAN);
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
    if (next * ROW_PX < list.scrollTop) list.scrollTop = next * ROW_PX;
    else if ((next + 1) * ROW_PX > list.scrollTop + list.clientHeight) list.scrollTop = (next + 1) * ROW_PX - list.clientHeight;
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
      <div style={{ height: known * ROW_PX, position: 'relative' }}>
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
              style={{ top: index * ROW_PX }}
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
