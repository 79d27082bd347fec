/**
 * The highlight rules (highlights_list / highlights_set, kept per user): the
 * panel adds, removes and toggles them; every change is saved whole and the
 * answer taken, so a refused rule (not linear-time, not a regex) leaves the list
 * as it was and says why. A rule too slow for the page's regex engine on some
 * lines is turned off (and saved so), with a notice naming it.
 */
import { create } from 'zustand';
import type { HighlightRule } from '../model/highlight-rules.ts';
import { call, type ErrorPayload } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';

export interface HighlightState {
  open: boolean;
  rules: HighlightRule[];
  error: ErrorPayload | null;
  /** a rule turned off by itself, and why */
  notice: string | null;
  toggleOpen(): void;
  load(): Promise<void>;
  /** Add a rule at the end; false when refused (the error says why). */
  add(rule: HighlightRule): Promise<boolean>;
  remove(index: number): Promise<void>;
  setEnabled(index: number, enabled: boolean): Promise<void>;
  /** Rule `index` ran past its budget on the window shown: turn it off. */
  turnOffSlow(index: number): Promise<void>;
}

export const useHighlightStore = create<HighlightState>()((set, get) => {
  /**
   * Saves go to the server one after another: two in flight at once (a slow rule
   * turned off, then removed at once) could land in the other order, and the older
   * list would be the one kept.
   */
  let saved: Promise<unknown> = Promise.resolve();
  /** Shown at once, then saved; a refusal puts the list back as it was. */
  async function save(rules: HighlightRule[]): Promise<boolean> {
    const before = get().rules;
    set({ rules });
    const answer = saved.then(() => call('highlights_set', { rules }));
    saved = answer.catch(() => undefined);
    try {
      const kept = (await answer).rules;
      // A later change made meanwhile is already on screen: do not show an older list over it.
      if (get().rules === rules) set({ rules: kept });
      set({ error: null });
      return true;
    } catch (err) {
      if (get().rules === rules) set({ rules: before });
      set({ error: errorPayloadOf(err) });
      return false;
    }
  }
  return {
    open: false,
    rules: [],
    error: null,
    notice: null,
    toggleOpen: () => set((s) => ({ open: !s.open })),
    async load() {
      try {
        set({ rules: (await call('highlights_list', {})).rules, error: null });
      } catch (err) {
        set({ error: errorPayloadOf(err) });
      }
    },
    add: (rule) => save([...get().rules, rule]),
    async remove(index) {
      await save(get().rules.filter((_, i) => i !== index));
    },
    async setEnabled(index, enabled) {
      set({ notice: null });
      await save(get().rules.map((r, i) => (i === index ? { ...r, enabled } : r)));
    },
    async turnOffSlow(index) {
      const rule = get().rules[index];
      if (!rule) return;
      set({ notice: `Highlight "${rule.pattern}" was turned off: it ran over a second on the lines shown (it backtracks too much for the page)` });
      await save(get().rules.map((r, i) => (i === index ? { ...r, enabled: false } : r)));
    },
  };
});
