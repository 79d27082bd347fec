import { useState } from 'react';
import { useShallow } from 'zustand/shallow';
import { tabNameOf } from '../model/file-labels.ts';
import { useTabStore } from '../stores/tab-store.ts';
import { call } from '../transport.ts';
import { errorPayloadOf } from '../stores/call-error.ts';

/**
 * "Merge tabs": the open logs chosen (all of them unless unticked) as one
 * timeline in the merged tab, or a folder or glob typed in its box (its stamped
 * files, by merge_files). Shown when a file is open.
 */
export function MergeTabsButton() {
  const files = useTabStore(useShallow((s) => s.tabs.filter((t) => !t.merged)));
  /** Where the list of logs opens (left, px), null: closed. Fixed, as the tab strip it sits in scrolls and clips. */
  const [openAt, setOpenAt] = useState<number | null>(null);
  const open = openAt !== null;
  const setOpen = (show: boolean, button?: HTMLElement) => setOpenAt(show && button ? button.getBoundingClientRect().left : null);
  const [left, setLeft] = useState<Set<string>>(new Set());
  const [folder, setFolder] = useState('');
  const [folderProblem, setFolderProblem] = useState<string | null>(null);
  if (files.length < 1) return null;
  const mergeFolder = async () => {
    try {
      const { paths } = await call('merge_files', { paths: [folder.trim()] });
      setFolderProblem(null);
      setOpen(false);
      await useTabStore.getState().openMerged(paths, folder.trim());
    } catch (err) {
      setFolderProblem(errorPayloadOf(err).message);
    }
  };
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
          <input
            type="text"
            aria-label="Folder or glob to merge"
            placeholder="or a folder, or logs/*.log"
            spellCheck={false}
            value={folder}
            onChange={(event) => setFolder(event.target.value)}
            onKeyDown={(event) => {
              if (event.key !== 'Enter') return;
              event.preventDefault();
              if (folder.trim()) void mergeFolder();
            }}
          />
          <button type="button" disabled={!folder.trim()} onClick={() => void mergeFolder()}>
            Merge folder or glob
          </button>
          {folderProblem && (
            <p className="find-error" role="alert" data-testid="merge-folder-problem">
              {folderProblem}
            </p>
          )}
        </form>
      )}
    </span>
  );
}
