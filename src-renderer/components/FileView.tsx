import { useEffect, useRef, useState } from 'react';
import { useMonaco, type MonacoModule } from '../monaco/load-monaco.ts';
import type { MonacoEditor } from '../monaco/monaco.ts';
import { needsNeighbourWindow, type LineWindow } from '../model/line-window.ts';
import { useViewerStore, type Reveal } from '../stores/viewer-store.ts';
import { logKeyOf, type LogKeyAction } from '../model/log-keys.ts';
import { PlainLines } from './PlainLines.tsx';
import { useSelectedLines } from './use-selected-lines.ts';
import { useWindowMarks } from './use-window-marks.ts';

export interface FileViewKeys {
  /** A viewer key was pressed (log-keys.ts); true when it was handled, so Monaco does not see it. */
  onKey(action: LogKeyAction): boolean;
}

/**
 * The open file's lines, numbered as in the file: plain text until the Monaco
 * chunk arrives (first paint never waits for it), then a Monaco editor holding the
 * store's window. Keys are in log-keys.ts (go to, find, follow, outline, the
 * file's ends, F3); the wheel turned up tells follow mode the person reads back.
 */
export function FileView(keys: FileViewKeys) {
  const monaco = useMonaco(false);
  // The plain rows stay over the editor until it has painted its first window: no blank frame, no jump.
  const [painted, setPainted] = useState(false);
  const hostRef = useRef<HTMLDivElement>(null);
  const keysRef = useRef(keys);
  keysRef.current = keys;

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    // Captured before Monaco sees them: its own bindings are global across editors.
    const onKeyDown = (event: KeyboardEvent) => {
      const action = logKeyOf(event);
      if (!action || !keysRef.current.onKey(action)) return;
      event.preventDefault();
      event.stopPropagation();
    };
    const onWheel = (event: WheelEvent) => {
      if (event.deltaY < 0) keysRef.current.onKey('readBack');
    };
    host.addEventListener('keydown', onKeyDown, true);
    host.addEventListener('wheel', onWheel, { capture: true, passive: true });
    return () => {
      host.removeEventListener('keydown', onKeyDown, true);
      host.removeEventListener('wheel', onWheel, true);
    };
  }, []);

  return (
    <div className="file-view" data-testid="file-view" ref={hostRef}>
      {monaco && <MonacoFileView monaco={monaco} onPainted={() => setPainted(true)} />}
      {!painted && <PlainLines />}
    </div>
  );
}

/** The Monaco editor over the store's window; it reports which file lines are in view and asks for the neighbouring window near an edge. */
function MonacoFileView({ monaco, onPainted }: { monaco: MonacoModule; onPainted(): void }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const editorRef = useRef<MonacoEditor | null>(null);
  const shownRef = useRef<LineWindow | null>(null);
  const applyingRef = useRef(false);
  const askedForSeqRef = useRef(-1);
  const foundRef = useRef<ReturnType<MonacoEditor['createDecorationsCollection']> | null>(null);

  const windowSeq = useViewerStore((s) => s.windowSeq);
  const totalLines = useViewerStore((s) => s.info?.lines ?? 0);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const editor = monaco.createFileEditor(host, (row) => (shownRef.current?.startLine ?? 1) + row - 1);
    editorRef.current = editor;
    foundRef.current = editor.createDecorationsCollection();
    const scrolled = editor.onDidScrollChange(() => {
      if (!applyingRef.current) reportViewport(editor, shownRef.current, askedForSeqRef);
    });
    const resized = editor.onDidLayoutChange(() => reportViewport(editor, shownRef.current, askedForSeqRef));
    performance.mark('folio:monaco-editor');
    return () => {
      scrolled.dispose();
      resized.dispose();
      editor.dispose();
      editorRef.current = null;
      shownRef.current = null;
    };
  }, [monaco]);

  useEffect(() => {
    editorRef.current?.updateOptions({ lineNumbersMinChars: Math.max(5, String(totalLines).length + 1) });
  }, [totalLines]);

  const path = useViewerStore((s) => s.path);
  useEffect(() => {
    if (editorRef.current) monaco.setFileLanguage(editorRef.current, path);
  }, [monaco, path]);

  useEffect(() => {
    const editor = editorRef.current;
    const { window: next, reveal, highlightLine } = useViewerStore.getState();
    if (!editor || !next) return;
    applyingRef.current = true;
    try {
      showWindow(monaco, editor, shownRef.current, next, reveal);
      shownRef.current = next;
      const row = highlightLine !== null && highlightLine >= next.startLine && highlightLine <= next.endLine ? highlightLine - next.startLine + 1 : null;
      foundRef.current?.set(row === null ? [] : monaco.foundLineDecorations(row));
    } finally {
      applyingRef.current = false;
    }
    reportViewport(editor, next, askedForSeqRef);
    // Monaco paints on its next animation frame; the frame after that has the rows on screen.
    requestAnimationFrame(() => requestAnimationFrame(onPainted));
  }, [monaco, windowSeq]);

  useWindowMarks(monaco, editorRef, windowSeq);
  useSelectedLines(editorRef, windowSeq);

  return <div className="monaco-host" ref={hostRef} />;
}

