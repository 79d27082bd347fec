/**
 * The viewer store: which file is open, what file_info says about it, and the
 * window of lines the editor holds. Only the latest request of each kind may
 * land, so typing paths or dragging the scrollbar quickly never shows a stale
 * answer. Follow mode polls file_info and keeps the view on the file's end.
 */
import { create } from 'zustand';
import type { FileInfo, ReadOutput } from '../../src-main/api/schemas.ts';
import { windowAround, windowLinesFor, type LineWindow } from '../model/line-window.ts';
import type { LineRange } from '../model/view-link.ts';
import { LONG_LINE_HEAD_BYTES, MAX_LONG_LINE_HEAD_BYTES, readLineWindow, type WindowRead } from '../model/window-reader.ts';
import { call, type ErrorPayload } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';
import { useRecentStore } from './recent-store.ts';

/**
 * What the editor should do once `window` is in place: keep the file line at the
 * top where it is (a neighbouring window), or bring `lineNo` into view (a jump),
 * optionally marking it (a search result).
 */
export type Reveal = { kind: 'keep' } | ({ kind: 'line'; lineNo: number } & RevealHow);

/** `selectTo`: with `select`, select from the line through this one (a link's lines). */
export type RevealHow = { at: 'top' | 'center' | 'bottom'; select: boolean; highlight?: boolean; selectTo?: number };

/** How often follow mode asks whether the file grew (file_info of an unchanged file is a stat and a cache hit). */
export const FOLLOW_POLL_MS = 250;
/**
 * How often the open file is checked for changes made outside the app (another
 * editor, `folio upsert`, a log writer) when not following: the view then shows
 * the new version where it was, as edits approved in the app do.
 */
export const CHANGE_POLL_MS = 1000;
/** The first window is read by bytes, in parallel with file_info: it needs no line count, so it never waits for the index. */
export const FIRST_WINDOW_BYTES = 65_536;
/** How often the app asks how far a remote value's index build is, while it has no file_info yet. */
export const INDEXING_POLL_MS = 500;

/** How far the open file's index build is, while file_info waits for it (a remote value streamed for its index). */
export interface IndexingProgress {
  bytesDone: number;
  totalBytes: number;
  /** decompressing: a compressed log filled into the cache first (bytes are compressed bytes) */
  stage?: 'indexing' | 'decompressing';
}

export interface ViewerState {
  path: string | null;
  info: FileInfo | null;
  /** the index build's progress until file_info answers, when the first window said it is building */
  indexing: IndexingProgress | null;
  error: ErrorPayload | null;
  loading: boolean;
  window: LineWindow | null;
  /** bumps with every new window, so the editor applies each exactly once */
  windowSeq: number;
  reveal: Reveal;
  /** the file line a search result jumped to, marked until the next jump */
  highlightLine: number | null;
  /** file lines in view, reported by the editor: they drive FileScrollbar and the status bar */
  topLine: number;
  visibleLines: number;
  following: boolean;
  /** file lines selected in the editor (more than a caret), for Copy link */
  selection: LineRange | null;
  /** the encoding the person chose to read this file in (the status bar's menu), or null: the detected one */
  decodeAs: string | null;
  /** follow was on and the person scrolled back to read: End or the Follow button turns it on again */
  followPaused: boolean;
  /** Open `path`; `firstRead` is its first window when the page came with it (see start-open.ts). */
  openFile(path: string, firstRead?: ReadOutput): Promise<void>;
  /** Fetch the window around `lineNo` and show that line: centred and selected (go to line), or at the top (scrollbar). */
  goToLine(lineNo: number, how?: RevealHow): Promise<void>;
  /** Show the line that holds byte `byte` (0-based), centred. */
  goToByte(byte: number): Promise<void>;
  /** Move the view by `delta` lines (the ±N chips), keeping it at the top. */
  moveBy(delta: number): Promise<void>;
  /** Fetch the window around `lineNo`, keeping the view where it is (scrolling near an edge). */
  shiftWindowTo(lineNo: number): Promise<void>;
  setViewport(topLine: number, visibleLines: number): void;
  /** Re-read file_info and the window if the file changed (after an approve, undo, redo). */
  refresh(): Promise<void>;
  setFollowing(on: boolean): void;
  /** While following: stop, remembering it was on (scrolling back, going to a line). */
  pauseFollow(): void;
  /** The file's first line at the top, or its last line at the bottom (Ctrl+Home / Ctrl+End). */
  goToFileEnd(which: 'first' | 'last'): Promise<void>;
  /** Show lines `startLine`..`endLine` selected, the first near the top (a link's lines). */
  showLines(lines: LineRange): Promise<void>;
  setSelection(selection: LineRange | null): void;
  /** Read the open file in `encoding` (null: the detected one) from now on, and the window again. */
  setDecodeAs(encoding: string | null): Promise<void>;
  /** Show more of long line `lineNo` (four times as much, up to the read cap). */
  showMoreOf(lineNo: number): Promise<void>;
}

