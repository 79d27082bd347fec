/**
 * `folio-log`: a Monarch grammar for common log lines (level words, ISO 8601
 * timestamps, key=value pairs, quoted strings) and the theme rules that colour
 * them. Levels follow the usual log4j / syslog spellings; a level is a whole word
 * in capitals (or bracketed), so "error" inside a message is left alone.
 */
import type * as MonacoApi from 'monaco-editor/editor/editor.api.js';

export const LOG_LANGUAGE_ID = 'folio-log';
export const FOLIO_THEME = 'folio-light';

/** The colour of each level token; the e2e suite reads ERROR's back from the page. */
export const LOG_COLOURS = {
  error: 'c62828',
  warn: 'b26a00',
  info: '1565c0',
  debug: '6a737d',
  trace: '9e9e9e',
  timestamp: '2e7d32',
} as const;

export const LOG_MONARCH: MonacoApi.languages.IMonarchLanguage = {
  defaultToken: '',
  tokenizer: {
    root: [
      [/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}([.,]\d+)?)?(Z|[+-]\d{2}:?\d{2})?/, 'log-timestamp'],
      [/\b(ERROR|ERR|FATAL|CRITICAL|SEVERE|PANIC)\b/, 'log-error'],
      [/\b(WARN|WARNING)\b/, 'log-warn'],
      [/\b(INFO|NOTICE)\b/, 'log-info'],
      [/\b(DEBUG|DBG)\b/, 'log-debug'],
      [/\b(TRACE|VERBOSE)\b/, 'log-trace'],
      [/"([^"\\]|\\.)*"/, 'log-string'],
      [/[A-Za-z_][\w.-]*(?==)/, 'log-key'],
    ],
  },
};

export const FOLIO_THEME_DATA: MonacoApi.editor.IStandaloneThemeData = {
  base: 'vs',
  inherit: true,
  rules: [
    { token: 'log-error', foreground: LOG_COLOURS.error, fontStyle: 'bold' },
    { token: 'log-warn', foreground: LOG_COLOURS.warn, fontStyle: 'bold' },
    { token: 'log-info', foreground: LOG_COLOURS.info },
    { token: 'log-debug', foreground: LOG_COLOURS.debug },
    { token: 'log-trace', foreground: LOG_COLOURS.trace },
    { token: 'log-timestamp', foreground: LOG_COLOURS.timestamp },
    { token: 'log-string', foreground: 'a31515' },
    { token: 'log-key', foreground: '795e26' },
  ],
  colors: {},
};
