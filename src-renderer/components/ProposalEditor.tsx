import { useEffect, useRef } from 'react';
import { useMonaco } from '../monaco/load-monaco.ts';

/** The proposal's content in an editable Monaco editor (edit-then-approve), coloured as `language`; reports every change. */
export function ProposalEditor({ initialText, onChange, language }: { initialText: string; onChange(text: string): void; language?: string }) {
  const monaco = useMonaco(true);
  const hostRef = useRef<HTMLDivElement>(null);
  // The first text only: later renders must not reset what the person typed.
  const initialRef = useRef(initialText);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const languageRef = useRef(language);

  useEffect(() => {
    if (!hostRef.current || !monaco) return;
    const editor = monaco.createTextEditor(hostRef.current, initialRef.current, languageRef.current);
    const listener = editor.onDidChangeModelContent(() => onChangeRef.current(editor.getValue()));
    editor.focus();
    return () => {
      listener.dispose();
      editor.dispose();
    };
  }, [monaco]);

  return <div className="proposal-editor" data-testid="proposal-editor" data-ready={monaco ? 'true' : 'false'} ref={hostRef} />;
}