let latestOpen = 0;
let latestWindow = 0;
/**
 * The jump (a window that brings a line into view) being read, if any. A
 * neighbouring window asked for meanwhile is dropped rather than replacing it:
 * the editor asked from the old window (follow's new end would be lost), and it
 * asks again from the jump's window once that lands, if it still needs one.
 */
let jumpInFlight: number | null = null;
let followTimer: ReturnType<typeof setInterval> | null = null;
let changeTimer: ReturnType<typeof setInterval> | null = null;
let refreshing = false;
let followPolling = false;
/** A jump asked for before file_info answered (a big file being indexed). */
let pendingJump: { lineNo: number; reveal: Reveal; request: number } | null = null;
function takePendingJump(): typeof pendingJump {
  const jump = pendingJump;
  pendingJump = null;
  return jump;
}

/** How much of each long line to show, per file line, once "show more" asked for more than the default. */
const longLineHeads = new Map<number, number>();

function sameWindow(a: LineWindow, b: LineWindow): boolean {
  return a.startLine === b.startLine && a.endLine === b.endLine && a.etag === b.etag && a.text.length === b.text.length;
}

/** A read answer as a window, or null when it cannot stand for whole lines. */
function windowOf(answer: ReadOutput, fallback: { startLine: number; endLine: number }): LineWindow {
  return {
    startLine: answer.start_line ?? fallback.startLine,
    endLine: answer.end_line ?? fallback.endLine,
    text: answer.content.replace(/\r?\n$/, ''),
    etag: answer.version.etag,
  };
}

/** What a tab keeps of the viewer while another tab is shown (tab-store.ts). */
export type ViewSnapshot = Pick<
  ViewerState,
  'path' | 'info' | 'window' | 'topLine' | 'following' | 'followPaused' | 'selection' | 'highlightLine' | 'error' | 'decodeAs'
>;

export function viewSnapshotOf(): ViewSnapshot {
  const { path, info, window, topLine, following, followPaused, selection, highlightLine, error, decodeAs } = useViewerStore.getState();
  return { path, info, window, topLine, following, followPaused, selection, highlightLine, error, decodeAs };
}

/** `input` of a read of the open file, in the encoding the person chose, if any. */
const decoded = <T extends object>(input: T): T & { encoding?: string } => {
  const as = useViewerStore.getState().decodeAs;
  return as ? { ...input, encoding: as } : input;
};

/**
 * Show a tab's view again: its window at its top line, its follow state. Answers
 * still on their way for the tab shown before are dropped; the file is checked
 * for a newer version (or, if it never finished opening, opened again).
 */
export function restoreView(s: ViewSnapshot): void {
  latestOpen++;
  latestWindow++;
  pendingJump = null;
  longLineHeads.clear();
  const store = useViewerStore.getState();
  store.setFollowing(false);
  useViewerStore.setState((now) => ({
    ...s,
    following: false,
    indexing: null,
    loading: false,
    windowSeq: now.windowSeq + 1,
    reveal: { kind: 'line', lineNo: s.topLine, at: 'top', select: false },
  }));
  if (s.path && (!s.info || !s.window)) void store.openFile(s.path);
  else if (s.following) store.setFollowing(true);
  else void store.refresh();
}

