/**
 * The viewer store: which file is open, what file_info says about it, and the
 * window of lines the editor holds. Only the latest request of each kind may
 * land, so typing paths or dragging the scrollbar quickly never shows a stale
 * answer.
 */
import { create } from 'zustand';
import type { FileInfo } from '../../src-main/api/schemas.ts';
import { windowAround, windowLinesFor, type LineWindow } from '../model/line-window.ts';
import { call, type ErrorPayload } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';

/**
 * What the editor should do once `window` is in place: keep the file line at the
 * top where it is (a neighbouring window), or bring `lineNo` into view (a jump).
 */
export type Reveal = { kind: 'keep' } | { kind: 'line'; lineNo: number; at: 'top' | 'center'; select: boolean };

export interface ViewerState {
  path: string | null;
  info: FileInfo | null;
  error: ErrorPayload | null;
  loading: boolean;
  window: LineWindow | null;
  /** bumps with every new window, so the editor applies each exactly once */
  windowSeq: number;
  reveal: Reveal;
  /** file lines in view, reported by the editor: they drive FileScrollbar and the status bar */
  topLine: number;
  visibleLines: number;
  openFile(path: string): Promise<void>;
  /** Fetch the window around `lineNo` and show that line: centred and selected (go to line), or at the top (scrollbar). */
  goToLine(lineNo: number, how?: { at: 'top' | 'center'; select: boolean }): Promise<void>;
  /** Fetch the window around `lineNo`, keeping the view where it is (scrolling near an edge). */
  shiftWindowTo(lineNo: number): Promise<void>;
  setViewport(topLine: number, visibleLines: number): void;
  /** Re-read file_info and the window if the file changed (after an approve, undo, redo). */
  refresh(): Promise<void>;
}

let latestOpen = 0;
let latestWindow = 0;

export const useViewerStore = create<ViewerState>()((set, get) => {
  async function loadWindow(lineNo: number, reveal: Reveal): Promise<void> {
    const { path, info } = get();
    if (!path || !info) return;
    const request = ++latestWindow;
    const { startLine, endLine } = windowAround(lineNo, windowLinesFor(info.size, info.lines), info.lines);
    try {
      let answer = await call('read', { path, ranges: [{ start: startLine, end: endLine }] });
      // Lines much longer than average hit the read cap before the target: start nearer to it.
      if (answer.end_line !== null && answer.end_line < lineNo && request === latestWindow) {
        answer = await call('read', { path, ranges: [{ start: Math.max(1, lineNo - 50), end: endLine }] });
      }
      if (request !== latestWindow) return;
      const text = answer.content.replace(/\r?\n$/, '');
      const window: LineWindow = {
        startLine: answer.start_line ?? startLine,
        endLine: answer.end_line ?? endLine,
        text,
        etag: answer.version.etag,
      };
      set((s) => ({ window, windowSeq: s.windowSeq + 1, reveal, error: null }));
    } catch (err) {
      if (request === latestWindow) set({ error: errorPayloadOf(err) });
    }
  }

  return {
    path: null,
    info: null,
    error: null,
    loading: false,
    window: null,
    windowSeq: 0,
    reveal: { kind: 'keep' },
    topLine: 1,
    visibleLines: 0,
    async openFile(path) {
      const request = ++latestOpen;
      latestWindow++;
      set({ path, loading: true, error: null, window: null, topLine: 1 });
      try {
        const info = await call('file_info', { path });
        if (request !== latestOpen) return;
        set({ info, loading: false });
        if (!info.binary.isBinary && info.lines > 0) await loadWindow(1, { kind: 'line', lineNo: 1, at: 'top', select: false });
      } catch (err) {
        if (request !== latestOpen) return;
        set({ info: null, error: errorPayloadOf(err), loading: false });
      }
    },
    goToLine: (lineNo, how = { at: 'center', select: true }) => loadWindow(lineNo, { kind: 'line', lineNo, ...how }),
    shiftWindowTo: (lineNo) => loadWindow(lineNo, { kind: 'keep' }),
    setViewport(topLine, visibleLines) {
      if (topLine !== get().topLine || visibleLines !== get().visibleLines) set({ topLine, visibleLines });
    },
    async refresh() {
      const { path, info, topLine } = get();
      if (!path || !info) return;
      const request = latestOpen;
      try {
        const next = await call('file_info', { path });
        if (request !== latestOpen || next.version.etag === info.version.etag) return;
        set({ info: next });
        await loadWindow(Math.min(topLine, next.lines), { kind: 'keep' });
      } catch (err) {
        if (request === latestOpen) set({ error: errorPayloadOf(err) });
      }
    },
  };
});
