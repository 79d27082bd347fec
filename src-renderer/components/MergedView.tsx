import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type WheelEvent } from 'react';
import { useShallow } from 'zustand/shallow';
import { count, tabNameOf } from '../model/file-labels.ts';
import { logKeyOf } from '../model/log-keys.ts';
import { knownLinesOf, lineAt, useMergeStore, type MergeLine, type MergeState } from '../stores/merge-store.ts';
import { useTabStore } from '../stores/tab-store.ts';
import { useMergedHistogramStore } from '../stores/merged-histogram-store.ts';
import { FilterForm } from './FilterForm.tsx';
import { MergedHistogram } from './MergedHistogram.tsx';

/** The rows' height (styles.css .merged-line). */
const ROW_PX = 19;
/** Lines a wheel notch moves. */
const WHEEL_LINES = 3;

/** Colours far apart for the merged files, in the order of `paths` (then again, lighter). */
const FILE_COLOURS = ['#1f5fbf', '#b3261e', '#2e7d32', '#8e24aa', '#b26a00', '#00838f', '#5d4037', '#c2185b'];

/** The colour of file `fileIdx` (its index in the merged paths) in the tags and the legend. */
export function fileColourOf(fileIdx: number): string {
  const colour = FILE_COLOURS[fileIdx % FILE_COLOURS.length]!;
  return fileIdx < FILE_COLOURS.length ? colour : `color-mix(in srgb, ${colour} 70%, white)`;
}

/** Show line `line` of the merged view in its own file's tab. */
function openInTab(line: MergeLine): void {
  void useTabStore.getState().open(line.path, { startLine: line.line, endLine: line.line });
}

/**
 * The merged tab (issue 31): the open logs as one timeline, each line tagged and
 * coloured by its file, its text as in the file. Only the rows that fit are drawn;
 * PageDown and the wheel move through the view, fetching windows as they are
 * needed (merge-store.ts); the arrows move the selected line, which m marks, u / U
 * step from mark to mark and Enter opens in its file (so does a click).
 * The filter (Ctrl+Shift+F or the Filter button, the file filter's form) keeps only
 * the matching lines, filtered by the engine; the status counts them as "N shown",
 * "N+" until the view's end has come. Follow (f or the Follow button) keeps the
 * view at its end as the files grow; End goes to the end, reading back stops it.
 */
