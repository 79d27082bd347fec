import { useCallback, useEffect, useRef, useState } from 'react';
import type { ReviewProposal } from '../../src-main/api/schemas.ts';
import { useMonaco, type MonacoModule } from '../monaco/load-monaco.ts';
import type { MonacoEditor } from '../monaco/monaco.ts';
import { isSameFile, type ChangeStop } from '../model/change-order.ts';
import { linesLabelOf } from '../model/conflict-text.ts';
import { fileLineOfRow, inlineRowsOf, rowOfFileLine, type InlineRows } from '../model/inline-rows.ts';
import { needsNeighbourWindow, type LineWindow } from '../model/line-window.ts';
import { decisionUnitsOf, regionOf, type InlineChange } from '../model/proposal-edits.ts';
import { keyLabelsOf } from '../model/review-keys.ts';
import { requestApprove, requestReject } from '../stores/review-flow.ts';
import { useColumnsStore } from '../stores/columns-store.ts';
import { useReviewStore } from '../stores/review-store.ts';
import { useViewerStore, type Reveal } from '../stores/viewer-store.ts';
import type { LogKeyAction } from '../model/log-keys.ts';
import { inlineZoneNodesOf } from './inline-zone.ts';
import { ChangeBanner } from './ChangeBanner.tsx';
import { JsonColumns } from './JsonColumns.tsx';
import { PlainLines } from './PlainLines.tsx';
import { useOpenFileLanguage } from './use-file-language.ts';
import { useSelectedLines, type FileSelection } from './use-selected-lines.ts';
import { useLogMarks } from './use-log-marks.ts';
import { useWindowMarks } from './use-window-marks.ts';

export interface FileViewKeys {
  /** The viewer's handler (LogKeys.tsx; its keys come from its window listener): here, the wheel turned up reads back. */
  onKey(action: LogKeyAction): boolean;
}

/**
 * The open file's lines, numbered as in the file: plain text until the Monaco
 * chunk arrives (first paint never waits for it), then a Monaco editor holding the
 * store's window. Its keys are the viewer's (log-keys.ts, dispatched in LogKeys.tsx
 * wherever the focus is); the wheel turned up tells follow mode the person reads back.
 */
export function FileView(keys: FileViewKeys) {
  const monaco = useMonaco(false);
  // The plain rows stay over the editor until it has painted its first window: no blank frame, no jump.
  const [painted, setPainted] = useState(false);
  const hostRef = useRef<HTMLDivElement>(null);
  const keysRef = useRef(keys);
  keysRef.current = keys;
  const columns = useColumnsStore((s) => s.on);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const onWheel = (event: WheelEvent) => {
      if (event.deltaY < 0) keysRef.current.onKey('readBack');
    };
    host.addEventListener('wheel', onWheel, { capture: true, passive: true });
    return () => {
      host.removeEventListener('wheel', onWheel, true);
    };
  }, []);

  return (
    <div className={columns ? 'file-view with-columns' : 'file-view'} data-testid="file-view" ref={hostRef}>
      {monaco && <MonacoFileView monaco={monaco} columns={columns} onPainted={() => setPainted(true)} />}
      {!painted && <PlainLines />}
      <ChangeBanner />
    </div>
  );
}

/**
 * The Monaco editor over the store's window, with the selected proposal drawn inline
 * (and JSON Lines columns beside it when on); it reports which file lines are in view
 * and asks for the neighbouring window near an edge.
 */