/*
 * The store's own workings, outside its creator: they read and write the store
 * through useViewerStore (the same get and set the creator receives), and are
 * called only once it exists.
 */
const get = (): ViewerState => useViewerStore.getState();
const set = (change: Partial<ViewerState> | ((s: ViewerState) => Partial<ViewerState>)): void => useViewerStore.setState(change);

async function loadWindow(lineNo: number, reveal: Reveal): Promise<void> {
  const { path, info } = get();
  if (!path) return;
  if (reveal.kind === 'keep' && jumpInFlight !== null) return;
  const request = ++latestWindow;
  if (!info) {
    // The line count is not known yet: openFile makes this jump once file_info answers.
    pendingJump = { lineNo, reveal, request };
    return;
  }
  if (reveal.kind === 'line') jumpInFlight = request;
  const { startLine, endLine } = windowAround(lineNo, windowLinesFor(info.size, info.lines), info.lines);
  const read: WindowRead = (input) => call('read', decoded({ path, ...input }));
  const headBytesOf = (n: number) => longLineHeads.get(n) ?? LONG_LINE_HEAD_BYTES;
  try {
    let window = await readLineWindow(read, startLine, endLine, headBytesOf);
    // Lines much longer than average can use up a window's reads before the target: start nearer to it, then at it.
    for (const from of [Math.max(1, lineNo - 50), lineNo]) {
      if (request !== latestWindow || !window || window.endLine >= lineNo || from <= window.startLine) break;
      window = await readLineWindow(read, from, endLine, headBytesOf);
    }
    if (request !== latestWindow || !window) return;
    const shown = get().window;
    // The same window again (a neighbour asked for from a window that could not grow): nothing to apply, and no new ask.
    if (reveal.kind === 'keep' && shown && sameWindow(shown, window)) return;
    const highlightLine = reveal.kind === 'line' ? (reveal.highlight ? reveal.lineNo : null) : get().highlightLine;
    set((s) => ({ window, windowSeq: s.windowSeq + 1, reveal, highlightLine, error: null }));
  } catch (err) {
    if (request === latestWindow) set({ error: errorPayloadOf(err) });
  } finally {
    if (jumpInFlight === request) jumpInFlight = null;
  }
}

/** The first lines of a file, by bytes: painted as soon as they come, even before file_info. */
async function loadFirstWindow(path: string, openRequest: number, given?: ReadOutput): Promise<boolean> {
  const request = ++latestWindow;
  try {
    const answer = given ?? (await call('read', { path, start_byte: 0, max_bytes: FIRST_WINDOW_BYTES }));
    if (request !== latestWindow || openRequest !== latestOpen || answer.line_cut || answer.content === '') return false;
    const lines = answer.content.replace(/\r?\n$/, '').split('\n').length;
    const window = windowOf(answer, { startLine: 1, endLine: lines });
    set((s) => ({ window, windowSeq: s.windowSeq + 1, reveal: { kind: 'line', lineNo: 1, at: 'top', select: false }, highlightLine: null }));
    if (answer.indexing && !get().info) void followIndexing(path, openRequest, answer.indexing);
    return true;
  } catch {
    // binary, unreadable, …: file_info says why
    return false;
  }
}

/**
 * Show how far the index build of `path` is until file_info answers: the head
 * window's answer carries it, and asking the head again (one byte) is a stat on
 * the server while the build runs (engine/backend/remote.ts onRemoteHead).
 */
