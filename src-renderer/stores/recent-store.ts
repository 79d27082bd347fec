/**
 * The recent-files store: the person's recently opened files (recent_list), most
 * recent first. The viewer records each file it opened (recent_add); the answer is
 * the new list, so the menu is current without another call.
 */
import { create } from 'zustand';
import type { RecentEntry } from '../../src-main/api/schemas.ts';
import { call, type ErrorPayload } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';

export interface RecentState {
  entries: RecentEntry[];
  problem: ErrorPayload | null;
  refresh(): Promise<void>;
  /** Record `path` as just opened. */
  add(path: string): Promise<void>;
}

export const useRecentStore = create<RecentState>()((set) => ({
  entries: [],
  problem: null,
  async refresh() {
    try {
      set({ entries: (await call('recent_list', {})).entries, problem: null });
    } catch (err) {
      set({ problem: errorPayloadOf(err) });
    }
  },
  async add(path) {
    try {
      set({ entries: (await call('recent_add', { path })).entries, problem: null });
    } catch (err) {
      set({ problem: errorPayloadOf(err) });
    }
  },
}));
