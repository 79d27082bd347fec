/**
 * Next / previous error (e / E, like lnav) and next / previous line any enabled
 * highlight rule matches (h / H), over the whole file through the engine's
 * search (model/line-step.ts), from the current line; the status says what was
 * found, that it wrapped, or that there is none.
 */
import { create } from 'zustand';
import { count } from '../model/file-labels.ts';
import { levelPatternOf } from '../model/filter-query.ts';
import { anyRulePatternOf } from '../model/highlight-rules.ts';
import { stepToMatch, type StepSearch } from '../model/line-step.ts';
import { call } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';
import { currentLineOf } from './cursor-store.ts';
import { useHighlightStore } from './highlight-store.ts';
import { useViewerStore } from './viewer-store.ts';

/** What e / E look for: FATAL, CRITICAL, ERROR, ERR as words, as the level filter does. */
export const ERROR_PATTERN = levelPatternOf(['FATAL', 'ERROR'])!;

export type StepKind = 'error' | 'highlight';

export interface LineStepState {
  status: string | null;
  busy: boolean;
  step(kind: StepKind, direction: 1 | -1): Promise<void>;
}

let latest = 0;

export const useLineStepStore = create<LineStepState>()((set) => ({
  status: null,
  busy: false,
  async step(kind, direction) {
    const { path, info } = useViewerStore.getState();
    if (!path || !info) return;
    const what = kind === 'error' ? 'error' : 'highlighted';
    const pattern = kind === 'error' ? ERROR_PATTERN : anyRulePatternOf(useHighlightStore.getState().rules);
    if (!pattern) return set({ status: 'No highlight rule is on: add one in Highlights' });
    const request = ++latest;
    const fromLine = currentLineOf();
    set({ busy: true, status: `Looking for the ${direction > 0 ? 'next' : 'previous'} ${what} line…` });
    const search: StepSearch = (input) => call('search', { path, ...input });
    try {
      const found = await stepToMatch(search, { pattern, fromLine, direction, totalLines: info.lines, fileBytes: info.size });
      if (request !== latest) return;
      if (!found) return set({ busy: false, status: `No ${what} lines in this file` });
      const around = found.wrapped ? ` (wrapped to the ${direction > 0 ? 'top' : 'bottom'})` : '';
      set({ busy: false, status: `${kind === 'error' ? 'Error' : 'Highlight'} at line ${count.format(found.lineNo)}${around}` });
      await useViewerStore.getState().goToLine(found.lineNo, { at: 'center', select: false, highlight: true });
    } catch (err) {
      if (request === latest) set({ busy: false, status: errorPayloadOf(err).message });
    }
  },
}));
