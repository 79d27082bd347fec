import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type WheelEvent } from 'react';
import { useShallow } from 'zustand/shallow';
import { tabNameOf } from '../model/file-labels.ts';
import { knownLinesOf, lineAt, useMergeStore, type MergeLine } from '../stores/merge-store.ts';
import { useTabStore } from '../stores/tab-store.ts';

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
 * PageDown, the arrows and the wheel move through the view, fetching windows as
 * they are needed (merge-store.ts). A click or Enter opens the line in its file.
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
    })),
  );
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

  const shown: { index: number; line: MergeLine }[] = [];
  for (let i = s.top; i < s.top + rows; i++) {
    const line = lineAt(s, i);
    if (!line) break;
    shown.push({ index: i, line });
  }
  const scrollBy = (delta: number) => void useMergeStore.getState().scrollTo(useMergeStore.getState().top + delta, rows);

  const onKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const page = Math.max(1, rows - 1);
    const moves: Record<string, number> = { PageDown: page, PageUp: -page, ArrowDown: 1, ArrowUp: -1, ' ': page };
    if (event.key in moves) {
      event.preventDefault();
      scrollBy(moves[event.key]!);
    } else if (event.key === 'Home') {
      event.preventDefault();
      void useMergeStore.getState().scrollTo(0, rows);
    } else if (event.key === 'Enter') {
      const selected = s.selected === null ? undefined : lineAt(s, s.selected);
      if (selected) openInTab(selected);
    }
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
        <span className="merged-status" data-testid="merged-status">
          {s.error ??
            timeProblem ??
            (shown.length
              ? `lines ${s.top + 1}–${s.top + shown.length}${s.lastWindow === null ? '' : ` of ${known}`}${s.from ? ` from ${s.from}` : ''}`
              : s.loading
                ? 'reading…'
                : 'no lines')}
        </span>
      </div>
      <div className="merged-lines" ref={body} tabIndex={0} role="listbox" aria-label="Merged lines" onKeyDown={onKey} onWheel={onWheel}>
        {shown.map(({ index, line }) => (
          <div
            key={index}
            className={`merged-line${index === s.selected ? ' selected' : ''}`}
            role="option"
            aria-selected={index === s.selected}
            data-testid="merged-line"
            data-index={index}
            data-path={line.path}
            data-line={line.line}
            onMouseDown={() => useMergeStore.getState().select(index)}
            onClick={() => openInTab(line)}
          >
            <span className="merged-tag" style={{ background: fileColourOf(line.file) }} title={`${line.path}:${line.line}`}>
              {tabNameOf(line.path)}
            </span>
            <span className="merged-text">{line.text}</span>
          </div>
        ))}
      </div>
    </section>
  );
}
