/**
 * The JSON side view: the current line read whole through the engine (by its
 * byte range, a slice at a time: the window holds long lines cut), then its JSON
 * pretty-printed or its key=value fields listed (json-line.ts), or why neither.
 */
import { create } from 'zustand';
import { lineViewOf, MAX_JSON_LINE_BYTES, type LineView } from '../model/json-line.ts';
import { lineSizeLabelOf } from '../model/window-reader.ts';
import { call } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';
import { currentLineOf } from './cursor-store.ts';
import { useViewerStore } from './viewer-store.ts';

/** Bytes per read of the line. */
const SLICE_BYTES = 1 << 20;

export interface JsonLineState {
  lineNo: number | null;
  loading: boolean;
  result: LineView | null;
  show(lineNo?: number): Promise<void>;
  close(): void;
}

let latest = 0;

export const useJsonLineStore = create<JsonLineState>()((set) => ({
  lineNo: null,
  loading: false,
  result: null,
  async show(lineNo = currentLineOf()) {
    const path = useViewerStore.getState().path;
    if (!path) return;
    const request = ++latest;
    set({ lineNo, loading: true, result: null });
    try {
      // The first slice says where the line starts and ends (line_cut when it is longer than the slice).
      const first = await call('read', { path, ranges: [{ start: lineNo, end: lineNo }] });
      let text = first.content;
      if (first.line_cut || first.truncated) {
        const cut = first.line_cut;
        const start = cut?.line_start_byte ?? first.start_byte;
        const end = cut?.line_end_byte ?? first.end_byte;
        if (end - start > MAX_JSON_LINE_BYTES) {
          if (request === latest)
            set({ loading: false, result: { ok: false, message: `The line is ${lineSizeLabelOf(end - start)}: too long to pretty-print here` } });
          return;
        }
        text = '';
        for (let at = start; at < end;) {
          const slice = await call('read', { path, start_byte: at, end_byte: Math.min(end, at + SLICE_BYTES) });
          if (request !== latest) return;
          text += slice.content;
          if (slice.end_byte <= at) break;
          at = slice.end_byte;
        }
      }
      if (request !== latest) return;
      set({ loading: false, result: lineViewOf(text.replace(/\r?\n$/, '')) });
    } catch (err) {
      if (request === latest) set({ loading: false, result: { ok: false, message: errorPayloadOf(err).message } });
    }
  },
  close() {
    latest++;
    set({ lineNo: null, result: null, loading: false });
  },
}));
