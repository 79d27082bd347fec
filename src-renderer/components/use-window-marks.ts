import { useEffect, useRef, type RefObject } from 'react';
import type { MonacoModule } from '../monaco/load-monaco.ts';
import type { MonacoEditor } from '../monaco/monaco.ts';
import { matchRangesOf } from '../model/find-matches.ts';
import { lineSizeLabelOf } from '../model/window-reader.ts';
import { useFindStore } from '../stores/find-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';

type Decoration = import('monaco-editor').editor.IModelDeltaDecoration;

/**
 * What FileView marks on the window besides its text: each line shown cut (a
 * tinted row with a ✂ in the gutter), every match of the find pattern (the
 * matched text, not the whole line) and the current match more strongly. Applied
 * after each new window and each find change.
 */
export function useWindowMarks(monaco: MonacoModule, editorRef: RefObject<MonacoEditor | null>, windowSeq: number): void {
  const marksRef = useRef<ReturnType<MonacoEditor['createDecorationsCollection']> | null>(null);
  const searchedFor = useFindStore((s) => s.searchedFor);
  const findOpen = useFindStore((s) => s.open);
  const current = useFindStore((s) => (s.current === null ? null : (s.results[s.current] ?? null)));

  useEffect(() => {
    const editor = editorRef.current;
    const win = useViewerStore.getState().window;
    const model = editor?.getModel();
    if (!editor || !win || !model) return;
    marksRef.current ??= editor.createDecorationsCollection();
    const { Range } = monaco.monaco;
    const decorations: Decoration[] = [];
    for (const cut of win.cutLines ?? []) {
      const row = cut.lineNo - win.startLine + 1;
      if (row < 1 || row > model.getLineCount()) continue;
      // Injected text (Monaco's `before`) is not rendered by this editor build, so the mark is the row's tint and a gutter sign; LongLineBar says the size.
      decorations.push({
        range: new Range(row, 1, row, 1),
        options: {
          isWholeLine: true,
          className: 'folio-cut-line',
          linesDecorationsClassName: 'folio-cut-line-sign',
          hoverMessage: { value: `${lineSizeLabelOf(cut.lineBytes)} line, cut` },
        },
      });
    }
    if (findOpen && searchedFor && searchedFor.path === useViewerStore.getState().path) {
      for (const m of matchRangesOf(model.getLinesContent(), searchedFor.pattern, searchedFor.caseSensitive)) {
        const fileLine = win.startLine + m.row - 1;
        // The engine reports one result per line: stepping goes line by line, so the current line's matches are the current ones.
        const isCurrent = current !== null && current.line === fileLine;
        decorations.push({
          range: new Range(m.row, m.column, m.row, m.column + m.length),
          options: { inlineClassName: isCurrent ? 'folio-find-match current' : 'folio-find-match' },
        });
      }
    }
    marksRef.current.set(decorations);
  }, [monaco, editorRef, windowSeq, searchedFor, findOpen, current]);
}