function MonacoFileView({ monaco, columns, onPainted }: { monaco: MonacoModule; columns: boolean; onPainted(): void }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const editorRef = useRef<MonacoEditor | null>(null);
  const [editor, setEditor] = useState<MonacoEditor | null>(null);
  const shownRef = useRef<LineWindow | null>(null);
  const rowsRef = useRef<InlineRows | null>(null);
  const appliedSeqRef = useRef(-1);
  const revealedFocusRef = useRef(-1);
  const zoneIdsRef = useRef<string[]>([]);
  const applyingRef = useRef(false);
  /** While a window that keeps the view is applied: the selection changes Monaco reports are not the person's. */
  const keepingRef = useRef(false);
  const selectionRef = useRef<FileSelection | null>(null);
  const askedForSeqRef = useRef(-1);
  const foundRef = useRef<ReturnType<MonacoEditor['createDecorationsCollection']> | null>(null);
  const reviewRef = useRef<ReturnType<MonacoEditor['createDecorationsCollection']> | null>(null);

  const windowSeq = useViewerStore((s) => s.windowSeq);
  const totalLines = useViewerStore((s) => s.info?.lines ?? 0);
  const path = useViewerStore((s) => s.path);
  const inline = useReviewStore((s) => s.inline);
  const inlinePath = useReviewStore((s) => s.inlinePath);
  const queue = useReviewStore((s) => s.queue);
  const selectedId = useReviewStore((s) => s.selectedId);
  const focus = useReviewStore((s) => s.focus);
  const focusSeq = useReviewStore((s) => s.focusSeq);
  const language = useOpenFileLanguage();

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const editor = monaco.createFileEditor(host, (row) => (rowsRef.current ? (rowsRef.current.fileLines[row - 1] ?? null) : row));
    editorRef.current = editor;
    setEditor(editor);
    foundRef.current = editor.createDecorationsCollection();
    reviewRef.current = editor.createDecorationsCollection();
    const scrolled = editor.onDidScrollChange(() => {
      if (!applyingRef.current) reportViewport(editor, shownRef.current, rowsRef.current, appliedSeqRef.current, askedForSeqRef);
    });
    const resized = editor.onDidLayoutChange(() => {
      keepNewestLineInView(monaco, editor, shownRef.current);
      reportViewport(editor, shownRef.current, rowsRef.current, appliedSeqRef.current, askedForSeqRef);
    });
    performance.mark('folio:monaco-editor');
    return () => {
      scrolled.dispose();
      resized.dispose();
      editor.dispose();
      editorRef.current = null;
      setEditor(null);
      shownRef.current = null;
      rowsRef.current = null;
      zoneIdsRef.current = [];
    };
  }, [monaco]);

  useEffect(() => {
    // Full width for the file's biggest line number: 13,100,000 needs 8 digits, never clipped.
    editorRef.current?.updateOptions({ lineNumbersMinChars: Math.max(5, String(totalLines).length + 1) });
  }, [totalLines]);

  useEffect(() => {
    if (editorRef.current) monaco.setFileLanguage(editorRef.current, language);
  }, [monaco, language]);

  useEffect(() => {
    const editor = editorRef.current;
    const { window: next, reveal, highlightLine } = useViewerStore.getState();
    if (!editor || !next) return;
    // The view was hidden while the file loaded (App: viewer-body): Monaco's resize
    // observer may not have seen it shown yet, and a reveal against a 0-px tall view puts
    // the line at the top, with none of the lines above it (F7 into another file on a
    // loaded machine). Measure now, before anything is revealed.
    const host = hostRef.current;
    const laid = editor.getLayoutInfo();
    if (host && (host.clientHeight !== laid.height || host.clientWidth !== laid.width)) editor.layout();
    // A new window brings its reveal; a redraw of the inline diff keeps the view where it is.
    const newWindow = appliedSeqRef.current !== windowSeq;
    appliedSeqRef.current = windowSeq;
    const changes = inlinePath !== null && isSameFile(path, inlinePath) ? inline : [];
    const rows = inlineRowsOf(next.startLine, next.text, changes);
    const how: Reveal = newWindow ? reveal : { kind: 'keep' };
    const prevRows = rowsRef.current;
    applyingRef.current = true;
    keepingRef.current = how.kind === 'keep';
    // The rows the model is about to hold: a jump's selection is reported against them.
    rowsRef.current = rows;
    try {
      showWindow(monaco, editor, prevRows, rows, how, selectionRef.current);
      shownRef.current = next;
      const row = highlightLine !== null && highlightLine >= next.startLine && highlightLine <= next.endLine ? rowOfFileLine(rows, highlightLine) : null;
      foundRef.current?.set(row === null ? [] : monaco.foundLineDecorations(row));
      drawReview(monaco, editor, rows, zoneIdsRef, reviewRef.current, { queue, path, selectedId, focus, language });
      const focused = focus && rows.added.find((a) => a.change.proposalId === focus.proposalId && a.change.hunk === focus.hunk);
      if (focused && revealedFocusRef.current !== focusSeq) {
        revealedFocusRef.current = focusSeq;
        editor.revealLinesInCenterIfOutsideViewport(Math.max(1, focused.firstRow - 1), Math.max(focused.firstRow, focused.lastRow), monaco.IMMEDIATE);
      }
    } finally {
      applyingRef.current = false;
      keepingRef.current = false;
    }
    reportViewport(editor, next, rows, windowSeq, askedForSeqRef);
    // Monaco paints on its next animation frame; the frame after that has the rows on screen.
    requestAnimationFrame(() => requestAnimationFrame(onPainted));
  }, [monaco, windowSeq, inline, inlinePath, path, queue, selectedId, focus, focusSeq, language]);

  useWindowMarks(monaco, editorRef, windowSeq);
  useSelectedLines(editor, rowsRef, keepingRef, selectionRef);
  useLogMarks(monaco, editorRef, windowSeq);

  const fileLineOf = useCallback((row: number) => (rowsRef.current ? (rowsRef.current.fileLines[row - 1] ?? null) : null), []);

  return (
    <>
      {columns && editor && <JsonColumns editor={editor} fileLineOf={fileLineOf} />}
      <div className="monaco-host" ref={hostRef} data-language={language} />
    </>
  );
}

