/**
 * The connection store: the pushed-event channel (SSE or Electron IPC) and when
 * the last event came. Events only say "something changed"; the stores that care
 * ask again with ordinary operations.
 */
import { create } from 'zustand';
import { subscribe, type ChannelState, type FolioEvent } from '../transport.ts';

export interface ConnectionState {
  channel: ChannelState;
  lastEventAt: string | null;
  events: number;
  /** Open the channel and call `onEvent` for each event; returns close. */
  connect(onEvent: (event: FolioEvent) => void): () => void;
}

export const useConnectionStore = create<ConnectionState>()((set) => ({
  channel: 'connecting',
  lastEventAt: null,
  events: 0,
  connect(onEvent) {
    return subscribe({
      onState: (channel) => set({ channel }),
      onEvent(event) {
        set((s) => ({ lastEventAt: event.time, events: s.events + 1 }));
        onEvent(event);
      },
    });
  },
}));