async function followIndexing(path: string, openRequest: number, first: NonNullable<ReadOutput['indexing']>): Promise<void> {
  const stillOpening = () => openRequest === latestOpen && !get().info;
  let at: ReadOutput['indexing'] = first;
  while (at && stillOpening()) {
    set({ indexing: { bytesDone: at.bytes_done, totalBytes: at.total_bytes, ...(at.stage ? { stage: at.stage } : {}) } });
    await new Promise((resolve) => setTimeout(resolve, INDEXING_POLL_MS));
    if (!stillOpening()) break;
    try {
      at = (await call('read', { path, start_byte: 0, max_bytes: 1 })).indexing;
    } catch {
      break; // file_info reports what went wrong
    }
  }
  if (openRequest === latestOpen) set({ indexing: null });
}

/**
 * Ask file_info of the open file; when it has a new version (and `stillWanted`
 * after the answer), take it and load the window `onNew` asks for. Errors show
 * as the viewer's error. Shared by follow mode and refresh.
 */
async function takeNewVersion(onNew: (next: FileInfo) => Promise<void>, stillWanted: () => boolean = () => true): Promise<void> {
  const { path, info } = get();
  if (!path || !info) return;
  const request = latestOpen;
  try {
    const next = await call('file_info', { path });
    if (request !== latestOpen || !stillWanted() || next.version.etag === info.version.etag) return;
    set({ info: next });
    await onNew(next);
  } catch (err) {
    if (request === latestOpen) set({ error: errorPayloadOf(err) });
  }
}

async function pollFollow(): Promise<void> {
  if (!get().following || followPolling) return;
  followPolling = true;
  try {
    await takeNewVersion(
      async (next) => {
        if (next.lines > 0) await loadWindow(next.lines, { kind: 'line', lineNo: next.lines, at: 'bottom', select: false });
      },
      () => get().following,
    );
  } finally {
    followPolling = false;
  }
}

/** Open `path` (ViewerState.openFile): the first window by bytes while file_info is asked, then the window a jump wants. */
async function openFile(path: string, firstRead?: ReadOutput): Promise<void> {
  const request = ++latestOpen;
  changeTimer ??= setInterval(() => {
    if (!get().following && !refreshing && document.visibilityState !== 'hidden') void get().refresh();
  }, CHANGE_POLL_MS);
  latestWindow++;
  pendingJump = null;
  longLineHeads.clear();
  set({ path, loading: true, error: null, info: null, indexing: null, window: null, topLine: 1, highlightLine: null, decodeAs: null });
  const firstWindow = loadFirstWindow(path, request, firstRead);
  const firstWindowRequest = latestWindow;
  try {
    const info = await call('file_info', { path });
    if (request !== latestOpen) return;
    set({ info, indexing: null, loading: false });
    void useRecentStore.getState().add(path);
    if (info.binary.is_binary || info.lines === 0) {
      latestWindow++;
      set({ window: null });
      return;
    }
    const jump = takePendingJump();
    if (jump && jump.request === latestWindow) {
      const lineNo = Math.min(jump.lineNo, info.lines);
      await loadWindow(lineNo, jump.reveal.kind === 'line' ? { ...jump.reveal, lineNo } : jump.reveal);
      return;
    }
    // Unless the first window landed, or a jump asked for another one meanwhile.
    if (!(await firstWindow) && request === latestOpen && latestWindow === firstWindowRequest)
      await loadWindow(1, { kind: 'line', lineNo: 1, at: 'top', select: false });
  } catch (err) {
    if (request !== latestOpen) return;
    latestWindow++;
    set({ info: null, indexing: null, window: null, error: errorPayloadOf(err), loading: false });
  }
}