interface ReviewView {
  queue: ReviewProposal[];
  path: string | null;
  selectedId: string | null;
  focus: ChangeStop | null;
  /** the file's language, for the removed lines' colours */
  language: string;
}

/** The selected proposal's changes as view zones and tinted rows, and a gutter bar beside every pending proposal of the file. */
function drawReview(
  monaco: MonacoModule,
  editor: MonacoEditor,
  rows: InlineRows,
  zoneIdsRef: { current: string[] },
  decorations: ReturnType<MonacoEditor['createDecorationsCollection']> | null,
  view: ReviewView,
) {
  const keys = keyLabelsOf(isMac());
  const isFocused = (c: InlineChange) => view.focus?.proposalId === c.proposalId && view.focus.hunk === c.hunk;
  const zones = rows.zones.map((z) => {
    const p = view.queue.find((x) => x.id === z.change.proposalId);
    const units = p ? decisionUnitsOf(p).length : 0;
    const stop = { proposalId: z.change.proposalId, hunk: z.change.hunk, startLine: z.change.startLine };
    // Per hunk: this hunk's decision; otherwise the whole proposal's.
    const hunks = z.change.hunk === null ? undefined : [z.change.hunk];
    const last = z.change.startLine + Math.max(z.change.removed.length, 1) - 1;
    const title = [
      z.change.proposalId,
      p?.change.label,
      z.change.hunk !== null ? `hunk ${z.change.hunk} of ${units}` : null,
      z.change.removed.length ? linesLabelOf(z.change.startLine, last) : `insert before line ${z.change.startLine}`,
      p ? `by ${p.actor.name}` : null,
    ]
      .filter(Boolean)
      .join(' · ');
    const nodes = inlineZoneNodesOf(
      z.change,
      { title, acceptKeys: keys.accept, rejectKeys: keys.reject, focused: isFocused(z.change) },
      {
        accept: () => void requestApprove(z.change.proposalId, hunks ? { hunks } : {}, stop),
        reject: () => void requestReject(z.change.proposalId, hunks, stop),
      },
    );
    monaco.colorizeNodes([...nodes.domNode.querySelectorAll<HTMLElement>('.folio-inline-removed-row')], view.language);
    return { afterRow: z.afterRow, heightInLines: 1 + z.change.removed.length + (z.change.truncated ? 1 : 0), ...nodes };
  });
  zoneIdsRef.current = monaco.replaceViewZones(editor, zoneIdsRef.current, zones);
  const pending: { firstRow: number; lastRow: number; selected: boolean }[] = [];
  const firstLine = rows.fileLines.find((n) => n !== null) ?? 1;
  const lastLine = [...rows.fileLines].reverse().find((n) => n !== null) ?? 0;
  for (const p of view.queue) {
    if (!isSameFile(view.path, p.path)) continue;
    const region = regionOf(p);
    if (!region || region.endLine < firstLine || region.startLine > lastLine) continue;
    const shownInline = rows.added.some((a) => a.change.proposalId === p.id);
    if (shownInline) continue;
    pending.push({
      firstRow: rowOfFileLine(rows, region.startLine),
      lastRow: rowOfFileLine(rows, Math.min(region.endLine, lastLine)),
      selected: p.id === view.selectedId,
    });
  }
  const added = rows.added.map((a) => ({ firstRow: a.firstRow, lastRow: a.lastRow, focused: isFocused(a.change) }));
  decorations?.set(monaco.reviewDecorations(added, pending));
}

const isMac = () => /Mac|iPhone|iPad/.test(navigator.platform);

/**
 * Put `next` into the editor, revealing the asked line, or keeping the top file line,
 * the cursor's file line and what of the person's selection (`kept`) is in `next`.
 */
