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
import { languageOf } from '../model/language-of.ts';
import { FOLIO_THEME, FOLIO_THEME_DATA, LOG_LANGUAGE_ID, LOG_MONARCH } from './log-language.ts';
// The source languages' tokenizers (each its own chunk, loaded when a file needs it).
import './languages.ts';

declare global {
  interface Window {
    MonacoEnvironment?: { getWorker(workerId: string, label: string): Worker };
  }
}

// The editor worker computes diffs for DiffPreview; there are no language services.
window.MonacoEnvironment = { getWorker: () => new EditorWorker() };

// Registered once, here: log levels and timestamps coloured in the views of logs.
monaco.languages.register({ id: LOG_LANGUAGE_ID });
monaco.languages.setMonarchTokensProvider(LOG_LANGUAGE_ID, LOG_MONARCH);
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
 * in the window) to the file's line number, so the gutter shows absolute lines;
 * null for a row that is no file line (a proposal's added line, drawn inline).
 */
export function createFileEditor(host: HTMLElement, fileLineOf: (row: number) => number | null): MonacoEditor {
  const model = monaco.editor.createModel('', 'plaintext');
  const editor = monaco.editor.create(host, {
    ...READ_ONLY_OPTIONS,
    model,
    ariaLabel: 'File text',
    lineNumbers: (row) => String(fileLineOf(row) ?? ''),
    lineNumbersMinChars: 8,
    // The lane between numbers and text carries the marks of pending proposals.
    lineDecorationsWidth: 12,
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

/** Colour the model with grammar `languageId` (model/language-of.ts chooses it). */
function setLanguage(model: monaco.editor.ITextModel | null | undefined, languageId: string): void {
  if (model && model.getLanguageId() !== languageId) monaco.editor.setModelLanguage(model, languageId);
}

/** Colour the file editor's text with `languageId`. */
export function setFileLanguage(editor: MonacoEditor, languageId: string): void {
  setLanguage(editor.getModel(), languageId);
}

/** Colour both sides of a diff editor with `languageId`. */
export function setDiffLanguage(editor: MonacoDiffEditor, languageId: string): void {
  const model = editor.getModel();
  setLanguage(model?.original, languageId);
  setLanguage(model?.modified, languageId);
}

/**
 * Lines drawn outside an editor (the inline diff's removed lines, the 3-way
 * columns) coloured as the editor colours them: each node's text replaced by
 * Monaco's token spans for `languageId`. Asynchronous (the grammar may still be
 * loading); a node whose text changed meanwhile is left alone.
 */
export function colorizeNodes(nodes: HTMLElement[], languageId: string): void {
  if (languageId === 'plaintext') return;
  for (const node of nodes) {
    const text = node.textContent ?? '';
    if (text.trim() === '') continue;
    void monaco.editor.colorize(text, languageId, { tabSize: 4 }).then((html) => {
      // colorize escapes the text and wraps each token in a span of its theme class; the trailing <br/> ends its
      // line. Its spaces are no-break ones, which a copy would keep: the rows are white-space: pre, plain ones do.
      if (node.textContent === text) node.innerHTML = html.replace(/<br\/?>$/, '').replace(/&nbsp;|&#160;|\u00a0/g, ' ');
    });
  }
}

/** The language of the file at `path` (its first lines in `sample` decide for a name that says nothing). */
export { languageOf };

/** The diff editor of DiffPreview, inline (the review panel is narrow); read-only, compact; long lines wrap rather than run off the narrow panel. */
export function createDiffEditor(host: HTMLElement): MonacoDiffEditor {
  const editor = monaco.editor.createDiffEditor(host, {
    ...READ_ONLY_OPTIONS,
    wordWrap: 'on',
    diffWordWrap: 'on',
    originalEditable: false,
    // Its two text areas need names (axe: aria-input-field-name); Monaco leaves them empty.
    originalAriaLabel: 'Diff: the lines before',
    modifiedAriaLabel: 'Diff: the lines proposed',
    renderSideBySide: false,
    // Compact rows: the narrow panel shows 20 of them at 1024×700 (styles.css).
    fontSize: 12,
    lineHeight: 17,
    lineNumbersMinChars: 3,
    lineDecorationsWidth: 6,
    renderOverviewRuler: false,
    enableSplitViewResizing: false,
    hideUnchangedRegions: { enabled: false },
  });
  // The options above do not reach the inner editors' text areas in 0.57: named here.
  editor.getOriginalEditor().updateOptions({ ariaLabel: 'Diff: the lines before' });
  editor.getModifiedEditor().updateOptions({ ariaLabel: 'Diff: the lines proposed' });
  const original = monaco.editor.createModel('', 'plaintext');
  const modified = monaco.editor.createModel('', 'plaintext');
  editor.setModel({ original, modified });
  editor.onDidDispose(() => {
    const model = editor.getModel();
    model?.original.dispose();
    model?.modified.dispose();
  });
  return editor;
}

/**
 * Both sides of a diff at once, as a new pair of models: setting one side then
 * the other lets Monaco apply the previous diff to half-changed text ("startLineNumber
 * cannot be after endLineNumberExclusive"). Unchanged texts keep their models.
 */
export function setDiffTexts(editor: MonacoDiffEditor, originalText: string, modifiedText: string): void {
  const old = editor.getModel();
  if (old && old.original.getValue() === originalText && old.modified.getValue() === modifiedText) return;
  const language = old?.modified.getLanguageId() ?? 'plaintext';
  editor.setModel({ original: monaco.editor.createModel(originalText, language), modified: monaco.editor.createModel(modifiedText, language) });
  if (!old) return;
  // The worker may still be diffing an old pair (F7 held down switches many times a second): disposed
  // under it, the diff answers "no diff result available" (a page error). Old pairs are kept, a few, and
  // go with the editor.
  let kept = retiredModels.get(editor);
  if (!kept) {
    const list: (typeof old)[] = [];
    retiredModels.set(editor, (kept = list));
    editor.onDidDispose(() => list.splice(0).forEach((m) => (m.original.dispose(), m.modified.dispose())));
  }
  kept.push(old);
  for (const m of kept.splice(0, Math.max(0, kept.length - RETIRED_KEPT))) {
    m.original.dispose();
    m.modified.dispose();
  }
}

/** Old model pairs kept per diff editor (setDiffTexts): more switches than this while one diff runs are not seen. */
const RETIRED_KEPT = 4;
const retiredModels = new WeakMap<MonacoDiffEditor, { original: { dispose(): void }; modified: { dispose(): void } }[]>();

/** An editable editor for a proposal's content (edit-then-approve): the file's own lines, coloured as the file. */
export function createTextEditor(host: HTMLElement, text: string, languageId = 'plaintext'): MonacoEditor {
  const model = monaco.editor.createModel(text, languageId);
  const editor = monaco.editor.create(host, {
    ...READ_ONLY_OPTIONS,
    readOnly: false,
    domReadOnly: false,
    model,
    ariaLabel: 'Your text',
    lineNumbersMinChars: 3,
    // The text is written as typed: no indentation carried over, no closing brackets added.
    autoIndent: 'none',
    autoClosingBrackets: 'never',
    autoClosingQuotes: 'never',
    autoSurround: 'never',
  });
  editor.onDidDispose(() => model.dispose());
  return editor;
}

/** A view zone of the inline review: after `afterRow`, `heightInLines` rows of `domNode` (and `marginDomNode` in the gutter). */
export interface ZoneSpec {
  afterRow: number;
  heightInLines: number;
  domNode: HTMLElement;
  marginDomNode?: HTMLElement;
}

/** Replace the editor's view zones `previousIds` with `zones`; returns the new ids. */
export function replaceViewZones(editor: MonacoEditor, previousIds: string[], zones: ZoneSpec[]): string[] {
  const ids: string[] = [];
  editor.changeViewZones((accessor) => {
    for (const id of previousIds) accessor.removeZone(id);
    for (const z of zones) {
      ids.push(
        accessor.addZone({
          afterLineNumber: z.afterRow,
          heightInLines: z.heightInLines,
          domNode: z.domNode,
          ...(z.marginDomNode ? { marginDomNode: z.marginDomNode } : {}),
          suppressMouseDown: false,
        }),
      );
    }
  });
  return ids;
}

/**
 * The inline review's marks: added rows tinted (the focused change's stronger),
 * and a bar in the gutter lane beside every pending proposal's lines.
 */
export function reviewDecorations(
  added: { firstRow: number; lastRow: number; focused: boolean }[],
  pending: { firstRow: number; lastRow: number; selected: boolean }[],
): monaco.editor.IModelDeltaDecoration[] {
  const out: monaco.editor.IModelDeltaDecoration[] = [];
  for (const a of added) {
    if (a.lastRow < a.firstRow) continue;
    out.push({
      range: new monaco.Range(a.firstRow, 1, a.lastRow, 1),
      options: {
        isWholeLine: true,
        className: a.focused ? 'folio-inline-added focused' : 'folio-inline-added',
        linesDecorationsClassName: 'folio-inline-added-mark',
      },
    });
  }
  for (const p of pending) {
    out.push({
      range: new monaco.Range(p.firstRow, 1, p.lastRow, 1),
      options: { isWholeLine: true, linesDecorationsClassName: p.selected ? 'folio-pending-mark selected' : 'folio-pending-mark' },
    });
  }
  return out;
}

/** The whole-line mark of the line a search result jumped to (row in the window, 1-based). */
export function foundLineDecorations(row: number): monaco.editor.IModelDeltaDecoration[] {
  return [{ range: new monaco.Range(row, 1, row, 1), options: { isWholeLine: true, className: 'folio-found-line', marginClassName: 'folio-found-line' } }];
}

/** Apply now, not smoothly: window swaps must not animate. */
export const IMMEDIATE = monaco.editor.ScrollType.Immediate;
