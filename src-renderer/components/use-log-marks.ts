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
    const fileLineOfRow = (row: number) => (useViewerStore.getState().window?.startLine ?? 1) + row - 1;
    const cursor = editor.onDidChangeCursorPosition((e) => useCursorStore.getState().set(fileLineOfRow(e.position.lineNumber)));
    const click = editor.onMouseDown((e) => {
      if (e.target.type !== monaco.monaco.editor.MouseTargetType.GUTTER_LINE_DECORATIONS || !e.target.position) return;
      void useMarksStore.getState().toggle(fileLineOfRow(e.target.position.lineNumber));
    });
    return () => {
      cursor.dispose();
      click.dispose();
    };
  }, [monaco, editorRef]);

  useEffect(() => {
    const editor = editorRef.current;
    const win = useViewerStore.getState().window;
    const model = editor?.getModel();
    if (!editor || !win || !model) return;
    marksRef.current ??= editor.createDecorationsCollection();
    const { Range } = monaco.monaco;
    const rows = model.getLineCount();
    marksRef.current.set(
      marked
        .filter((n) => n >= win.startLine && n - win.startLine + 1 <= rows)
        .map((n) => {
          const row = n - win.startLine + 1;
          return {
            range: new Range(row, 1, row, 1),
            options: { isWholeLine: true, className: 'folio-marked-line', linesDecorationsClassName: 'folio-mark-sign' },
          };
        }),
    );
  }, [monaco, editorRef, windowSeq, marked]);

  useEffect(() => {
    editorRef.current?.updateOptions({ wordWrap: wrap ? 'on' : 'off' });
  }, [editorRef, wrap]);
}
