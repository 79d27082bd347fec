/**
 * The review store: proposals waiting for a decision (and those that went stale),
 * the selected one with its content, the applied-edits journal, and the outcome
 * of the last action. Every action ends by asking the server again: pushed events
 * from other processes land through the same `refresh`.
 */
import { create } from 'zustand';
import type { ReviewJournalEntry, ReviewProposal } from '../../src-main/api/schemas.ts';
import { call, type ErrorPayload } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';

export interface ReviewState {
  /** pending and conflict proposals, oldest first */
  queue: ReviewProposal[];
  /** applied edits, newest first */
  history: ReviewJournalEntry[];
  selectedId: string | null;
  /** review_show of the selected proposal */
  selected: ReviewProposal | null;
  busy: boolean;
  /** the last action's failure (conflicts included), shown until the next action */
  problem: ErrorPayload | null;
  /** the last action that worked, e.g. "approved p-12" */
  notice: string | null;
  refresh(): Promise<void>;
  select(id: string | null): Promise<void>;
  /** content: the person's text instead of the agent's (edit-then-approve) */
  approve(id: string, content?: string): Promise<boolean>;
  reject(id: string, reason: string): Promise<boolean>;
  /** your latest applied edit (Undo, Ctrl+Z) */
  undo(): Promise<boolean>;
  /** your latest undone edit (Redo, Shift+Ctrl+Z) */
  redo(): Promise<boolean>;
  /**
   * One journal entry, by its own button: any actor's (the person picked it), even
   * with later edits applied; a later edit over its region makes it a conflict
   * that names that edit.
   */
  stepEntry(id: string, action: 'undo' | 'redo'): Promise<boolean>;
}

let latestRefresh = 0;
let latestSelect = 0;

export const useReviewStore = create<ReviewState>()((set, get) => {
  /** Run one decision; refresh either way. Resolves true when it worked. */
  async function act(describe: () => Promise<string>): Promise<boolean> {
    set({ busy: true, problem: null, notice: null });
    let ok = true;
    try {
      set({ notice: await describe() });
    } catch (err) {
      ok = false;
      set({ problem: errorPayloadOf(err) });
    }
    await get().refresh();
    set({ busy: false });
    return ok;
  }

  return {
    queue: [],
    history: [],
    selectedId: null,
    selected: null,
    busy: false,
    problem: null,
    notice: null,
    async refresh() {
      const request = ++latestRefresh;
      try {
        const [list, journal] = await Promise.all([call('review_list', {}), call('review_history', {})]);
        if (request !== latestRefresh) return;
        const queue = list.proposals.filter((p) => p.status === 'pending' || p.status === 'conflict');
        const history = [...journal.entries].sort((a, b) => b.seq - a.seq);
        set({ queue, history });
        const { selectedId } = get();
        if (selectedId) {
          const stillThere = queue.find((p) => p.id === selectedId);
          if (!stillThere) set({ selectedId: null, selected: null });
          else if (stillThere.status !== get().selected?.status) await get().select(selectedId);
        }
      } catch (err) {
        if (request === latestRefresh) set({ problem: errorPayloadOf(err) });
      }
    },
    async select(id) {
      const request = ++latestSelect;
      set({ selectedId: id, selected: id ? (get().queue.find((p) => p.id === id) ?? null) : null });
      if (!id) return;
      try {
        const { proposal } = await call('review_show', { id });
        if (request === latestSelect) set({ selected: proposal });
      } catch (err) {
        if (request === latestSelect) set({ problem: errorPayloadOf(err) });
      }
    },
    approve: (id, content) =>
      act(async () => {
        const { entry } = await call('review_approve', content === undefined ? { id } : { id, content });
        return content === undefined ? `Approved: ${entry.path} changed` : `Approved with your edit: ${entry.path} changed`;
      }),
    reject: (id, reason) =>
      act(async () => {
        await call('review_reject', reason.trim() ? { id, reason: reason.trim() } : { id });
        return 'Rejected';
      }),
    undo: () =>
      act(async () => {
        const { entry } = await call('review_undo', {});
        return `Undid the edit of ${entry.path}`;
      }),
    redo: () =>
      act(async () => {
        const { entry } = await call('review_redo', {});
        return `Redid the edit of ${entry.path}`;
      }),
    stepEntry: (id, action) =>
      act(async () => {
        const { entry } = await call(action === 'undo' ? 'review_undo' : 'review_redo', { id, include_others: true });
        return `${action === 'undo' ? 'Undid' : 'Redid'} the edit of ${entry.path} (lines ${entry.range_after.start_line}–${entry.range_after.end_line})`;
      }),
  };
});
