/**
 * The review keys, as VS Code binds them: next/previous change F7 / Shift+F7
 * (its diff editor) or Alt+F5 / Shift+Alt+F5 (its editor's "next change"),
 * accept Ctrl/Cmd+Enter or Tab (inline edits), reject Ctrl/Cmd+Backspace or
 * Alt+Delete, and `?` for the help overlay. Tab accepts only in the file view,
 * where it would otherwise move nothing; elsewhere it keeps moving the focus.
 * F7 walks every pending hunk of the session, file after file. Undo / redo of the
 * latest applied review edit: Ctrl+Z, Ctrl+Y or Shift+Ctrl+Z, in the file view
 * too (its editor is read-only: its own undo has nothing to undo). The changed
 * files: Ctrl+Shift+E (VS Code's key for its file list; the browser binds none).
 */
export type ReviewKeyAction = 'next' | 'previous' | 'accept' | 'reject' | 'help' | 'undo' | 'redo' | 'files';

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

/** Where the key was pressed: in the file view, in a text box (the reason, an editor), or elsewhere. */
export type KeyPlace = 'file-view' | 'text-box' | 'other';

export function reviewKeyOf(event: KeyLike, place: KeyPlace): ReviewKeyAction | null {
  const ctrl = event.ctrlKey || event.metaKey;
  const { key, altKey: alt, shiftKey: shift } = event;
  if (key === 'F7' && !ctrl && !alt) return shift ? 'previous' : 'next';
  if (key === 'F5' && alt && !ctrl) return shift ? 'previous' : 'next';
  if (ctrl && shift && !alt && key.toLowerCase() === 'e') return 'files';
  // In a text box these keys edit text (Ctrl+Backspace deletes a word, Ctrl+Z undoes typing).
  if (place === 'text-box') return null;
  if (ctrl && !alt && key.toLowerCase() === 'z') return shift ? 'redo' : 'undo';
  if (ctrl && !alt && !shift && key.toLowerCase() === 'y') return 'redo';
  if (key === 'Enter' && ctrl && !alt && !shift) return 'accept';
  if (key === 'Tab' && !ctrl && !alt && !shift && place === 'file-view') return 'accept';
  if (key === 'Backspace' && ctrl && !alt && !shift) return 'reject';
  if (key === 'Delete' && alt && !ctrl && !shift) return 'reject';
  if (key === '?' && !ctrl && !alt) return 'help';
  return null;
}

/** The keys as tooltips and the help overlay name them (Cmd on macOS). */
export function keyLabelsOf(mac: boolean): Record<ReviewKeyAction, string> {
  const mod = mac ? 'Cmd' : 'Ctrl';
  return {
    next: 'F7 or Alt+F5',
    previous: 'Shift+F7 or Shift+Alt+F5',
    accept: `${mod}+Enter or Tab (in the file)`,
    reject: `${mod}+Backspace or Alt+Delete`,
    help: '?',
    undo: `${mod}+Z`,
    redo: `${mod}+Y or Shift+${mod}+Z`,
    files: `${mod}+Shift+E`,
  };
}

/** The keys of the changed-files list (ChangedFiles.tsx), with focus in it. */
export type FilesKeyAction = 'down' | 'up' | 'first' | 'last' | 'open' | 'close' | 'acceptFile' | 'rejectFile' | 'acceptAll' | 'rejectAll';

export function filesKeyOf(event: KeyLike): FilesKeyAction | null {
  const ctrl = event.ctrlKey || event.metaKey;
  const { key, altKey: alt, shiftKey: shift } = event;
  if (alt) return null;
  if (key === 'Enter') return ctrl ? (shift ? 'acceptAll' : 'acceptFile') : shift ? null : 'open';
  if (key === 'Backspace' && ctrl) return shift ? 'rejectAll' : 'rejectFile';
  if (ctrl || shift) return null;
  if (key === 'ArrowDown') return 'down';
  if (key === 'ArrowUp') return 'up';
  if (key === 'Home') return 'first';
  if (key === 'End') return 'last';
  if (key === 'Escape') return 'close';
  return null;
}

/** The changed-files list's keys as its help rows name them. */
export function filesKeyLabelsOf(mac: boolean): [keys: string, does: string][] {
  const mod = mac ? 'Cmd' : 'Ctrl';
  return [
    ['↑ / ↓, Home / End', 'Move in the changed-files list'],
    ['Enter', 'Open the file at its first pending hunk'],
    [`${mod}+Enter / ${mod}+Backspace`, "Accept / reject all of the row's file (one undo)"],
    [`Shift+${mod}+Enter / Shift+${mod}+Backspace`, 'Accept / reject all of the session (one undo)'],
    ['Escape', 'Close the list'],
  ];
}