/** Put `next` into the editor, keeping the top file line and the cursor's file line, or revealing the asked line. */
function showWindow(monaco: MonacoModule, editor: MonacoEditor, prev: LineWindow | null, next: LineWindow, reveal: Reveal) {
  const model = editor.getModel();
  if (!model) return;
  const rowOf = (fileLine: number) => fileLine - next.startLine + 1;
  const lastRow = next.endLine - next.startLine + 1;
  const inNext = (fileLine: number) => fileLine >= next.startLine && fileLine <= next.endLine;

  let keepTop: { fileLine: number; offsetPx: number } | null = null;
  let cursorFileLine: number | null = null;
  if (prev) {
    const topRow = editor.getVisibleRanges()[0]?.startLineNumber ?? 1;
    keepTop = { fileLine: prev.startLine + topRow - 1, offsetPx: editor.getScrollTop() - editor.getTopForLineNumber(topRow) };
    const cursor = editor.getPosition();
    if (cursor) cursorFileLine = prev.startLine + cursor.lineNumber - 1;
  }

  model.setValue(next.text);

  if (reveal.kind === 'line') {
    const row = Math.min(Math.max(1, rowOf(reveal.lineNo)), lastRow);
    editor.setPosition({ lineNumber: row, column: 1 });
    const endRow = reveal.selectTo === undefined ? row : Math.min(Math.max(row, rowOf(reveal.selectTo)), lastRow);
    if (reveal.select) editor.setSelection(new monaco.monaco.Selection(row, 1, endRow, model.getLineMaxColumn(endRow)));
    if (reveal.at === 'top') editor.setScrollTop(editor.getTopForLineNumber(row), monaco.IMMEDIATE);
    else if (reveal.at === 'bottom') editor.setScrollTop(editor.getScrollHeight(), monaco.IMMEDIATE);
    else editor.revealLineInCenter(row, monaco.IMMEDIATE);
    return;
  }
  if (keepTop && inNext(keepTop.fileLine)) {
    if (cursorFileLine !== null && inNext(cursorFileLine)) editor.setPosition({ lineNumber: rowOf(cursorFileLine), column: 1 });
    else editor.setPosition({ lineNumber: rowOf(keepTop.fileLine), column: 1 });
    editor.setScrollTop(editor.getTopForLineNumber(rowOf(keepTop.fileLine)) + keepTop.offsetPx, monaco.IMMEDIATE);
  }
}

/** Tell the store which file lines are in view; near an edge of the window, ask once for the neighbouring one. */
function reportViewport(editor: MonacoEditor, shown: LineWindow | null, askedForSeqRef: { current: number }) {
  if (!shown) return;
  const ranges = editor.getVisibleRanges();
  const first = ranges[0];
  const last = ranges[ranges.length - 1];
  if (!first || !last) return;
  const topLine = shown.startLine + first.startLineNumber - 1;
  const bottomLine = shown.startLine + last.endLineNumber - 1;
  const store = useViewerStore.getState();
  store.setViewport(topLine, bottomLine - topLine + 1);
  const total = store.info?.lines ?? 0;
  if (askedForSeqRef.current !== store.windowSeq && needsNeighbourWindow(shown, topLine, bottomLine, total)) {
    askedForSeqRef.current = store.windowSeq;
    void store.shiftWindowTo(Math.floor((topLine + bottomLine) / 2));
  }
}
