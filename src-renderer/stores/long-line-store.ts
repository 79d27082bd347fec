/**
 * The side view of one long line: the line a window shows cut, paged through in
 * exact byte ranges (the engine snaps them to whole characters), so a line of
 * any size is read a slice at a time.
 */
import { create } from 'zustand';
import type { CutLine } from '../model/window-reader.ts';
import { call, type ErrorPayload } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';
import { useViewerStore } from './viewer-store.ts';

/** Bytes per slice of the side view. */
export const SIDE_SLICE_BYTES = 65_536;

export interface LongLineState {
  line: CutLine | null;
  /** bytes into the line where the slice shown starts */
  offset: number;
  /** bytes into the line where it ends */
  endOffset: number;
  text: string;
  error: ErrorPayload | null;
  open(line: CutLine): Promise<void>;
  /** The next (+1) or previous (-1) slice. */
  page(delta: 1 | -1): Promise<void>;
  close(): void;
}

let latest = 0;

export const useLongLineStore = create<LongLineState>()((set, get) => {
  async function showAt(line: CutLine, offset: number): Promise<void> {
    const path = useViewerStore.getState().path;
    if (!path) return;
    const request = ++latest;
    try {
      const start = line.startByte + offset;
      const answer = await call('read', { path, start_byte: start, end_byte: Math.min(line.startByte + line.lineBytes, start + SIDE_SLICE_BYTES) });
      if (request !== latest) return;
      set({ line, offset: answer.start_byte - line.startByte, endOffset: answer.end_byte - line.startByte, text: answer.content, error: null });
    } catch (err) {
      if (request === latest) set({ line, error: errorPayloadOf(err) });
    }
  }
  return {
    line: null,
    offset: 0,
    endOffset: 0,
    text: '',
    error: null,
    open: (line) => showAt(line, 0),
    async page(delta) {
      const { line, offset, endOffset } = get();
      if (!line) return;
      const next = delta > 0 ? endOffset : Math.max(0, offset - SIDE_SLICE_BYTES);
      if (next >= line.lineBytes || (delta < 0 && offset === 0)) return;
      await showAt(line, next);
    },
    close() {
      latest++;
      set({ line: null, text: '', error: null });
    },
  };
});
