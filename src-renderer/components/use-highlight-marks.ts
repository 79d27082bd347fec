import { useEffect, useRef, type RefObject } from 'react';
import type { MonacoModule } from '../monaco/load-monaco.ts';
import type { MonacoEditor } from '../monaco/monaco.ts';
import { ruleSourceOf } from '../model/highlight-rules.ts';
import { matchHighlights } from '../stores/highlight-matcher.ts';
import { useHighlightStore } from '../stores/highlight-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';

/**
 * Marks the text every enabled highlight rule matches on the window shown, in
 * the rule's colour (a background: the log grammar keeps colouring levels and
 * timestamps). Matching runs in a worker under a time budget per rule.
 */
export function useHighlightMarks(monaco: MonacoModule, editorRef: RefObject<MonacoEditor | null>, windowSeq: number): void {
  const marksRef = useRef<ReturnType<MonacoEditor['createDecorationsCollection']> | null>(null);
  const rules = useHighlightStore((s) => s.rules);

  useEffect(() => {
    const editor = editorRef.current;
    const model = editor?.getModel();
    if (!editor || !model || !useViewerStore.getState().window) return;
    marksRef.current ??= editor.createDecorationsCollection();
    const marks = marksRef.current;
    const on = rules.map((rule, index) => ({ rule, index })).filter((r) => r.rule.enabled);
    if (on.length === 0) {
      marks.clear();
      return;
    }
    let live = true;
    void matchHighlights(
      model.getLinesContent(),
      on.map((r) => ruleSourceOf(r.rule)),
    ).then((answer) => {
      if (!live || !answer || editor.getModel() !== model) return;
      if (answer.slowRule !== null) {
        void useHighlightStore.getState().turnOffSlow(on[answer.slowRule]!.index);
        return;
      }
      const { Range } = monaco.monaco;
      marks.set(
        answer.ranges.map((m) => ({
          range: new Range(m.row, m.column, m.row, m.column + m.length),
          options: { inlineClassName: `folio-hl folio-hl-${on[m.rule]!.rule.color}` },
        })),
      );
    });
    return () => {
      live = false;
    };
  }, [monaco, editorRef, windowSeq, rules]);
}
