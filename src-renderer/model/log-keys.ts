/**
 * The viewer's keys, as actions. Some are taken from Monaco (its own bindings
 * are global across editors: Ctrl+G, Ctrl+F, F3, Ctrl+Home/End over the file
 * instead of the window); others are only watched, Monaco still scrolls, but
 * they tell follow mode the person is reading back (PageUp, ArrowUp, Home).
 */
export type LogKeyAction =
  | 'goTo'
  | 'find'
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

/**
 * The log tools' keys, lnav's where it has them: m marks the line, u / U next /
 * previous mark, e / E next / previous error, h / H next / previous highlighted
 * line, j the line as JSON, Alt+Z wrap (VS Code's).
 */
export type LogToolKeyAction = 'mark' | 'nextMark' | 'previousMark' | 'nextError' | 'previousError' | 'nextHighlight' | 'previousHighlight' | 'json' | 'wrap';

const TOOL_KEYS: Record<string, [LogToolKeyAction, LogToolKeyAction | null]> = {
  m: ['mark', null],
  u: ['nextMark', 'previousMark'],
  e: ['nextError', 'previousError'],
  h: ['nextHighlight', 'previousHighlight'],
  j: ['json', null],
};

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
  if (event.altKey) return !ctrl && !event.shiftKey && key === 'z' ? 'wrap' : null;
  if (key === 'F3' && !ctrl) return event.shiftKey ? 'findPrevious' : 'findNext';
  if (ctrl && event.shiftKey) return key === 'o' ? 'outline' : key === 'f' ? 'filter' : key === 'h' ? 'histogram' : null;
  const tool = ctrl ? undefined : TOOL_KEYS[key];
  if (tool) return event.shiftKey ? tool[1] : tool[0];
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
