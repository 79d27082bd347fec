import { useEffect, useRef } from 'react';
import { useMonaco } from '../monaco/load-monaco.ts';
import type { MonacoDiffEditor } from '../monaco/monaco.ts';
import type { DiffSides } from '../model/proposal-edits.ts';

/** A proposal's hunks (old lines against new ones) in Monaco's diff view, numbered as in the file, coloured as `language`; long lines wrap. */
export function DiffPreview({ sides, language = 'plaintext' }: { sides: DiffSides; language?: string }) {
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
    if (!editor || !monaco) return;
    const numbered = (lineNos: number[]) => (row: number) => String(lineNos[row - 1] ?? '');
    // As wide as the biggest number: line 13,100,000 shows whole, not clipped to 3 digits.
    const digits = String(Math.max(0, ...sides.originalLineNos, ...sides.modifiedLineNos)).length;
    const width = { lineNumbersMinChars: Math.max(3, digits + 1) };
    editor.getOriginalEditor().updateOptions({ ...width, lineNumbers: sides.summaryOnly ? 'off' : numbered(sides.originalLineNos) });
    editor.getModifiedEditor().updateOptions({ ...width, lineNumbers: sides.summaryOnly ? 'off' : numbered(sides.modifiedLineNos) });
    monaco.setDiffTexts(editor, sides.original, sides.modified);
    monaco.setDiffLanguage(editor, language);
  }, [monaco, sides, language]);

  return <div className="diff-preview" data-testid="diff-preview" ref={hostRef} />;
}
