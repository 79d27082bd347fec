/**
 * The merged view (issue 31): several open logs as one timeline, a window of
 * lines at a time through the `merge` operation. The view pages forward by each
 * window's next_cursor; every window's starting cursor is kept (a short string),
 * so paging back fetches a dropped window again instead of holding it: at most
 * MAX_WINDOWS windows of lines are in memory, whatever the files' size.
 *
 * The filter (the file filter's form: terms, expression, levels, case) is compiled
 * to one regex (filter-query.ts) that every `merge` call sends as `match`: the
 * engine skips the other lines, so a window is 500 matching lines and the view
 * never fetches the lines it does not show.
 *
 * Follow (`f`): the view goes to its end, then every FOLLOW_POLL_MS fetches its
 * last window again from that window's cursor, in which a file that had run out
 * is at its end (merge.ts), so the lines written to any file since come in, and
 * the view stays at its end. A view opened from a folder or glob (`source`) looks
 * for its files again every RESCAN_MS while it follows: a log that appears joins
 * the view. A file that shrank (rotated: renamed away and made anew, or
 * truncated) makes the cursor `conflict`; the view then takes its files again
 * (from its source, or the same paths) and goes on from the time of its last
 * line, still following.
 *
 * Marks are each file's own (marks_list / marks_set by path): the view lists
 * them for its files and `m` sets one in the line's own file, so its tab shows it.
 * `u` / `U` select the next / previous marked line of the view, reading windows on
 * (or back) until one holds it, MARK_SCAN_WINDOWS at most.
 *
 * The selection (the arrows move it, the view scrolls to keep it shown) is the line
 * `m`, `u` and Enter act on.
 */
import { create } from 'zustand';
import type { z } from 'zod';
import type { MergeLine as MergeLineSchema } from '../../src-main/api/schemas/merge.ts';
import { count } from '../model/file-labels.ts';
import { filterRegexOf, type FilterTerm, type LogLevel } from '../model/filter-query.ts';
import { call } from '../transport.ts';
import { useMarksStore } from './marks-store.ts';
import { FOLLOW_POLL_MS, useViewerStore } from './viewer-store.ts';
import { errorPayloadOf } from './call-error.ts';

export type MergeLine = z.infer<typeof MergeLineSchema>;

/** Lines one `merge` call brings. */
export const WINDOW_LINES = 500;
/** Windows kept in memory (the others are fetched again from their cursor). */
export const MAX_WINDOWS = 4;
/** While following, how often a view opened from a folder or glob looks for new logs in it. */
export const RESCAN_MS = 2_000;
/** Windows u / U read on through at most (1,000,000 lines) before saying there is no mark that near. */
export const MARK_SCAN_WINDOWS = 2_000;

interface Window {
  /** Its index: window k holds merged lines k*WINDOW_LINES … (all windows but the last are full). */
  k: number;
  lines: MergeLine[];
}

/** The filter form's fields (as the file filter's, FilterForm). */
export interface MergeFilter {
  terms: FilterTerm[];
  expression: string;
  levels: LogLevel[];
  caseSensitive: boolean;
}

/** What the windows are filtered by: the `merge` operation's match and match_flags. */
export interface MergeMatch {
  match: string;
  flags: string;
}

export interface MergeState {
  paths: string[];
  /** the folder or glob the view's files came from (merge_files), null: files chosen one by one */
  source: string | null;
  /** The time the view starts at (go to time), null: the logs' start. */
  from: string | null;
  windows: Window[];
  /** starts[k]: the cursor window k is fetched from (null for window 0, which starts at `from`). */
  starts: (string | null)[];
  /** Index of the last window, once a window came back with no next cursor. */
  lastWindow: number | null;
  /** 0-based index in the merged view of the top shown line. */
  top: number;
  /** The selected line (Enter opens it), as an index in the merged view. */
  selected: number | null;
  loading: boolean;
  error: string | null;
  /** the view stays at its end as the files grow */
  following: boolean;
  filterOpen: boolean;
  /** the filter form as typed */
  filter: MergeFilter;
  /** the filter applied to the windows, null: every line */
  match: MergeMatch | null;
  /** why the filter typed cannot apply */
  filterError: string | null;
  /** what the last u / U found when it found no mark ("no mark after line N"), until the next move */
  notice: string | null;
  /** each file's marked lines, by its path as in `paths` */
  marks: Record<string, number[]>;
  /** List the files' marks again (a tab may have changed them). */
  loadMarks(): Promise<void>;
  /** Mark merged line `index` in its own file, or unmark it. */
  toggleMark(index: number): Promise<void>;
  /** Show the merged view of `paths` (the files of folder or glob `source`, if given) from their start. */
  open(paths: string[], source?: string | null): Promise<void>;
  /** Start the view at the first line stamped at or after `time`; the reason when it cannot, else null. */
  goToTime(time: string): Promise<string | null>;
  /** Make `top` the top line (clamped to the view), fetching the windows `rows` lines from it need. */
  scrollTo(top: number, rows: number): Promise<void>;
  select(index: number | null): void;
  /** Move the selection by `delta` lines (none selected: from the top row down, or the bottom row up), scrolling to keep it among the `rows` shown. */
  moveSelection(delta: number, rows: number): Promise<void>;
  /** Select the next (1) or previous (-1) marked line after or before the selection (or the top row). */
  stepMark(direction: 1 | -1, rows: number): Promise<void>;
  /** Show the view's last `rows` lines (fetching on to its end). */
  toEnd(rows: number): Promise<void>;
  /** Follow on (to the end, then the lines written since as they come) or off. */
  setFollowing(on: boolean, rows?: number): Promise<void>;
  /** Open or close the filter (closing shows every line again). */
  toggleFilter(): void;
  setFilter(filter: Partial<MergeFilter>): void;
  /** Filter the view from its start (or its time) by the form's fields. */
  applyFilter(): Promise<void>;
}