export function MergedView() {
  const s = useMergeStore(
    useShallow((m) => ({
      paths: m.paths,
      windows: m.windows,
      top: m.top,
      selected: m.selected,
      lastWindow: m.lastWindow,
      loading: m.loading,
      error: m.error,
      from: m.from,
      filterOpen: m.filterOpen,
      following: m.following,
      marks: m.marks,
      match: m.match,
      notice: m.notice,
    })),
  );
  const histogramOpen = useMergedHistogramStore((h) => h.open);
  const body = useRef<HTMLDivElement>(null);
  const [rows, setRows] = useState(30);
  const [time, setTime] = useState('');
  const [timeProblem, setTimeProblem] = useState<string | null>(null);

  useLayoutEffect(() => {
    const el = body.current;
    if (!el) return;
    const measure = () => setRows(Math.max(1, Math.floor(el.clientHeight / ROW_PX)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  useEffect(() => body.current?.focus(), [s.paths]);
  // Back on the merged tab: the files' marks as their tabs left them.
  useEffect(() => void useMergeStore.getState().loadMarks(), []);

  const shown: { index: number; line: MergeLine }[] = [];
  for (let i = s.top; i < s.top + rows; i++) {
    const line = lineAt(s, i);
    if (!line) break;
    shown.push({ index: i, line });
  }
  const scrollBy = (delta: number) => {
    const store = useMergeStore.getState();
    // Reading back stops follow (as in a file); End or f goes to the end again.
    if (delta < 0 && store.following) void store.setFollowing(false);
    void store.scrollTo(store.top + delta, rows);
  };

  const onKey = (event: KeyboardEvent<HTMLDivElement>) => {
    if (mergedKeyDone(event, rows, scrollBy)) event.preventDefault();
  };
  const onWheel = (event: WheelEvent<HTMLDivElement>) => {
    if (event.deltaY !== 0) scrollBy(Math.sign(event.deltaY) * WHEEL_LINES);
  };
  const goToTime = async () => {
    if (!time.trim()) return;
    setTimeProblem(await useMergeStore.getState().goToTime(time.trim()));
    body.current?.focus();
  };

  const known = knownLinesOf(s);
  return (
    <section className="merged-view" data-testid="merged-view" aria-label="Merged logs">
      <div className="merged-toolbar">
        <ul className="merged-legend" aria-label="Merged files">
          {s.paths.map((path, fileIdx) => (
            <li key={path} title={path}>
              <span className="merged-tag" style={{ background: fileColourOf(fileIdx) }}>
                {tabNameOf(path)}
              </span>
            </li>
          ))}
        </ul>
        <form
          className="merged-time"
          onSubmit={(event) => {
            event.preventDefault();
            void goToTime();
          }}
        >
          <input aria-label="Go to time in merged view" placeholder="time (2024-05-01 12:30)" value={time} onChange={(event) => setTime(event.target.value)} />
        </form>
        <MergedToolButtons following={s.following} filterOpen={s.filterOpen} rows={rows} />
        <MergedStatus s={s} shownRows={shown.length} known={known} problem={timeProblem} />
      </div>
      {histogramOpen && <MergedHistogram />}
      {s.filterOpen && <MergedFilterBar onClose={() => body.current?.focus()} />}
      <div
        className="merged-lines"
        ref={body}
        tabIndex={0}
        role="listbox"
        aria-label="Merged lines"
        aria-activedescendant={s.selected !== null && shown.some((r) => r.index === s.selected) ? `merged-row-${s.selected}` : undefined}
        onKeyDown={onKey}
        onWheel={onWheel}
        // Every tag as wide as the longest name (up to 14 characters), so the lines' text starts in one column.
        style={{ ['--merged-tag-width' as string]: `${Math.min(14, Math.max(...s.paths.map((p) => tabNameOf(p).length)))}ch` }}
      >
        {shown.map(({ index, line }) => (
          <MergedRow key={index} index={index} line={line} selected={index === s.selected} marked={s.marks[line.path]?.includes(line.line) ?? false} />
        ))}
      </div>
    </section>
  );
}

/** The merged view's filter: the file filter's form over the merge-store's fields; Escape closes it (every line again). */
function MergedFilterBar({ onClose }: { onClose: () => void }) {
  const { filter, filterError } = useMergeStore(useShallow((m) => ({ filter: m.filter, filterError: m.filterError })));
  const store = useMergeStore.getState;
  const close = () => {
    store().toggleFilter();
    onClose();
  };
  return (
    <div className="merged-filter" aria-label="Merged view filter" role="search" onKeyDown={(event) => event.key === 'Escape' && close()}>
      <FilterForm
        {...filter}
        setTerms={(terms) => store().setFilter({ terms })}
        setExpression={(expression) => store().setFilter({ expression })}
        setLevels={(levels) => store().setFilter({ levels })}
        setCaseSensitive={(caseSensitive) => store().setFilter({ caseSensitive })}
        apply={() => void store().applyFilter()}
        hide={close}
        closeLabel="Close merged view filter"
      />
      {filterError && (
        <p className="find-error" role="alert" data-testid="merged-filter-error">
          {filterError}
        </p>
      )}
    </div>
  );
}

/** Where the view is ("lines 31–60 of 90,000"), and with a filter, how many lines it shows ("N+" until its end came). */
function MergedStatus(p: {
  s: Pick<MergeState, 'top' | 'lastWindow' | 'from' | 'loading' | 'error' | 'match' | 'notice'>;
  shownRows: number;
  known: number;
  problem: string | null;
}) {
  const { s, shownRows, known } = p;
  const where = shownRows
    ? `lines ${s.top + 1}–${s.top + shownRows}${s.lastWindow === null || s.match ? '' : ` of ${known}`}${s.from ? ` from ${s.from}` : ''}`
    : s.loading
      ? 'reading…'
      : s.match
        ? 'no matching lines'
        : 'no lines';
  return (
    <>
      <span className="merged-status" data-testid="merged-status">
        {s.error ?? p.problem ?? s.notice ?? where}
      </span>
      {s.match && !s.error && (
        <span className="merged-shown" data-testid="merged-shown" aria-live="polite">
          {count.format(known)}
          {s.lastWindow === null ? '+' : ''} shown
        </span>
      )}
    </>
  );
}

/**
 * The merged list's keys: the arrows move the selected line (the view follows it),
 * PageUp/PageDown/Space move the view and the selection a page, Home/End go to the
 * first/last line, u/U to the next/previous marked line, m marks the selected line,
 * f follows, Enter opens the selected line in its file. True when the key was one.
 */
function mergedKeyDone(event: KeyboardEvent<HTMLDivElement>, rows: number, scrollBy: (delta: number) => void): boolean {
  const store = useMergeStore.getState();
  const page = Math.max(1, rows - 1);
  const pages: Record<string, number> = { PageDown: page, PageUp: -page, ' ': page };
  const key = logKeyOf(event);
  if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
    void store.moveSelection(event.key === 'ArrowDown' ? 1 : -1, rows);
  } else if (event.key in pages) {
    const delta = pages[event.key]!;
    const selected = store.selected;
    scrollBy(delta);
    // The selection moves with the page, and stays on a line of the view.
    if (selected !== null) {
      const last = store.lastWindow === null ? Infinity : knownLinesOf(store) - 1;
      store.select(Math.min(last, Math.max(0, selected + delta)));
    }
  } else if (event.key === 'Home') {
    void store.setFollowing(false);
    void store.scrollTo(0, rows).then(() => useMergeStore.getState().select(0));
  } else if (event.key === 'End') {
    void store.toEnd(rows).then(() => {
      const s = useMergeStore.getState();
      s.select(Math.max(0, knownLinesOf(s) - 1));
    });
  } else if (key === 'follow') {
    void store.setFollowing(!store.following, rows);
  } else if (key === 'mark') {
    void store.toggleMark(store.selected ?? store.top);
  } else if (key === 'nextMark' || key === 'previousMark') {
    void store.stepMark(key === 'nextMark' ? 1 : -1, rows);
  } else if (event.key === 'Enter') {
    const selected = store.selected === null ? undefined : lineAt(store, store.selected);
    if (selected) openInTab(selected);
    return false;
  } else {
    return false;
  }
  return true;
}

/** Follow and Filter, on or off. */
function MergedToolButtons({ following, filterOpen, rows }: { following: boolean; filterOpen: boolean; rows: number }) {
  return (
    <>
      <button
        type="button"
        className="chip"
        aria-pressed={following}
        aria-label="Follow merged view"
        title="Follow: stay at the end as the logs grow (f)"
        onClick={() => void useMergeStore.getState().setFollowing(!following, rows)}
      >
        Follow
      </button>
      <button
        type="button"
        className="chip"
        aria-pressed={filterOpen}
        aria-label="Filter merged view"
        title="Filter (Ctrl+Shift+F)"
        onClick={() => useMergeStore.getState().toggleFilter()}
      >
        Filter
      </button>
      <button
        type="button"
        className="chip"
        aria-label="Histogram of merged view"
        title="Histogram (Ctrl+Shift+H)"
        onClick={() => useMergedHistogramStore.getState().toggle()}
      >
        Histogram
      </button>
    </>
  );
}

/** A merged line: its mark lane (a click marks or unmarks it in its file), its file's tag, its text; a click elsewhere opens it in its file. */
function MergedRow({ index, line, selected, marked }: { index: number; line: MergeLine; selected: boolean; marked: boolean }) {
  const name = `${tabNameOf(line.path)} line ${line.line}`;
  return (
    <div
      className={`merged-line${selected ? ' selected' : ''}${marked ? ' marked' : ''}`}
      role="option"
      id={`merged-row-${index}`}
      aria-selected={selected}
      data-testid="merged-line"
      data-index={index}
      data-path={line.path}
      data-line={line.line}
      data-marked={marked || undefined}
      onMouseDown={() => useMergeStore.getState().select(index)}
      onClick={() => openInTab(line)}
    >
      <span
        className="merged-mark"
        title={marked ? `Unmark ${name} (m)` : `Mark ${name} (m)`}
        data-testid="merged-mark"
        onClick={(event) => {
          event.stopPropagation();
          void useMergeStore.getState().toggleMark(index);
        }}
      >
        {marked ? '●' : ''}
      </span>
      <span className="merged-tag" style={{ background: fileColourOf(line.file) }} title={`${line.path}:${line.line}`}>
        {tabNameOf(line.path)}
      </span>
      <span className="merged-text">{line.text}</span>
    </div>
  );
}
