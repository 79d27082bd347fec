/**
 * The viewer's keys, as one table: dispatch (logKeyOf) and the `?` help
 * (LogKeys.tsx) both read it, so a key cannot work without being listed.
 *
 * Some are taken from Monaco (its own bindings are global across editors: Ctrl+G,
 * Ctrl+F, F3, Ctrl+Home/End over the file instead of the window); others are only
 * watched, Monaco still scrolls, but they tell follow mode the person is reading
 * back (PageUp, ArrowUp, Home). The log tools' keys are lnav's where it has them: m
 * marks the line, u / U next / previous mark, e / E next / previous error, h / H
 * next / previous highlighted line, j the line as JSON, c JSON Lines fields as
 * columns, Alt+Z wrap (VS Code's), q the query panel (SQL over the log).
 */
export type LogKeyAction =
  | 'goTo'
  | 'find'
  | 'focusPath'
  | 'follow'
  | 'outline'
  | 'filter'
  | 'histogram'
  | 'firstLine'
  | 'lastLine'
  | 'findNext'
  | 'findPrevious'
  | 'end'
  | 'escape'
  | 'readBack'
  | LogToolKeyAction;

export type LogToolKeyAction =
  'mark' | 'nextMark' | 'previousMark' | 'nextError' | 'previousError' | 'nextHighlight' | 'previousHighlight' | 'json' | 'columns' | 'wrap' | 'query';

/**
 * One row of the help: its chords (as the help prints them: `Ctrl+Shift+F`, `u`, `U`
 * is Shift+u, `Shift+F3`; Ctrl is Cmd on macOS) and their actions. `anywhere`: the
 * key works in text boxes too (it types nothing there); the others are left to a
 * text box that has the focus. `viewerOnly`: only with the focus in the file view
 * or its scrollbar (keys that also move a focused list or button).
 */
export interface LogKeyRow {
  chords: readonly (readonly [chord: string, action: LogKeyAction])[];
  does: string;
  anywhere?: boolean;
  viewerOnly?: boolean;
}

export const LOG_KEYS: readonly LogKeyRow[] = [
  { chords: [['Ctrl+G', 'goTo']], does: 'Focus go to', anywhere: true },
  { chords: [['Ctrl+F', 'find']], does: 'Find in the whole file', anywhere: true },
  {
    chords: [
      ['F3', 'findNext'],
      ['Shift+F3', 'findPrevious'],
    ],
    does: 'Next / previous match',
    anywhere: true,
  },
  { chords: [['Escape', 'escape']], does: 'Close find' },
  { chords: [['Ctrl+Shift+F', 'filter']], does: 'Filter view (on the merged tab: filter the merged view)', anywhere: true },
  {
    chords: [['Ctrl+Shift+H', 'histogram']],
    does: 'Histogram of the whole file, or of the merged view (click or Enter on a bar: its first line)',
    anywhere: true,
  },
  {
    chords: [
      ['Ctrl+Home', 'firstLine'],
      ['Ctrl+End', 'lastLine'],
    ],
    does: "The file's first / last line",
  },
  { chords: [['f', 'follow']], does: 'Follow on / off (the merged view too)' },
  { chords: [['End', 'end']], does: 'Resume a paused follow (else the end of the line)', viewerOnly: true },
  {
    chords: [
      ['PageUp', 'readBack'],
      ['ArrowUp', 'readBack'],
      ['Home', 'readBack'],
    ],
    does: 'Scroll back: pauses follow',
    viewerOnly: true,
  },
  { chords: [['Ctrl+Shift+O', 'outline']], does: 'Outline', anywhere: true },
  { chords: [['Ctrl+O', 'focusPath']], does: 'Focus the path box', anywhere: true },
  { chords: [['m', 'mark']], does: 'Mark or unmark the current line (or click the gutter lane); in the merged view the selected line, in its own file' },
  {
    chords: [
      ['u', 'nextMark'],
      ['U', 'previousMark'],
    ],
    does: 'Next / previous mark (in the merged view: of any of its files)',
  },
  {
    chords: [
      ['e', 'nextError'],
      ['E', 'previousError'],
    ],
    does: 'Next / previous error line, over the whole file',
  },
  {
    chords: [
      ['h', 'nextHighlight'],
      ['H', 'previousHighlight'],
    ],
    does: 'Next / previous highlighted line, over the whole file',
  },
  { chords: [['j', 'json']], does: 'The current line as pretty-printed JSON (or its key=value fields)' },
  { chords: [['c', 'columns']], does: 'JSON Lines fields as columns beside the lines in view' },
  { chords: [['Alt+Z', 'wrap']], does: 'Wrap long lines on / off' },
  { chords: [['q', 'query']], does: 'Query the log with SQL (Ctrl+Enter runs; Enter on a result row shows its line)' },
];

/** A row's keys as the help prints them. */
export const keysLabelOf = (row: LogKeyRow) => row.chords.map(([chord]) => chord).join(' / ');

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

export interface Chord {
  key: string;
  ctrl: boolean;
  shift: boolean;
  alt: boolean;
}

/** `Ctrl+Shift+F` → its parts; a bare upper-case letter (`U`) is that letter with Shift. */
export function chordOf(text: string): Chord {
  const parts = text.split('+');
  const last = parts[parts.length - 1]!;
  const upper = parts.length === 1 && last.length === 1 && last !== last.toLowerCase();
  return {
    key: last.length === 1 ? last.toLowerCase() : last,
    ctrl: parts.includes('Ctrl'),
    shift: parts.includes('Shift') || upper,
    alt: parts.includes('Alt'),
  };
}

interface ChordEntry {
  chord: Chord;
  action: LogKeyAction;
  row: LogKeyRow;
}

const ENTRIES: ChordEntry[] = LOG_KEYS.flatMap((row) => row.chords.map(([text, action]) => ({ chord: chordOf(text), action, row })));

/** The table's entry of a key press, or null. */
export function logKeyEntryOf(event: KeyLike): { action: LogKeyAction; row: LogKeyRow } | null {
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  const ctrl = event.ctrlKey || event.metaKey;
  for (const e of ENTRIES) {
    if (e.chord.key === key && e.chord.ctrl === ctrl && e.chord.shift === event.shiftKey && e.chord.alt === event.altKey)
      return { action: e.action, row: e.row };
  }
  return null;
}

/** The action of a key press, or null (the browser's or Monaco's own). */
export function logKeyOf(event: KeyLike): LogKeyAction | null {
  return logKeyEntryOf(event)?.action ?? null;
}