const NO_FILTER: MergeFilter = { terms: [{ pattern: '', exclude: false }], expression: '', levels: [], caseSensitive: true };

let run = 0;
let followTimer: ReturnType<typeof setInterval> | null = null;
let polling = false;
/** Rows the view shows (the last scrollTo's): follow keeps that many at the end. */
let viewRows = 30;

function stopFollowTimer(): void {
  if (followTimer) clearInterval(followTimer);
  followTimer = null;
}

/** The loaded line at merged index `i`, if its window is in memory. */
export function lineAt(s: Pick<MergeState, 'windows'>, i: number): MergeLine | undefined {
  const w = s.windows.find((win) => win.k === Math.floor(i / WINDOW_LINES));
  return w?.lines[i - w.k * WINDOW_LINES];
}

/** Lines in the view as far as known: all of them once the last window came. */
export function knownLinesOf(s: Pick<MergeState, 'windows' | 'lastWindow'>): number {
  const last = s.windows.reduce<Window | null>((a, w) => (!a || w.k > a.k ? w : a), null);
  return last ? last.k * WINDOW_LINES + last.lines.length : 0;
}

const get = (): MergeState => useMergeStore.getState();
const set = (partial: Partial<MergeState>): void => useMergeStore.setState(partial);

async function fetchWindow(k: number, mine: number): Promise<boolean> {
  const { paths, from, starts, match } = get();
  const cursor = k === 0 ? null : starts[k];
  if (cursor === undefined) return false;
  const filter = match ? { match: match.match, ...(match.flags ? { match_flags: match.flags } : {}) } : {};
  const r = await call('merge', { paths, lines: WINDOW_LINES, ...filter, ...(cursor ? { cursor } : from ? { from } : {}) });
  if (mine !== run) return false;
  const s = get();
  const nextStarts = [...s.starts];
  if (r.next_cursor) nextStarts[k + 1] = r.next_cursor;
  // Keep the windows nearest the one fetched.
  const windows = [...s.windows.filter((w) => w.k !== k), { k, lines: r.lines }]
    .sort((a, b) => Math.abs(a.k - k) - Math.abs(b.k - k))
    .slice(0, MAX_WINDOWS)
    .sort((a, b) => a.k - b.k);
  // A window fetched again that now goes on (the files grew): the end is not known any more.
  const lastWindow = r.next_cursor ? (s.lastWindow !== null && s.lastWindow <= k ? null : s.lastWindow) : k;
  set({ windows, starts: nextStarts, lastWindow });
  return true;
}

/** Window k in memory, fetching it (and the ones before it whose cursors are not known yet); false past the view's end or when a newer run took over. */
async function windowReady(k: number, mine: number): Promise<boolean> {
  for (;;) {
    if (mine !== run) return false;
    const s = get();
    if (s.windows.some((w) => w.k === k)) return true;
    if (s.lastWindow !== null && k > s.lastWindow) return false;
    const known = s.starts.length - 1;
    if (!(await fetchWindow(Math.min(k, known), mine))) return false;
  }
}

/** Fetch windows on from the last one known until the one that ends the view. */
async function fetchToEnd(mine: number): Promise<void> {
  while (mine === run && get().lastWindow === null) {
    const k = get().starts.length - 1;
    if (!(await fetchWindow(k, mine))) return;
  }
}

