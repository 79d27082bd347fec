import { useEffect, useRef } from 'react';
import { createFileEditor, IMMEDIATE, monaco, type MonacoEditor } from '../monaco/monaco.ts';
import { needsNeighbourWindow, type LineWindow } from '../model/line-window.ts';
import { useViewerStore } from '../stores/viewer-store.ts';

/**
 * The open file's lines: a Monaco editor holding the store's window, numbered as
 * in the file. It reports which file lines are in view and asks for the
 * neighbouring window near an edge; the swap keeps the same file line on top.
 */
export function FileView({ onGoToLineKey }: { onGoToLineKey(): void }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const editorRef = useRef<MonacoEditor | null>(null);
  const shownRef = useRef<LineWindow | null>(null);
  const applyingRef = useRef(false);
  const askedForSeqRef = useRef(-1);
  const goToLineKeyRef = useRef(onGoToLineKey);
  goToLineKeyRef.current = onGoToLineKey;

  const windowSeq = useViewerStore((s) => s.windowSeq);
  const totalLines = useViewerStore((s) => s.info?.lines ?? 0);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const editor = createFileEditor(host, (row) => (shownRef.current?.startLine ?? 1) + row - 1);
    editorRef.current = editor;
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyG, () => goToLineKeyRef.current());
    const scrolled = editor.onDidScrollChange(() => {
      if (!applyingRef.current) reportViewport(editor, shownRef.current, askedForSeqRef);
    });
    const resized = editor.onDidLayoutChange(() => reportViewport(editor, shownRef.current, askedForSeqRef));
    return () => {
      scrolled.dispose();
      resized.dispose();
      editor.dispose();
      editorRef.current = null;
    };
  }, []);

  useEffect(() => {
    editorRef.current?.updateOptions({ lineNumbersMinChars: Math.max(5, String(totalLines).length + 1) });
  }, [totalLines]);

  useEffect(() => {
    const editor = editorRef.current;
    const { window: next, reveal } = useViewerStore.getState();
    if (!editor || !next) return;
    applyingRef.current = true;
    try {
      showWindow(editor, shownRef.current, next, reveal);
      shownRef.current = next;
    } finally {
      applyingRef.current = false;
    }
    reportViewport(editor, next, askedForSeqRef);
  }, [windowSeq]);

  return <div className="file-view" data-testid="file-view" ref={hostRef} />;
}

/** Put `next` into the editor, keeping the top file line and the cursor's file line, or revealing the asked line. */
function showWindow(editor: MonacoEditor, prev: LineWindow | null, next: LineWindow, reveal: ReturnType<typeof useViewerStore.getState>['reveal']) {
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
    if (reveal.select) editor.setSelection(new monaco.Selection(row, 1, row, model.getLineMaxColumn(row)));
    if (reveal.at === 'top') editor.setScrollTop(editor.getTopForLineNumber(row), IMMEDIATE);
    else editor.revealLineInCenter(row, IMMEDIATE);
    return;
  }
  if (keepTop && inNext(keepTop.fileLine)) {
    if (cursorFileLine !== null && inNext(cursorFileLine)) editor.setPosition({ lineNumber: rowOf(cursorFileLine), column: 1 });
    else editor.setPosition({ lineNumber: rowOf(keepTop.fileLine), column: 1 });
    editor.setScrollTop(editor.getTopForLineNumber(rowOf(keepTop.fileLine)) + keepTop.offsetPx, IMMEDIATE);
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
