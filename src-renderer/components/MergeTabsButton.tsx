import { useState } from 'react';
import { useShallow } from 'zustand/shallow';
import { tabNameOf } from '../model/file-labels.ts';
import { useTabStore } from '../stores/tab-store.ts';

/**
 * "Merge tabs": the open logs chosen (all of them unless unticked) as one
 * timeline in the merged tab. Shown when two files or more are open.
 */
export function MergeTabsButton() {
  const files = useTabStore(useShallow((s) => s.tabs.filter((t) => !t.merged)));
  /** Where the list of logs opens (left, px), null: closed. Fixed, as the tab strip it sits in scrolls and clips. */
  const [openAt, setOpenAt] = useState<number | null>(null);
  const open = openAt !== null;
  const setOpen = (show: boolean, button?: HTMLElement) => setOpenAt(show && button ? button.getBoundingClientRect().left : null);
  const [left, setLeft] = useState<Set<string>>(new Set());
  if (files.length < 2) return null;
  const chosen = files.map((t) => t.path).filter((p) => !left.has(p));
  return (
    <span className="merge-tabs">
      {/* After the tabs, in the strip: beside it, it took the room the tabs need at 900 px (tab-strip.spec.ts). */}
      <button
        type="button"
        className="merge-tabs-button"
        aria-label="Merge tabs"
        aria-expanded={open}
        onClick={(event) => setOpen(!open, event.currentTarget)}
        title="Merge tabs: the open logs as one timeline"
      >
        Merge…
      </button>
      {open && (
        <form
          className="merge-tabs-panel"
          style={{ left: Math.max(0, Math.min(openAt, window.innerWidth - 260)) }}
          aria-label="Logs to merge"
          onSubmit={(event) => {
            event.preventDefault();
            setOpen(false);
            void useTabStore.getState().openMerged(chosen);
          }}
        >
          {files.map((t) => (
            <label key={t.id} title={t.path}>
              <input
                type="checkbox"
                checked={!left.has(t.path)}
                onChange={(event) => {
                  const next = new Set(left);
                  if (event.target.checked) next.delete(t.path);
                  else next.add(t.path);
                  setLeft(next);
                }}
              />
              {tabNameOf(t.path)}
            </label>
          ))}
          <button type="submit" disabled={chosen.length === 0}>
            Open merged view
          </button>
        </form>
      )}
    </span>
  );
}