/** The last window again, and any after it: the lines written since; the view at its end when they came. */
async function poll(): Promise<void> {
  const s = get();
  if (!s.following || polling || s.lastWindow === null) return;
  polling = true;
  const mine = run;
  const before = knownLinesOf(s);
  try {
    if (s.source !== null && Date.now() - lastRescan >= RESCAN_MS) {
      lastRescan = Date.now();
      const { paths } = await call('merge_files', { paths: [s.source] });
      if (mine !== run) return;
      if (paths.join('\n') !== s.paths.join('\n')) return await rejoin(paths, mine);
    }
    await fetchWindow(s.lastWindow, mine);
    await fetchToEnd(mine);
    const end = knownLinesOf(get());
    if (mine === run && get().following && end !== before) set({ top: Math.max(0, end - viewRows) });
  } catch (err) {
    if (mine !== run) return;
    // A file shrank under the cursor (rotated or truncated): its files again, from the last line's time.
    if (errorPayloadOf(err).code !== 'conflict') return set({ error: errorPayloadOf(err).message });
    try {
      await rejoin(s.source === null ? s.paths : (await call('merge_files', { paths: [s.source] })).paths, mine);
    } catch (again) {
      if (mine === run) set({ error: errorPayloadOf(again).message });
    }
  } finally {
    polling = false;
  }
}

let lastRescan = 0;

/** The view of `paths` again from the time of its last line known, following (a log joined, or one rotated). */
async function rejoin(paths: string[], mine: number): Promise<void> {
  const s = get();
  const last = lineAt(s, knownLinesOf(s) - 1);
  if (mine !== run) return;
  const from = last?.time ?? s.from;
  await start(paths, from, s.match);
  void get().loadMarks();
  if (get().error === null) await get().setFollowing(true);
}

async function start(paths: string[], from: string | null, match: MergeMatch | null): Promise<string | null> {
  const mine = ++run;
  stopFollowTimer();
  set({
    following: false,
    paths,
    from,
    match,
    windows: [],
    starts: [null],
    lastWindow: null,
    top: 0,
    selected: null,
    notice: null,
    loading: true,
    error: null,
  });
  try {
    await fetchWindow(0, mine);
    if (mine === run) set({ loading: false });
    return null;
  } catch (err) {
    const message = errorPayloadOf(err).message;
    if (mine === run) set({ loading: false, error: message });
    return message;
  }
}

/** MergeState.toggleMark. */
async function toggleMarkAt(index: number): Promise<void> {
  const line = lineAt(get(), index);
  if (!line) return;
  const marked = !(get().marks[line.path] ?? []).includes(line.line);
  try {
    const r = await call('marks_set', { path: line.path, line: line.line, marked });
    set({ marks: { ...get().marks, [line.path]: r.lines } });
    // The file's own view lists its marks again when it is the viewer's file (its tab's, behind this one).
    if (useViewerStore.getState().path === line.path) void useMarksStore.getState().reload();
  } catch (err) {
    set({ error: errorPayloadOf(err).message });
  }
}

/** MergeState.moveSelection. */
async function moveSelectionBy(delta: number, rows: number): Promise<void> {
  const s0 = get();
  const from = s0.selected ?? (delta > 0 ? s0.top - 1 : s0.top + rows);
  let target = Math.max(0, from + delta);
  if (delta < 0 && s0.following) await get().setFollowing(false);
  // Fetch what the target needs first, so a move past the view's end stops at its last line.
  if (target < s0.top || target >= s0.top + rows) await get().scrollTo(target < s0.top ? target : target - rows + 1, rows);
  const s = get();
  if (s.lastWindow !== null) target = Math.min(target, knownLinesOf(s) - 1);
  if (target < 0 || !lineAt(s, target)) return;
  set({ selected: target, notice: null });
}

/** MergeState.stepMark: read on (or back) window by window until a line of it is marked. */
async function stepToMark(direction: 1 | -1, rows: number): Promise<void> {
  const s0 = get();
  const marked = (line: MergeLine | undefined) => line !== undefined && (s0.marks[line.path]?.includes(line.line) ?? false);
  if (!Object.values(s0.marks).some((lines) => lines.length > 0)) return void set({ notice: 'no marks in these logs' });
  const mine = run;
  const start = s0.selected ?? s0.top;
  let i = start + direction;
  set({ loading: true, notice: null });
  try {
    for (let scanned = 0; i >= 0 && scanned < MARK_SCAN_WINDOWS; scanned++) {
      const k = Math.floor(i / WINDOW_LINES);
      if (!(await windowReady(k, mine))) break;
      const s = get();
      const w = s.windows.find((win) => win.k === k)!;
      const end = direction > 0 ? w.lines.length : -1;
      for (let j = i - k * WINDOW_LINES; j !== end; j += direction) {
        if (!marked(w.lines[j])) continue;
        const found = k * WINDOW_LINES + j;
        if (direction < 0 && s.following) await get().setFollowing(false);
        // Shown a third of the way down, with lines before it for context.
        await get().scrollTo(Math.max(0, found - Math.floor(rows / 3)), rows);
        if (mine === run) set({ selected: found, loading: false });
        return;
      }
      i = direction > 0 ? (k + 1) * WINDOW_LINES : k * WINDOW_LINES - 1;
    }
  } catch (err) {
    if (mine === run) set({ loading: false, error: errorPayloadOf(err).message });
    return;
  }
  if (mine !== run) return;
  const far = i >= 0 && (get().lastWindow === null || Math.floor(i / WINDOW_LINES) <= get().lastWindow!);
  const where = `${direction > 0 ? 'after' : 'before'} line ${start + 1}`;
  set({ loading: false, notice: far ? `no mark within ${count.format(MARK_SCAN_WINDOWS * WINDOW_LINES)} lines ${where}` : `no mark ${where}` });
}

