/**
 * The review keys, as VS Code binds them: next/previous change F7 / Shift+F7
 * (its diff editor) or Alt+F5 / Shift+Alt+F5 (its editor's "next change"),
 * accept Ctrl/Cmd+Enter or Tab (inline edits), reject Ctrl/Cmd+Backspace or
 * Alt+Delete, and `?` for the help overlay. Tab accepts only in the file view,
 * where it would otherwise move nothing; elsewhere it keeps moving the focus.
 */
export type ReviewKeyAction = 'next' | 'previous' | 'accept' | 'reject' | 'help';

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
  // In a text box these keys edit text (Ctrl+Backspace deletes a word).
  if (place === 'text-box') return null;
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
  };
}
