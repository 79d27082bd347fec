/**
 * The open file's marked lines (marks_list / marks_set, kept per file per user):
 * marked with `m` or a click in the gutter lane, listed in the Marks panel with
 * their text, stepped through with u / U (lnav's bookmark keys). Follows the
 * viewer's file, and re-lists when the file has a new version (approve, refresh,
 * follow): marks_list moves the marks with their lines' text.
 */
import { create } from 'zustand';
import { call, type ErrorPayload } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';
import { currentLineOf } from './cursor-store.ts';
import { useViewerStore } from './viewer-store.ts';

/** Marks whose text the panel shows (the list shows the rest by number). */
export const MARK_TEXTS_MAX = 200;
const MARK_TEXT_CHARS = 300;

export interface MarksState {
  path: string | null;
  lines: number[];
  /** marks whose line's text was gone at the last re-list (edited or deleted lines): kept at their number */
  lost: number[];
  /** text of marked lines, by line number */
  texts: Record<number, string>;
  error: ErrorPayload | null;
  open: boolean;
  /** what the last step said ("no marks") */
  status: string | null;
  toggleOpen(): void;
  load(path: string): Promise<void>;
  /** List again, keeping what is shown until the answer: after the file changed. */
  reload(): Promise<void>;
  /** Mark `lineNo` if it is not, else unmark it (default: the current line). */
  toggle(lineNo?: number): Promise<void>;
  /** The next (+1) or previous (-1) mark from the current line, around the ends. */
  step(direction: 1 | -1): Promise<void>;
}

let latest = 0;

export const useMarksStore = create<MarksState>()((set, get) => {
  async function loadTexts(path: string, lines: number[], request: number): Promise<void> {
    const wanted = lines.slice(0, MARK_TEXTS_MAX);
    if (wanted.length === 0) return set({ texts: {} });
    try {
      const answer = await call('read', { path, ranges: wanted.map((n) => ({ start: n, end: n })) });
      if (request !== latest) return;
      const texts: Record<number, string> = {};
      const parts = answer.ranges ?? [{ start: answer.start_line ?? wanted[0]!, content: answer.content }];
      for (const part of parts) {
        part.content
          .replace(/\r?\n$/, '')
          .split(/\r?\n/)
          .forEach((text, i) => (texts[part.start + i] = text.slice(0, MARK_TEXT_CHARS)));
      }
      set({ texts });
    } catch {
      // the list still names the lines
    }
  }
  async function take(path: string, answer: Promise<{ lines: number[]; lost?: number[] }>): Promise<void> {
    const request = ++latest;
    try {
      const { lines, lost } = await answer;
      if (request !== latest) return;
      set((s) => ({ path, lines, lost: lost ?? s.lost.filter((n) => lines.includes(n)), error: null }));
      void loadTexts(path, lines, request);
    } catch (err) {
      if (request === latest) set({ error: errorPayloadOf(err) });
    }
  }
  return {
    path: null,
    lines: [],
    lost: [],
    texts: {},
    error: null,
    open: false,
    status: null,
    toggleOpen: () => set((s) => ({ open: !s.open })),
    load(path) {
      set({ path, lines: [], lost: [], texts: {}, status: null });
      return take(path, call('marks_list', { path }));
    },
    reload() {
      const { path } = get();
      return path ? take(path, call('marks_list', { path })) : Promise.resolve();
    },
    async toggle(lineNo = currentLineOf()) {
      const path = useViewerStore.getState().path;
      if (!path || !useViewerStore.getState().info) return;
      const marked = !get().lines.includes(lineNo);
      set({ status: null });
      await take(path, call('marks_set', { path, line: lineNo, marked }));
    },
    async step(direction) {
      const { lines } = get();
      if (lines.length === 0) return set({ status: 'No marks in this file: m marks the current line' });
      const from = currentLineOf();
      const next = direction > 0 ? (lines.find((n) => n > from) ?? lines[0]!) : (lines.filter((n) => n < from).at(-1) ?? lines.at(-1)!);
      const wrapped = direction > 0 ? next <= from : next >= from;
      set({ status: wrapped ? `Mark ${lines.indexOf(next) + 1} of ${lines.length} (wrapped)` : `Mark ${lines.indexOf(next) + 1} of ${lines.length}` });
      await useViewerStore.getState().goToLine(next, { at: 'center', select: false, highlight: true });
    },
  };
});

/** Load the marks of each file the viewer opens, and again on each new version of it. Returns unsubscribe. */
export function followViewerMarks(): () => void {
  return useViewerStore.subscribe((s, prev) => {
    if (s.path && s.path !== prev.path) void useMarksStore.getState().load(s.path);
    else if (s.path && s.info && prev.info && s.info.version.etag !== prev.info.version.etag) void useMarksStore.getState().reload();
  });
}
