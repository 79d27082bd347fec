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
