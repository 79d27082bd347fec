import { useEffect, useRef } from 'react';
import { keysLabelOf, LOG_KEYS, logKeyEntryOf, type LogKeyAction } from '../model/log-keys.ts';
import { TIME_TAB_KEY_HELP } from '../model/tab-keys.ts';
import { useFilterStore } from '../stores/filter-store.ts';
import { useFindStore } from '../stores/find-store.ts';
import { useMergeStore } from '../stores/merge-store.ts';
import { useMergedHistogramStore } from '../stores/merged-histogram-store.ts';
import { useTabStore } from '../stores/tab-store.ts';
import { useTimeStore } from '../stores/time-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';
import { runLogToolKey } from './log-tool-keys.ts';

export interface LogKeyTargets {
  focusGoTo(): void;
  openFind(): void;
  focusPath(): void;
  toggleOutline(): void;
}

/**
 * Where a key was pressed, for the viewer's keys: the file view (Monaco, the plain
 * rows) or its scrollbar; a box that keeps its keys (a text field, another editor, a
 * list or menu with arrow keys of its own); a dialog (never ours); elsewhere (the
 * toolbar's buttons, the page).
 */
export type ViewerKeyPlace = 'viewer' | 'own-keys' | 'dialog' | 'elsewhere';

export function viewerKeyPlaceOf(target: Element | null): ViewerKeyPlace {
  if (!target) return 'elsewhere';
  if (target.closest('[role="dialog"], [role="alertdialog"]')) return 'dialog';
  // Monaco's own text area is in the file view: there the keys are the viewer's.
  if (target.closest('[data-testid="file-view"], [data-testid="file-scrollbar"]')) return 'viewer';
  if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return 'own-keys';
  if ((target as HTMLElement).isContentEditable || target.closest('.monaco-editor, [role="listbox"], [role="menu"], [role="tree"], [role="grid"]'))
    return 'own-keys';
  return 'elsewhere';
}

/** Whether the merged tab is the one shown. */
const mergedTabShown = () => {
  const tabs = useTabStore.getState();
  return tabs.tabs.some((t) => t.merged && t.id === tabs.activeId);
};

/**
 * The viewer's keys, the one place they are dispatched: a window listener in the
 * capture phase (before Monaco, whose own bindings are global across editors), so a
 * key works wherever the focus is in the viewer (Monaco, the plain rows, the
 * scrollbar, the toolbar). log-keys.ts's table says which keys also work in a text
 * box (the Ctrl ones, F3) and which stay in the file view. Returns the handler, for
 * what is not a key (the wheel turned up: reading back); true when it was handled.
 */
export function useLogKeys(targets: LogKeyTargets): (action: LogKeyAction) => boolean {
  const targetsRef = useRef(targets);
  targetsRef.current = targets;

  const onKey = useRef((action: LogKeyAction): boolean => {
    const viewer = useViewerStore.getState();
    const find = useFindStore.getState();
    switch (action) {
      case 'goTo':
        targetsRef.current.focusGoTo();
        return true;
      case 'focusPath':
        // In Electron the File menu's accelerator shows the Open dialog instead.
        targetsRef.current.focusPath();
        return true;
      case 'find':
        targetsRef.current.openFind();
        return true;
      case 'outline':
        targetsRef.current.toggleOutline();
        return true;
      case 'filter':
        // On the merged tab: its own filter (merge-store.ts), over all its files.
        if (mergedTabShown()) useMergeStore.getState().toggleFilter();
        else useFilterStore.getState().toggle();
        return true;
      case 'histogram':
        if (mergedTabShown()) useMergedHistogramStore.getState().toggle();
        else useTimeStore.getState().toggle();
        return true;
      case 'follow':
        if (viewer.info) viewer.setFollowing(!viewer.following);
        return true;
      case 'firstLine':
        void viewer.goToFileEnd('first');
        return true;
      case 'lastLine':
        void viewer.goToFileEnd('last');
        return true;
      case 'end':
        // End resumes a paused follow; otherwise it is Monaco's (end of the line).
        if (!viewer.followPaused) return false;
        viewer.setFollowing(true);
        return true;
      case 'findNext':
      case 'findPrevious':
        if (!find.open) {
          targetsRef.current.openFind();
          if (!find.pattern) return true;
        }
        void find.step(action === 'findNext' ? 1 : -1);
        return true;
      case 'escape':
        if (!find.open) return false;
        find.hide();
        return true;
      case 'readBack':
        viewer.pauseFollow();
        return false;
      default:
        return runLogToolKey(action);
    }
  }).current;

  useEffect(() => {
    const onWindowKey = (event: KeyboardEvent) => {
      const entry = logKeyEntryOf(event);
      if (!entry) return;
      const place = viewerKeyPlaceOf(event.target instanceof Element ? event.target : null);
      if (place === 'dialog' || (place === 'own-keys' && !entry.row.anywhere) || (place !== 'viewer' && entry.row.viewerOnly)) return;
      if (!onKey(entry.action)) return;
      event.preventDefault();
      event.stopPropagation();
    };
    window.addEventListener('keydown', onWindowKey, true);
    return () => window.removeEventListener('keydown', onWindowKey, true);
  }, [onKey]);

  return onKey;
}

/**
 * The viewer's keys as the help overlay (`?`) lists them (Ctrl is Cmd on macOS): every
 * row of the dispatch table, then the tabs' keys and go to a time; the key table of
 * docs/API.md says the same.
 */
export const LOG_KEY_HELP: readonly (readonly [keys: string, does: string])[] = [
  ...LOG_KEYS.map((row) => [keysLabelOf(row), row.does] as const),
  ...TIME_TAB_KEY_HELP,
];

/** The viewer's keys, in the help overlay. */
export function LogKeysHelp() {
  return (
    <>
      <h3 id="log-keys-title">Viewer keys</h3>
      <dl aria-labelledby="log-keys-title" data-testid="log-keys-help">
        {LOG_KEY_HELP.map(([keys, does]) => (
          <div key={keys}>
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{does}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}
