import { useEffect, useRef, type RefObject } from 'react';
import type { MonacoModule } from '../monaco/load-monaco.ts';
import type { MonacoEditor } from '../monaco/monaco.ts';
import { useCursorStore } from '../stores/cursor-store.ts';
import { useMarksStore } from '../stores/marks-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';
import { useWrapStore } from '../stores/wrap-store.ts';
import { useHighlightMarks } from './use-highlight-marks.ts';

/**
 * What the log tools add to FileView's editor: highlight rules' marks, marked
 * lines (tinted, a ◆ in the gutter lane; a click in that lane marks or unmarks
 * the line), the cursor's file line (the line the log keys act on), and wrap.
 */
export function useLogMarks(monaco: MonacoModule, editorRef: RefObject<MonacoEditor | null>, windowSeq: number): void {
  useHighlightMarks(monaco, editorRef, windowSeq);
  const marksRef = useRef<ReturnType<MonacoEditor['createDecorationsCollection']> | null>(null);
  const marked = useMarksStore((s) => s.lines);
  const wrap = useWrapStore((s) => s.wrap);

  useEffect(() => {
    const editor = editorRef.current;
    if (!editor) return;
    const cursor = editor.onDidChangeCursorPosition((e) => useCursorStore.getState().set(fileLineOfRow(monaco, editor, e.position.lineNumber)));
    const click = editor.onMouseDown((e) => {
      if (e.target.type !== monaco.monaco.editor.MouseTargetType.GUTTER_LINE_DECORATIONS || !e.target.position) return;
      const lineNo = fileLineOfRow(monaco, editor, e.target.position.lineNumber);
      if (lineNo !== null) void useMarksStore.getState().toggle(lineNo);
    });
    return () => {
      cursor.dispose();
      click.dispose();
    };
  }, [monaco, editorRef]);

  useEffect(() => {
    const editor = editorRef.current;
    const model = editor?.getModel();
    if (!editor || !useViewerStore.getState().window || !model) return;
    // The window was swapped before FileView's row map was: the cursor's file line is read again now.
    const position = editor.getPosition();
    if (position) useCursorStore.getState().set(fileLineOfRow(monaco, editor, position.lineNumber));
    marksRef.current ??= editor.createDecorationsCollection();
    const { Range } = monaco.monaco;
    const wanted = new Set(marked);
    const rows: number[] = [];
    for (let row = 1; row <= model.getLineCount(); row++) {
      const lineNo = fileLineOfRow(monaco, editor, row);
      if (lineNo !== null && wanted.has(lineNo)) rows.push(row);
    }
    marksRef.current.set(
      rows.map((row) => ({
        range: new Range(row, 1, row, 1),
        options: { isWholeLine: true, className: 'folio-marked-line', linesDecorationsClassName: 'folio-mark-sign' },
      })),
    );
  }, [monaco, editorRef, windowSeq, marked]);

  useEffect(() => {
    editorRef.current?.updateOptions({ wordWrap: wrap ? 'on' : 'off' });
  }, [editorRef, wrap]);
}

/** The file line an editor row shows, as its gutter numbers it (rows of an inline proposal are no file line: null). */
function fileLineOfRow(monaco: MonacoModule, editor: MonacoEditor, row: number): number | null {
  const numbers = editor.getOption(monaco.monaco.editor.EditorOption.lineNumbers);
  const label = numbers.renderFn ? numbers.renderFn(row) : String(row);
  const lineNo = Number(label);
  return label !== '' && Number.isInteger(lineNo) ? lineNo : null;
}
