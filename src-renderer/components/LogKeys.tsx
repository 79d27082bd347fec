import { useEffect, useRef } from 'react';
import { logKeyOf, type LogKeyAction } from '../model/log-keys.ts';
import { useFilterStore } from '../stores/filter-store.ts';
import { useFindStore } from '../stores/find-store.ts';
import { useTimeStore } from '../stores/time-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';
import { runLogToolKey } from './log-tool-keys.ts';
import { TIME_TAB_KEY_HELP } from '../model/tab-keys.ts';

export interface LogKeyTargets {
  focusGoTo(): void;
  openFind(): void;
  toggleOutline(): void;
}

/**
 * What each viewer key does (the keys are in log-keys.ts). Returns the handler
 * FileView calls for keys pressed in it; F3 / Shift+F3 and Esc (find) also work
 * from anywhere else on the page. True when the key was handled.
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
      case 'find':
        targetsRef.current.openFind();
        return true;
      case 'outline':
        targetsRef.current.toggleOutline();
        return true;
      case 'filter':
        useFilterStore.getState().toggle();
        return true;
      case 'histogram':
        useTimeStore.getState().toggle();
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
      const action = logKeyOf(event);
      if ((action === 'findNext' || action === 'findPrevious') && onKey(action)) event.preventDefault();
    };
    window.addEventListener('keydown', onWindowKey);
    return () => window.removeEventListener('keydown', onWindowKey);
  }, [onKey]);

  return onKey;
}

/** The viewer's keys as the help overlay (`?`) lists them (Ctrl is Cmd on macOS); the key table of docs/API.md says the same. */
export const LOG_KEY_HELP: readonly [keys: string, does: string][] = [
  ['Ctrl+G', 'Focus go to'],
  ['Ctrl+F', 'Find in the whole file'],
  ['F3 / Shift+F3', 'Next / previous match'],
  ['Ctrl+Shift+F', 'Filter view'],
  ['Ctrl+Home / Ctrl+End', "The file's first / last line"],
  ['F', 'Follow on / off (End resumes a paused follow)'],
  ['Ctrl+Shift+O', 'Outline'],
  ['Ctrl+O', 'Focus the path box'],
  ['m', 'Mark or unmark the current line (or click the gutter lane)'],
  ['u / U', 'Next / previous mark'],
  ['e / E', 'Next / previous error line, over the whole file'],
  ['h / H', 'Next / previous highlighted line, over the whole file'],
  ['j', 'The current line as pretty-printed JSON'],
  ['Alt+Z', 'Wrap long lines on / off'],
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
