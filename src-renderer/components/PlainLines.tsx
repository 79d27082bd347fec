import { useLayoutEffect, useMemo, useRef } from 'react';
import { loadMonaco } from '../monaco/load-monaco.ts';
import { useCursorStore } from '../stores/cursor-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';

/** Rows painted before Monaco arrives: enough for any viewport. */
const PLAIN_ROWS = 120;

/** The rows' height (styles.css .plain-line, Monaco's). */
const ROW_PX = 19;

/**
 * The window's first rows as plain numbered text, shown until the Monaco chunk
 * is loaded, so the first paint waits only for the first read. It stands in for
 * the editor meanwhile: the lines in view are reported, and a click on a row makes
 * it the current line the viewer's keys act on (j, m, e …).
 */
export function PlainLines() {
  const rootRef = useRef<HTMLDivElement>(null);
  const win = useViewerStore((s) => s.window);
  const reveal = useViewerStore((s) => s.reveal);
  const rows = useMemo(() => {
    if (!win) return [];
    const wanted = reveal.kind === 'line' ? reveal.lineNo - (reveal.at === 'top' ? 0 : reveal.at === 'center' ? 20 : PLAIN_ROWS - 1) : win.startLine;
    const firstLine = Math.min(Math.max(win.startLine, wanted), win.endLine);
    return linesOf(win.text, firstLine - win.startLine, PLAIN_ROWS).map((text, i) => ({ lineNo: firstLine + i, text }));
  }, [win, reveal]);

  useLayoutEffect(() => {
    if (rows.length === 0) return;
    if (performance.getEntriesByName('folio:first-lines').length === 0) performance.mark('folio:first-lines');
    // Once these rows are on screen, fetch the editor (its evaluation would hold the first paint back).
    const frame = requestAnimationFrame(() => setTimeout(() => void loadMonaco(), 0));
    return () => cancelAnimationFrame(frame);
  }, [rows]);

  useLayoutEffect(() => {
    const first = rows[0];
    const height = rootRef.current?.clientHeight ?? 0;
    if (first && height > 0) useViewerStore.getState().setViewport(first.lineNo, Math.min(rows.length, Math.floor(height / ROW_PX)));
  }, [rows]);

  // Monaco's gutter (FileView): one digit more than the file's last line number, at least 5.
  const totalLines = useViewerStore((s) => s.info?.lines ?? 0);
  const digits = String(totalLines || (rows[rows.length - 1]?.lineNo ?? 1)).length + 1;
  return (
    <div
      className="plain-lines"
      data-testid="plain-lines"
      ref={rootRef}
      tabIndex={0}
      role="region"
      aria-label="File text"
      style={{ ['--digits' as string]: Math.max(5, digits) }}
    >
      {rows.map((row) => (
        <div className="plain-line" key={row.lineNo} onMouseDown={() => useCursorStore.getState().set(row.lineNo)}>
          <span className="plain-line-no">{row.lineNo}</span>
          <span className="plain-line-text">{row.text}</span>
        </div>
      ))}
    </div>
  );
}

/** `count` lines of `text` from 0-based line `skip`, without splitting the whole window. */
function linesOf(text: string, skip: number, count: number): string[] {
  let at = 0;
  for (let i = 0; i < skip && at !== -1; i++) {
    const nl = text.indexOf('\n', at);
    at = nl === -1 ? -1 : nl + 1;
  }
  const lines: string[] = [];
  while (at !== -1 && at <= text.length && lines.length < count) {
    const nl = text.indexOf('\n', at);
    lines.push(text.slice(at, nl === -1 ? text.length : nl).replace(/\r$/, ''));
    at = nl === -1 ? -1 : nl + 1;
  }
  return lines;
}
