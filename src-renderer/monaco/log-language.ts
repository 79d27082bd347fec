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
  // WCAG AA (4.5:1) on white: b26a00 and 9e9e9e were 4.2 and 2.7.
  warn: '8b5300',
  info: '1565c0',
  debug: '6a737d',
  trace: '6b6b6b',
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
    // Monaco's light theme (vs) colours darkened to 4.6:1 on the inline diff's tints (green #2e7d3238,
    // red #c6282822 over white) and the selected queue row: axe's color-contrast, WCAG 2 AA. Each is
    // the vs colour scaled down until it passes; hues unchanged.
    ...[
      ['invalid', 'b42b2b'],
      ['variable.predefined', '445ea0'],
      ['constant', 'c20000'],
      ['comment', '007100'],
      ['number', '076e48'],
      ['annotation', '606060'],
      ['type', '006c6c'],
      ['tag.id.pug', '41618d'],
      ['tag.class.pug', '41618d'],
      ['metatag', 'c30000'],
      ['metatag.content.html', 'c40000'],
      ['metatag.html', '606060'],
      ['metatag.xml', '606060'],
      ['attribute.name', 'c40000'],
      ['attribute.value.number', '076e48'],
      ['attribute.value.unit', '076e48'],
      ['string.sql', 'c40000'],
      ['keyword.flow', 'a100c9'],
      ['operator.scss', '606060'],
      ['operator.sql', '56626e'],
      ['operator.swift', '606060'],
      ['predefined.sql', 'ab00ab'],
    ].map(([token, foreground]) => ({ token: token!, foreground: foreground! })),
  ],
  // The diff's tints, lighter than vs's (#ff000033 line + text stacked made a31515 strings 4.1:1): the
  // darkest token colour above keeps 4.6:1 on a changed character over a changed line.
  colors: {
    'diffEditor.removedLineBackground': '#ff00000f',
    'diffEditor.removedTextBackground': '#ff00001c',
    'diffEditor.insertedLineBackground': '#2e7d3214',
    'diffEditor.insertedTextBackground': '#2e7d3228',
  },
};
