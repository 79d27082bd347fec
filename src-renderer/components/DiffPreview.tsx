import { useEffect, useRef } from 'react';
import { useMonaco } from '../monaco/load-monaco.ts';
import type { MonacoDiffEditor } from '../monaco/monaco.ts';
import { diffSidesOf } from '../model/unified-diff.ts';

/** A proposal's preview (a unified diff of the region) in Monaco's diff view, numbered as in the file, coloured as `language`; long lines wrap. */
export function DiffPreview({ preview, language = 'plaintext' }: { preview: string; language?: string }) {
  const monaco = useMonaco(true);
  const hostRef = useRef<HTMLDivElement>(null);
  const editorRef = useRef<MonacoDiffEditor | null>(null);

  useEffect(() => {
    if (!hostRef.current || !monaco) return;
    const editor = monaco.createDiffEditor(hostRef.current);
    editorRef.current = editor;
    return () => {
      editor.dispose();
      editorRef.current = null;
    };
  }, [monaco]);

  useEffect(() => {
    const editor = editorRef.current;
    const model = editor?.getModel();
    if (!editor || !model || !monaco) return;
    const sides = diffSidesOf(preview);
    const numbered = (lineNos: number[]) => (row: number) => String(lineNos[row - 1] ?? '');
    // As wide as the biggest number: line 13,100,000 shows whole, not clipped to 3 digits.
    const digits = String(Math.max(0, ...sides.originalLineNos, ...sides.modifiedLineNos)).length;
    const width = { lineNumbersMinChars: Math.max(3, digits + 1) };
    editor.getOriginalEditor().updateOptions({ ...width, lineNumbers: sides.summaryOnly ? 'off' : numbered(sides.originalLineNos) });
    editor.getModifiedEditor().updateOptions({ ...width, lineNumbers: sides.summaryOnly ? 'off' : numbered(sides.modifiedLineNos) });
    monaco.setDiffLanguage(editor, language);
    model.original.setValue(sides.original);
    model.modified.setValue(sides.modified);
  }, [monaco, preview, language]);

  return <div className="diff-preview" data-testid="diff-preview" ref={hostRef} />;
}
