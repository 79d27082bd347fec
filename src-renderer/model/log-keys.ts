/**
 * The viewer's keys, as actions. Some are taken from Monaco (its own bindings
 * are global across editors: Ctrl+G, Ctrl+F, F3, Ctrl+Home/End over the file
 * instead of the window); others are only watched, Monaco still scrolls, but
 * they tell follow mode the person is reading back (PageUp, ArrowUp, Home).
 */
export type LogKeyAction =
  'goTo' | 'find' | 'follow' | 'outline' | 'filter' | 'histogram' | 'firstLine' | 'lastLine' | 'findNext' | 'findPrevious' | 'end' | 'escape' | 'readBack';

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

/** The action of a key press in the file view, or null (Monaco's own). */
export function logKeyOf(event: KeyLike): LogKeyAction | null {
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  const ctrl = event.ctrlKey || event.metaKey;
  if (event.altKey) return null;
  if (key === 'F3' && !ctrl) return event.shiftKey ? 'findPrevious' : 'findNext';
  if (ctrl && event.shiftKey) return key === 'o' ? 'outline' : key === 'f' ? 'filter' : key === 'h' ? 'histogram' : null;
  if (event.shiftKey) return null;
  if (ctrl) {
    if (key === 'g') return 'goTo';
    if (key === 'f') return 'find';
    if (key === 'Home') return 'firstLine';
    if (key === 'End') return 'lastLine';
    return null;
  }
  if (key === 'f') return 'follow';
  if (key === 'End') return 'end';
  if (key === 'Escape') return 'escape';
  if (key === 'PageUp' || key === 'ArrowUp' || key === 'Home') return 'readBack';
  return null;
}
