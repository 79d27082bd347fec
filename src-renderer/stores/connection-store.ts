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
  /**
   * Open the channel and call `onEvent` for each event; returns close. `onOpen`
   * runs each time the channel (re)opens: what changed while it was not open
   * was never pushed, so the caller asks again.
   */
  connect(onEvent: (event: FolioEvent) => void, onOpen?: () => void): () => void;
}

export const useConnectionStore = create<ConnectionState>()((set) => ({
  channel: 'connecting',
  lastEventAt: null,
  events: 0,
  connect(onEvent, onOpen) {
    return subscribe({
      onState(channel) {
        set({ channel });
        if (channel === 'open') onOpen?.();
      },
      onEvent(event) {
        set((s) => ({ lastEventAt: event.time, events: s.events + 1 }));
        onEvent(event);
      },
    });
  },
}));
