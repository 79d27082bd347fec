import { useEffect, type RefObject } from 'react';
import type { MonacoEditor } from '../monaco/monaco.ts';
import { fileLineOfRow, type InlineRows } from '../model/inline-rows.ts';
import { useViewerStore } from '../stores/viewer-store.ts';

/** What the person selected, in file lines: where the selection was started (anchor) and where it ends now (active). */
export interface FileSelection {
  anchorLine: number;
  anchorColumn: number;
  activeLine: number;
  activeColumn: number;
}

/**
 * Report the file lines the person selects in the editor to the viewer store (Copy
 * link names them), and keep the selection, columns and direction too, in
 * `selectionRef`: the editor holds one window of the file, so when the view moves
 * to another window (the wheel past its edge) FileView's showWindow puts back what
 * of it is in the new one, and Copy link still names all of it. While FileView
 * applies a window that keeps the view (`quietRef`), Monaco's own selection changes
 * (the text replaced, the selection put back clipped) are not the person's and are
 * not reported. A selection ending at column 1 of a line does not take that line,
 * as editors count a selection of whole lines.
 */
export function useSelectedLines(
  editor: MonacoEditor | null,
  rowsRef: RefObject<InlineRows | null>,
  quietRef: RefObject<boolean>,
  selectionRef: { current: FileSelection | null },
): void {
  useEffect(() => {
    if (!editor) return;
    const report = () => {
      if (quietRef.current) return;
      const s = editor.getSelection();
      const rows = rowsRef.current;
      if (!s || !rows || s.isEmpty()) {
        selectionRef.current = null;
        return useViewerStore.getState().setSelection(null);
      }
      const anchorLine = fileLineOfRow(rows, s.selectionStartLineNumber);
      const activeLine = fileLineOfRow(rows, s.positionLineNumber);
      selectionRef.current = { anchorLine, anchorColumn: s.selectionStartColumn, activeLine, activeColumn: s.positionColumn };
      const startLine = fileLineOfRow(rows, s.startLineNumber);
      const endLine = fileLineOfRow(rows, s.endLineNumber);
      useViewerStore.getState().setSelection({ startLine, endLine: s.endColumn === 1 && endLine > startLine ? endLine - 1 : endLine });
    };
    report();
    const changed = editor.onDidChangeCursorSelection(report);
    return () => changed.dispose();
  }, [editor, rowsRef, quietRef, selectionRef]);
}
