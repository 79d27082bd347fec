import { useEffect, type RefObject } from 'react';
import type { MonacoEditor } from '../monaco/monaco.ts';
import { useViewerStore } from '../stores/viewer-store.ts';

/**
 * Report the file lines selected in the editor to the viewer store (Copy link
 * names them). A selection ending at column 1 of a row does not take that row,
 * as editors count a selection of whole lines.
 */
export function useSelectedLines(editorRef: RefObject<MonacoEditor | null>, windowSeq: number): void {
  useEffect(() => {
    const editor = editorRef.current;
    if (!editor) return;
    const report = () => {
      const selection = editor.getSelection();
      const win = useViewerStore.getState().window;
      if (!selection || !win || selection.isEmpty()) return useViewerStore.getState().setSelection(null);
      const endRow = selection.endColumn === 1 && selection.endLineNumber > selection.startLineNumber ? selection.endLineNumber - 1 : selection.endLineNumber;
      useViewerStore.getState().setSelection({ startLine: win.startLine + selection.startLineNumber - 1, endLine: win.startLine + endRow - 1 });
    };
    report();
    const changed = editor.onDidChangeCursorSelection(report);
    return () => changed.dispose();
  }, [editorRef, windowSeq]);
}
