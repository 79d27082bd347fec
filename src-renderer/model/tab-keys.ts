/** The tab keys: +1 for the next tab, -1 for the previous one, null for any other key. */
export function tabKeyOf(event: { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }): 1 | -1 | null {
  // Ctrl+Tab: browsers keep it for their own tabs, Electron and some setups pass it on.
  if (event.key === 'Tab' && event.ctrlKey && !event.altKey && !event.metaKey) return event.shiftKey ? -1 : 1;
  if (event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
    if (event.key === 'PageDown') return 1;
    if (event.key === 'PageUp') return -1;
  }
  return null;
}

/**
 * The keys of the tabs and of go to a time, as the viewer's keys help (`?`) lists
 * them: rows to join that help's table (LogKeys.tsx), as docs/API.md's does.
 */
export const TIME_TAB_KEY_HELP: readonly [keys: string, does: string][] = [
  ['Ctrl+Tab / Ctrl+Shift+Tab, Alt+PageDown / Alt+PageUp', 'Next / previous tab'],
  ['Ctrl+G, then a time', 'Go to the first line at or after it (2024-05-01 12:30, 12:30:05)'],
];
