/**
 * Monaco, wrapped once: the editor core from the local `monaco-editor` package
 * (no CDN, no AMD loader), its one web worker bundled by Vite, and the few
 * contributions a read-only viewer needs. Everything else in the renderer gets
 * Monaco from here.
 */
import * as monaco from 'monaco-editor/editor/editor.api.js';
// The icon font (diff gutter signs).
import 'monaco-editor/features/codicon/register.js';
import EditorWorker from 'monaco-editor/editor/editor.worker.js?worker';
import { conf as markdownConf, language as markdownMonarch } from 'monaco-editor/languages/definitions/markdown/markdown.js';
import { FOLIO_THEME, FOLIO_THEME_DATA, LOG_LANGUAGE_ID, LOG_MONARCH } from './log-language.ts';

declare global {
  interface Window {
    MonacoEnvironment?: { getWorker(workerId: string, label: string): Worker };
  }
}

// The editor worker computes diffs for DiffPreview; there are no language services.
window.MonacoEnvironment = { getWorker: () => new EditorWorker() };

// Registered once, here: log levels and timestamps coloured in every file view.
monaco.languages.register({ id: LOG_LANGUAGE_ID });
monaco.languages.setMonarchTokensProvider(LOG_LANGUAGE_ID, LOG_MONARCH);
// Markdown files (which the outline panel is for) get Monaco's own markdown grammar.
monaco.languages.register({ id: 'markdown', extensions: ['.md', '.markdown', '.mdx'] });
monaco.languages.setLanguageConfiguration('markdown', markdownConf);
monaco.languages.setMonarchTokensProvider('markdown', markdownMonarch);
monaco.editor.defineTheme(FOLIO_THEME, FOLIO_THEME_DATA);
monaco.editor.setTheme(FOLIO_THEME);

export { monaco };
export type MonacoEditor = monaco.editor.IStandaloneCodeEditor;
export type MonacoDiffEditor = monaco.editor.IStandaloneDiffEditor;

/** Options shared by every Folio editor: read-only, no wrapping (one row per line keeps scroll math exact). */
export const READ_ONLY_OPTIONS: monaco.editor.IEditorOptions = {
  readOnly: true,
  domReadOnly: true,
  wordWrap: 'off',
  minimap: { enabled: false },
  automaticLayout: true,
  scrollBeyondLastLine: false,
  renderValidationDecorations: 'off',
  contextmenu: false,
  fontSize: 13,
  lineHeight: 19,
  fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace',
};

/**
 * The read-only editor of FileView. `fileLineOf(row)` maps an editor row (1-based,
 * in the window) to the file's line number, so the gutter shows absolute lines.
 */
export function createFileEditor(host: HTMLElement, fileLineOf: (row: number) => number): MonacoEditor {
  const model = monaco.editor.createModel('', LOG_LANGUAGE_ID);
  const editor = monaco.editor.create(host, {
    ...READ_ONLY_OPTIONS,
    model,
    lineNumbers: (row) => String(fileLineOf(row)),
    lineNumbersMinChars: 8,
    // FileScrollbar stands for the whole file; Monaco's own would only know the window.
    scrollbar: { vertical: 'hidden', horizontal: 'auto', alwaysConsumeMouseWheel: true },
    overviewRulerLanes: 0,
    hideCursorInOverviewRuler: true,
    renderLineHighlight: 'line',
    occurrencesHighlight: 'off',
    selectionHighlight: false,
    stickyScroll: { enabled: false },
  });
  editor.onDidDispose(() => model.dispose());
  return editor;
}

/** The grammar a file view uses for `path`: markdown by extension, else the log grammar (levels and timestamps). */
export function languageOfPath(path: string | null): string {
  return path && /\.(md|markdown|mdx|mdown|mkdn?)$/i.test(path) ? 'markdown' : LOG_LANGUAGE_ID;
}

/** Colour the file editor's text with the grammar of `path`. */
export function setFileLanguage(editor: MonacoEditor, path: string | null): void {
  const model = editor.getModel();
  const id = languageOfPath(path);
  if (model && model.getLanguageId() !== id) monaco.editor.setModelLanguage(model, id);
}

/** The diff editor of DiffPreview, inline (the review panel is narrow); read-only. */
export function createDiffEditor(host: HTMLElement): MonacoDiffEditor {
  const editor = monaco.editor.createDiffEditor(host, {
    ...READ_ONLY_OPTIONS,
    originalEditable: false,
    renderSideBySide: false,
    lineNumbersMinChars: 3,
    lineDecorationsWidth: 6,
    renderOverviewRuler: false,
    enableSplitViewResizing: false,
    hideUnchangedRegions: { enabled: false },
  });
  const original = monaco.editor.createModel('', 'plaintext');
  const modified = monaco.editor.createModel('', 'plaintext');
  editor.setModel({ original, modified });
  editor.onDidDispose(() => {
    original.dispose();
    modified.dispose();
  });
  return editor;
}

/** An editable editor for a proposal's content (edit-then-approve); plain text, the file's own lines. */
export function createTextEditor(host: HTMLElement, text: string): MonacoEditor {
  const model = monaco.editor.createModel(text, 'plaintext');
  const editor = monaco.editor.create(host, {
    ...READ_ONLY_OPTIONS,
    readOnly: false,
    domReadOnly: false,
    model,
    lineNumbersMinChars: 3,
  });
  editor.onDidDispose(() => model.dispose());
  return editor;
}

/** The whole-line mark of the line a search result jumped to (row in the window, 1-based). */
export function foundLineDecorations(row: number): monaco.editor.IModelDeltaDecoration[] {
  return [{ range: new monaco.Range(row, 1, row, 1), options: { isWholeLine: true, className: 'folio-found-line', marginClassName: 'folio-found-line' } }];
}

/** Apply now, not smoothly: window swaps must not animate. */
export const IMMEDIATE = monaco.editor.ScrollType.Immediate;