function showWindow(monaco: MonacoModule, editor: MonacoEditor, prev: InlineRows | null, next: InlineRows, reveal: Reveal, kept: FileSelection | null) {
  const model = editor.getModel();
  if (!model) return;
  const rowOf = (fileLine: number) => rowOfFileLine(next, fileLine);
  const lastRow = Math.max(1, next.fileLines.length);
  const firstLine = next.fileLines.find((n) => n !== null) ?? 1;
  const lastLine = [...next.fileLines].reverse().find((n) => n !== null) ?? firstLine;
  const inNext = (fileLine: number) => fileLine >= firstLine && fileLine <= lastLine;

  let keepTop: { fileLine: number; offsetPx: number } | null = null;
  let cursorFileLine: number | null = null;
  if (prev) {
    const topRow = editor.getVisibleRanges()[0]?.startLineNumber ?? 1;
    keepTop = { fileLine: fileLineOfRow(prev, topRow), offsetPx: editor.getScrollTop() - editor.getTopForLineNumber(topRow) };
    const cursor = editor.getPosition();
    if (cursor) cursorFileLine = fileLineOfRow(prev, cursor.lineNumber);
  }

  if (model.getValue() !== next.text) model.setValue(next.text);

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
    const selection = kept && selectionIn(monaco, model, next, kept);
    if (selection) editor.setSelection(selection);
    editor.setScrollTop(editor.getTopForLineNumber(rowOf(keepTop.fileLine)) + keepTop.offsetPx, monaco.IMMEDIATE);
  }
}

/** The part of `kept` in the rows `next` (clipped to its first and last file lines), or null when none of it is. */
function selectionIn(monaco: MonacoModule, model: NonNullable<ReturnType<MonacoEditor['getModel']>>, next: InlineRows, kept: FileSelection) {
  const firstLine = next.fileLines.find((n) => n !== null) ?? 1;
  const lastLine = [...next.fileLines].reverse().find((n) => n !== null) ?? firstLine;
  const top = Math.min(kept.anchorLine, kept.activeLine);
  const bottom = Math.max(kept.anchorLine, kept.activeLine);
  if (bottom < firstLine || top > lastLine) return null;
  // An end outside `next` is clipped to the start of its first line or the end of its last.
  const end = (line: number, column: number) => {
    if (line < firstLine) return { row: rowOfFileLine(next, firstLine), column: 1 };
    const row = rowOfFileLine(next, Math.min(line, lastLine));
    return { row, column: line > lastLine ? model.getLineMaxColumn(row) : Math.min(column, model.getLineMaxColumn(row)) };
  };
  const anchor = end(kept.anchorLine, kept.anchorColumn);
  const active = end(kept.activeLine, kept.activeColumn);
  return new monaco.monaco.Selection(anchor.row, anchor.column, active.row, active.column);
}

/**
 * While following, the newest line stays in view when the editor's height changes: the
 * window was scrolled to its bottom, and a toolbar that wraps afterwards (a longer
 * version label after the append, the window made smaller) would otherwise hide the last
 * rows under the fold until the next append.
 */
function keepNewestLineInView(monaco: MonacoModule, editor: MonacoEditor, shown: LineWindow | null) {
  const { following, followPaused, info } = useViewerStore.getState();
  if (!following || followPaused || !shown || !info || shown.endLine < info.lines) return;
  editor.setScrollTop(editor.getScrollHeight(), monaco.IMMEDIATE);
}

/**
 * Tell the store which file lines are in view; near an edge of the window, ask once for
 * the neighbouring one. Once per window the editor shows (`shownSeq`), not per window
 * the store holds: between the store taking a new window and the editor showing it, a
 * wheel event still reports the old window's rows, and its ask (a window around where
 * the new one already is) comes back the same and is dropped; keyed to the store's
 * window, that ask would have been the new window's only one, and the view stuck at
 * its edge (e2e/viewer.spec.ts "wheel and keys", under load).
 */
function reportViewport(editor: MonacoEditor, shown: LineWindow | null, rows: InlineRows | null, shownSeq: number, askedForSeqRef: { current: number }) {
  if (!shown || !rows) return;
  const ranges = editor.getVisibleRanges();
  const first = ranges[0];
  const last = ranges[ranges.length - 1];
  if (!first || !last) return;
  const topLine = fileLineOfRow(rows, first.startLineNumber);
  const bottomLine = Math.max(topLine, fileLineOfRow(rows, last.endLineNumber));
  const store = useViewerStore.getState();
  store.setViewport(topLine, bottomLine - topLine + 1);
  const total = store.info?.lines ?? 0;
  if (askedForSeqRef.current !== shownSeq && needsNeighbourWindow(shown, topLine, bottomLine, total)) {
    askedForSeqRef.current = shownSeq;
    void store.shiftWindowTo(Math.floor((topLine + bottomLine) / 2));
  }
}
