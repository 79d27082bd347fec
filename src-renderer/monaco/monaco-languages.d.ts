/** Monaco's bundled Monarch grammars ship without typings; the two exports each has. */
declare module 'monaco-editor/languages/definitions/markdown/markdown.js' {
  import type * as monaco from 'monaco-editor/editor/editor.api.js';
  export const conf: monaco.languages.LanguageConfiguration;
  export const language: monaco.languages.IMonarchLanguage;
}
