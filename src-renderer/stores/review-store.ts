/**
 * The review store: proposals waiting for a decision (and those that went stale),
 * the selected one with its content, the applied-edits journal, and the outcome
 * of the last action. Every action ends by asking the server again: pushed events
 * from other processes land through the same `refresh`.
 */
import { create } from 'zustand';
import type { DamagedReviewFrame, ReviewJournalEntry, ReviewProposal } from '../../src-main/api/schemas.ts';
import type { ChangeStop } from '../model/change-order.ts';
import { inlineChangesOf, type InlineChange } from '../model/proposal-edits.ts';
import { call, type ErrorPayload } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';

/** How a proposal is approved: as proposed, with the person's text, some of its hunks, or on the current file. */
export interface ApproveHow {
  /** the person's text instead of the agent's (edit-then-approve) */
  content?: string;
  /** only these edits (1-based) of a proposal with several */
  hunks?: number[];
  /** check only the proposal's own lines, not the version the agent read (also retries a conflict) */
  current?: boolean;
  /** resolve: the etag of the file the person's text was merged against (with content and lines; alone for a delete or move) */
  if_match?: string;
  /** resolve: the lines of that version the content replaces */
  lines?: { start: number; end: number };
}

export interface ReviewState {
  /** pending and conflict proposals, oldest first */
  queue: ReviewProposal[];
  /** applied edits, newest first */
  history: ReviewJournalEntry[];
  /** review data that did not load and was kept aside (review_list's `damaged`) */
  damaged: DamagedReviewFrame[];
  selectedId: string | null;
  /** review_show of the selected proposal */
  selected: ReviewProposal | null;
  busy: boolean;
  /** the last action's failure (conflicts included), shown until the next action */
  problem: ErrorPayload | null;
  /** the last action that worked, e.g. "approved p-12" */
  notice: string | null;
  /** the selected proposal's pending edits as the main editor draws them inline (its file: `inlinePath`) */
  inline: InlineChange[];
  inlinePath: string | null;
  /** the change the review keys act on (F7 moves it); `focusSeq` bumps with every move, so the editor reveals it once */
  focus: ChangeStop | null;
  focusSeq: number;
  setFocus(stop: ChangeStop | null): void;
  /** the reason typed for a rejection (the Reject button and key send it) */
  reason: string;
  setReason(reason: string): void;
  /** an approval waiting for the person's answer to "This replaces N lines. Approve?" */
  asking: { id: string; how: ApproveHow; question: string } | null;
  setAsking(asking: ReviewState['asking']): void;
  /** the help overlay of the review keys */
  helpOpen: boolean;
  setHelpOpen(open: boolean): void;
  /** the changed-files list (Ctrl+Shift+E) */
  filesOpen: boolean;
  setFilesOpen(open: boolean): void;
  /**
   * Accept or reject every pending proposal of a file, an agent or the whole
   * session (review_batch: one journal group, one undo); `what` names it in the notice.
   */
  decideBatch(decision: 'approve' | 'reject', filter: BatchScope, what: string): Promise<boolean>;
  refresh(): Promise<void>;
  select(id: string | null): Promise<void>;
  approve(id: string, how?: ApproveHow): Promise<boolean>;
  /** Run a decision made of several calls (the 3-way resolve): its notice, or its failure as the problem; refreshes either way. */
  perform(describe: () => Promise<string>): Promise<boolean>;
  /** hunks: only these edits (1-based) of a proposal with several */
  reject(id: string, reason: string, hunks?: number[]): Promise<boolean>;
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

/** What a batch decision takes: one file, one agent, or the whole session. */
export type BatchScope = { path: string } | { actor: string } | { all: true };

/** "2 approved, 1 conflict, 1 left pending" */
export function batchSummaryOf(r: { applied: unknown[]; rejected: unknown[]; conflicts: unknown[]; skipped: unknown[] }): string {
  const parts = [
    r.applied.length ? `${r.applied.length} approved` : '',
    r.rejected.length ? `${r.rejected.length} rejected` : '',
    r.conflicts.length ? `${r.conflicts.length} conflict${r.conflicts.length > 1 ? 's' : ''}` : '',
    r.skipped.length ? `${r.skipped.length} left pending` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'nothing to decide';
}

let latestRefresh = 0;
let latestSelect = 0;

/** Where the proposal stands: its status, its hunks' places, lines and decisions (a change means its inline diff is redrawn). */
const placeOf = (p: ReviewProposal) => JSON.stringify([p.status, p.change]);

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
    damaged: [],
    selectedId: null,
    selected: null,
    busy: false,
    problem: null,
    notice: null,
    inline: [],
    inlinePath: null,
    focus: null,
    focusSeq: 0,
    setFocus: (stop) => set((s) => ({ focus: stop, focusSeq: s.focusSeq + 1 })),
    reason: '',
    setReason: (reason) => set({ reason }),
    asking: null,
    setAsking: (asking) => set({ asking }),
    helpOpen: false,
    setHelpOpen: (helpOpen) => set({ helpOpen }),
    filesOpen: false,
    setFilesOpen: (filesOpen) => set({ filesOpen }),
    decideBatch: (decision, filter, what) =>
      act(async () => {
        const reason = get().reason.trim();
        const r = await call('review_batch', { decision, ...filter, ...(decision === 'reject' && reason ? { reason } : {}) });
        const undo = decision === 'approve' && r.entries.length ? ' (one undo takes it back)' : '';
        return `${what}: ${batchSummaryOf(r)}${undo}`;
      }),
    async refresh() {
      const request = ++latestRefresh;
      try {
        const [list, journal] = await Promise.all([call('review_list', {}), call('review_history', {})]);
        if (request !== latestRefresh) return;
        const queue = list.proposals.filter((p) => p.status === 'pending' || p.status === 'conflict');
        const history = [...journal.entries].sort((a, b) => b.seq - a.seq);
        set({ queue, history, damaged: list.damaged ?? [] });
        const { selectedId } = get();
        if (selectedId) {
          const stillThere = queue.find((p) => p.id === selectedId);
          if (!stillThere) set({ selectedId: null, selected: null, inline: [], inlinePath: null });
          else if (!get().selected || placeOf(stillThere) !== placeOf(get().selected!)) await get().select(selectedId);
        }
      } catch (err) {
        if (request === latestRefresh) set({ problem: errorPayloadOf(err) });
      }
    },
    async select(id) {
      const request = ++latestSelect;
      const changed = id !== get().selectedId;
      set({
        selectedId: id,
        selected: id ? (get().queue.find((p) => p.id === id) ?? null) : null,
        ...(changed ? { inline: [], inlinePath: null, reason: '' } : {}),
      });
      if (!id) return;
      try {
        const { proposal } = await call('review_show', { id });
        if (request !== latestSelect) return;
        set({ selected: proposal });
        // A conflict's lines are no longer its own: its diff stays in the panel (and the 3-way view).
        set({ inline: proposal.status === 'pending' ? inlineChangesOf(proposal) : [], inlinePath: proposal.path });
      } catch (err) {
        if (request === latestSelect) set({ problem: errorPayloadOf(err) });
      }
    },
    perform: (describe) => act(describe),
    approve: (id, how = {}) =>
      act(async () => {
        const { entry } = await call('review_approve', { id, ...how });
        const what = how.hunks ? `hunk${how.hunks.length > 1 ? 's' : ''} ${how.hunks.join(', ')}` : '';
        if (how.content !== undefined) return `Approved with your edit: ${entry.path} changed`;
        return `Approved${what ? ` ${what}` : ''}${how.current ? ' on the current file' : ''}: ${entry.path} changed`;
      }),
    reject: (id, reason, hunks) =>
      act(async () => {
        await call('review_reject', { id, ...(reason.trim() ? { reason: reason.trim() } : {}), ...(hunks ? { hunks } : {}) });
        return hunks ? `Rejected hunk${hunks.length > 1 ? 's' : ''} ${hunks.join(', ')}` : 'Rejected';
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