export const useViewerStore = create<ViewerState>()(() => ({
  path: null,
  info: null,
  indexing: null,
  error: null,
  loading: false,
  window: null,
  windowSeq: 0,
  reveal: { kind: 'keep' },
  highlightLine: null,
  topLine: 1,
  visibleLines: 0,
  following: false,
  followPaused: false,
  selection: null,
  decodeAs: null,
  openFile,
  goToLine(lineNo, how = { at: 'center', select: true }) {
    const { following, info } = get();
    if (following && info && lineNo < info.lines) get().pauseFollow();
    return loadWindow(lineNo, { kind: 'line', lineNo, ...how });
  },
  async goToByte(byte) {
    const { path, info } = get();
    if (!path || !info || info.size === 0) return;
    try {
      const answer = await call('read', decoded({ path, start_byte: Math.min(Math.max(0, byte), info.size - 1), max_bytes: 1 }));
      const lineNo = answer.line_cut?.line ?? answer.start_line;
      if (lineNo !== null) await get().goToLine(lineNo);
    } catch (err) {
      set({ error: errorPayloadOf(err) });
    }
  },
  moveBy(delta) {
    const { topLine, info } = get();
    const last = Math.max(1, info?.lines ?? 1);
    return get().goToLine(Math.min(Math.max(1, topLine + delta), last), { at: 'top', select: false });
  },
  shiftWindowTo: (lineNo) => loadWindow(lineNo, { kind: 'keep' }),
  setViewport(topLine, visibleLines) {
    if (topLine !== get().topLine || visibleLines !== get().visibleLines) set({ topLine, visibleLines });
  },
  async refresh() {
    // Following: the new version's end is what to show (a review event, e.g. another
    // process's journaled append, must not load the window where the view was instead).
    if (get().following) return pollFollow();
    const { topLine } = get();
    refreshing = true;
    try {
      await takeNewVersion((next) => loadWindow(Math.min(topLine, next.lines), { kind: 'keep' }));
    } finally {
      refreshing = false;
    }
  },
  setFollowing(on) {
    if (followTimer) clearInterval(followTimer);
    followTimer = null;
    set({ following: on, followPaused: false });
    if (!on) return;
    followTimer = setInterval(() => void pollFollow(), FOLLOW_POLL_MS);
    const lines = get().info?.lines ?? 0;
    if (lines > 0) void loadWindow(lines, { kind: 'line', lineNo: lines, at: 'bottom', select: false });
  },
  pauseFollow() {
    if (!get().following) return;
    get().setFollowing(false);
    set({ followPaused: true });
  },
  async goToFileEnd(which) {
    const lines = get().info?.lines ?? 0;
    if (lines === 0) return;
    if (which === 'first') return get().goToLine(1, { at: 'top', select: false });
    if (get().followPaused) return get().setFollowing(true);
    return loadWindow(lines, { kind: 'line', lineNo: lines, at: 'bottom', select: false });
  },
  showLines: ({ startLine, endLine }) => get().goToLine(startLine, { at: 'top', select: true, selectTo: endLine }),
  setDecodeAs(encoding) {
    if (encoding === get().decodeAs) return Promise.resolve();
    set({ decodeAs: encoding });
    const { topLine } = get();
    return loadWindow(topLine, { kind: 'line', lineNo: topLine, at: 'top', select: false });
  },
  setSelection(selection) {
    const now = get().selection;
    if (now?.startLine !== selection?.startLine || now?.endLine !== selection?.endLine) set({ selection });
  },
  async showMoreOf(lineNo) {
    const shown = longLineHeads.get(lineNo) ?? LONG_LINE_HEAD_BYTES;
    longLineHeads.set(lineNo, Math.min(MAX_LONG_LINE_HEAD_BYTES, shown * 4));
    await loadWindow(get().topLine, { kind: 'keep' });
  },
}));

/**
 * The open file's facts once file_info has answered: at once when it has, else when
 * it does (the first window is read in parallel with file_info, which waits for a
 * cold index, so lines show before the size and line count are known); null when
 * another file is opened first or the open fails.
 */
export function infoWhenReady(path: string): Promise<FileInfo | null> {
  const now = useViewerStore.getState();
  if (now.path !== path) return Promise.resolve(null);
  if (now.info) return Promise.resolve(now.info);
  return new Promise((resolve) => {
    const stop = useViewerStore.subscribe((s) => {
      const answer = s.path !== path || s.error ? null : s.info;
      if (answer === null && s.path === path && !s.error) return;
      stop();
      resolve(answer);
    });
  });
}
