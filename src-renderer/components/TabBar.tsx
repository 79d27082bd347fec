import { useEffect } from 'react';
import { useTabStore } from '../stores/tab-store.ts';
import { tabNameOf as nameOf } from '../model/file-labels.ts';
import { tabKeyOf } from '../model/tab-keys.ts';

/**
 * The open files as tabs (in the header, so opening a second file moves nothing
 * on the page): click to show one, × to close it. Ctrl+Tab / Ctrl+Shift+Tab
 * (where the browser lets a page have them, and in Electron) and Alt+PageDown /
 * Alt+PageUp show the next / previous tab.
 */
export function TabBar() {
  const { tabs, activeId } = useTabStore();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const delta = tabKeyOf(event);
      if (delta === null) return;
      event.preventDefault();
      event.stopPropagation();
      useTabStore.getState().cycle(delta);
    };
    // Capture: before Monaco and the review keys (Tab accepts a change there).
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
  if (tabs.length === 0) return null;
  return (
    <div className="tab-bar" role="tablist" aria-label="Open files">
      {tabs.map((tab) => {
        const active = tab.id === activeId;
        return (
          <span key={tab.id} className={`tab${active ? ' active' : ''}`}>
            <button type="button" role="tab" aria-selected={active} data-testid="tab" title={tab.path} onClick={() => useTabStore.getState().activate(tab.id)}>
              {nameOf(tab.path)}
            </button>
            {tabs.length > 1 && (
              <button type="button" className="tab-close" aria-label={`Close ${nameOf(tab.path)}`} onClick={() => useTabStore.getState().close(tab.id)}>
                ×
              </button>
            )}
          </span>
        );
      })}
    </div>
  );
}