export const useMergeStore = create<MergeState>()((set, get) => {
  return {
    paths: [],
    source: null,
    from: null,
    windows: [],
    starts: [],
    lastWindow: null,
    top: 0,
    selected: null,
    notice: null,
    loading: false,
    error: null,
    following: false,
    marks: {},
    async loadMarks() {
      const paths = get().paths;
      try {
        const lists = await Promise.all(paths.map((path) => call('marks_list', { path })));
        if (get().paths === paths) set({ marks: Object.fromEntries(paths.map((p, i) => [p, lists[i]!.lines])) });
      } catch (err) {
        set({ error: errorPayloadOf(err).message });
      }
    },
    toggleMark: toggleMarkAt,
    filterOpen: false,
    filter: NO_FILTER,
    match: null,
    filterError: null,
    async open(paths, source = null) {
      set({ source, filterOpen: false, filter: NO_FILTER, filterError: null, marks: {} });
      await start(paths, null, null);
      void get().loadMarks();
    },
    goToTime(time) {
      return start(get().paths, time, get().match);
    },
    toggleFilter() {
      const s = get();
      if (!s.filterOpen) return set({ filterOpen: true });
      set({ filterOpen: false, filterError: null });
      if (s.match) void start(s.paths, s.from, null);
    },
    setFilter(filter) {
      set({ filter: { ...get().filter, ...filter } });
    },
    async applyFilter() {
      const s = get();
      const { terms, expression, levels, caseSensitive } = s.filter;
      const compiled = filterRegexOf(terms, levels, expression);
      if (compiled.error !== undefined) return set({ filterError: compiled.error });
      set({ filterError: null });
      const match = compiled.pattern === null ? null : { match: compiled.pattern, flags: caseSensitive ? '' : 'i' };
      await start(s.paths, s.from, match);
      if (s.following) await get().setFollowing(true);
    },
    async toEnd(rows) {
      viewRows = rows;
      const mine = run;
      set({ loading: true });
      try {
        await fetchToEnd(mine);
      } catch (err) {
        if (mine === run) set({ loading: false, error: errorPayloadOf(err).message });
        return;
      }
      if (mine === run) set({ top: Math.max(0, knownLinesOf(get()) - rows), loading: false });
    },
    async setFollowing(on, rows = viewRows) {
      stopFollowTimer();
      set({ following: on });
      if (!on) return;
      await get().toEnd(rows);
      if (!get().following) return;
      stopFollowTimer();
      followTimer = setInterval(() => void poll(), FOLLOW_POLL_MS);
    },
    async scrollTo(top, rows) {
      viewRows = rows;
      const mine = run;
      const s0 = get();
      let wanted = Math.max(0, top);
      if (s0.lastWindow !== null) wanted = Math.min(wanted, Math.max(0, knownLinesOf(s0) - rows));
      // Windows the rows from `wanted` fall in (the view's end may not be known yet).
      const first = Math.floor(wanted / WINDOW_LINES);
      const last = Math.floor((wanted + rows) / WINDOW_LINES);
      set({ loading: true });
      try {
        for (let k = first; k <= last; k++) {
          const s = get();
          if (s.lastWindow !== null && k > s.lastWindow) break;
          if (s.windows.some((w) => w.k === k)) continue;
          // A window past the last cursor known: fetch the ones before it first.
          for (let j = s.starts.length; j <= k && mine === run; j++) await fetchWindow(j - 1, mine);
          if (mine !== run) return;
          if (!(await fetchWindow(k, mine))) break;
        }
      } catch (err) {
        if (mine === run) set({ loading: false, error: errorPayloadOf(err).message });
        return;
      }
      if (mine !== run) return;
      const s = get();
      const end = knownLinesOf(s);
      const clamped = s.lastWindow !== null ? Math.min(wanted, Math.max(0, end - rows)) : Math.min(wanted, Math.max(0, end - 1));
      set({ top: clamped, loading: false, notice: null });
    },
    select(index) {
      set({ selected: index, notice: null });
    },
    moveSelection: moveSelectionBy,
    stepMark: stepToMark,
  };
});
