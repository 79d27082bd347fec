import { useEffect, useRef, type WheelEvent } from 'react';
import { useTabStore } from '../stores/tab-store.ts';
import { tabNameOf as nameOf } from '../model/file-labels.ts';
import { tabKeyOf } from '../model/tab-keys.ts';
import { MergeTabsButton } from './MergeTabsButton.tsx';

/**
 * The open files as tabs (in the header, so opening a second file moves nothing
 * on the page): click to show one, × to close it. Ctrl+Tab / Ctrl+Shift+Tab
 * (where the browser lets a page have them, and in Electron) and Alt+PageDown /
 * Alt+PageUp show the next / previous tab. More tabs than fit scroll sideways
 * (the wheel scrolls them too), the shown one kept in view; the strip takes only
 * the room the path box leaves (styles.css), so the path box stays usable.
 */
export function TabBar() {
  const { tabs, activeId } = useTabStore();
  const strip = useRef<HTMLDivElement>(null);
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
  useEffect(() => {
    const active = strip.current?.querySelector<HTMLElement>('.tab.active');
    if (strip.current && active) scrollIntoStrip(strip.current, active);
  }, [activeId, tabs.length]);
  if (tabs.length === 0) return null;
  return (
    <div className="tab-bar" data-testid="tab-bar" ref={strip} onWheel={scrollSideways}>
      {/* The tablist holds the tabs only (ARIA: a tablist owns tabs); the Merge… button scrolls with them, beside it. */}
      <div className="tab-list" role="tablist" aria-label="Open files">
        {tabs.map((tab) => {
          const active = tab.id === activeId;
          return (
            <span key={tab.id} className={`tab${active ? ' active' : ''}`}>
              <button
                type="button"
                role="tab"
                aria-selected={active}
                data-testid="tab"
                title={tab.path}
                onClick={() => useTabStore.getState().activate(tab.id)}
              >
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
      <MergeTabsButton />
    </div>
  );
}

/** Scroll the strip (not the page) just enough to show `tab` whole (the strip is its offsetParent: position relative). */
function scrollIntoStrip(strip: HTMLElement, tab: HTMLElement): void {
  const left = tab.offsetLeft;
  const right = left + tab.offsetWidth;
  if (left < strip.scrollLeft) strip.scrollLeft = left;
  else if (right > strip.scrollLeft + strip.clientWidth) strip.scrollLeft = right - strip.clientWidth;
}

/** A mouse wheel's vertical turn scrolls the tabs sideways (a touchpad's sideways swipe already does). */
function scrollSideways(event: WheelEvent<HTMLDivElement>): void {
  const strip = event.currentTarget;
  if (event.deltaY !== 0 && event.deltaX === 0 && strip.scrollWidth > strip.clientWidth) strip.scrollLeft += event.deltaY;
}
