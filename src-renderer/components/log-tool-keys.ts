import type { LogToolKeyAction } from '../model/log-keys.ts';
import { useColumnsStore } from '../stores/columns-store.ts';
import { useJsonLineStore } from '../stores/json-line-store.ts';
import { useLineStepStore } from '../stores/line-step-store.ts';
import { useMarksStore } from '../stores/marks-store.ts';
import { useQueryStore } from '../stores/query-store.ts';
import { useViewerStore } from '../stores/viewer-store.ts';
import { useWrapStore } from '../stores/wrap-store.ts';

/** What each log tool key does (log-keys.ts names them); true when handled. */
export function runLogToolKey(action: LogToolKeyAction): boolean {
  if (!useViewerStore.getState().info) return false;
  switch (action) {
    case 'mark':
      void useMarksStore.getState().toggle();
      return true;
    case 'nextMark':
    case 'previousMark':
      void useMarksStore.getState().step(action === 'nextMark' ? 1 : -1);
      return true;
    case 'nextError':
    case 'previousError':
      void useLineStepStore.getState().step('error', action === 'nextError' ? 1 : -1);
      return true;
    case 'nextHighlight':
    case 'previousHighlight':
      void useLineStepStore.getState().step('highlight', action === 'nextHighlight' ? 1 : -1);
      return true;
    case 'json':
      void useJsonLineStore.getState().show();
      return true;
    case 'columns':
      useColumnsStore.getState().toggle();
      return true;
    case 'wrap':
      useWrapStore.getState().toggle();
      return true;
    case 'query':
      useQueryStore.getState().toggle();
      return true;
  }
}
