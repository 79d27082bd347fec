/**
 * Tabs: several files open, each with its own view (window, top line, follow)
 * and its own find, filter and histogram. The stores stay singletons for the
 * shown tab; switching keeps a snapshot of their data for the tab left and puts
 * back the one of the tab shown (work in flight for the tab left is dropped, and
 * started again when it is shown). Opening a path that has a tab shows that tab.
 * An open that opens nothing (a missing file, a bad link, lines past the end)
 * adds no tab: its first lines are read before the tab is made (they are then
 * the tab's first window), and the problem shows under the path box.
 */
import { create } from 'zustand';
import { folioLinkOf, linesProblemOf, type LineRange } from '../../src-main/api/folio-link.ts';
import type { ReadOutput } from '../../src-main/api/schemas.ts';
import { isSameFile } from '../model/change-order.ts';
import { call } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';
import { useFilterStore } from './filter-store.ts';
import { useFindStore } from './find-store.ts';
import { useMergeStore } from './merge-store.ts';
import { useOpenProblemStore } from './open-problem-store.ts';
import { useRecentStore } from './recent-store.ts';
import { useReviewStore } from './review-store.ts';
import { useTimeStore } from './time-store.ts';
import { FIRST_WINDOW_BYTES, restoreView, useViewerStore, viewSnapshotOf, type ViewerState, type ViewSnapshot } from './viewer-store.ts';

export interface Tab {
  id: number;
  /** The file shown; for the merged tab, its label. */
  path: string;
  /** The merged view of several logs (merge-store.ts), not a file: at most one such tab. */
  merged?: boolean;
}

export interface TabState {
  tabs: Tab[];
  activeId: number | null;
  /** Show `path` (at `lines`, selected): its tab, or a new tab after the shown one; nothing when it cannot be opened. */
  open(path: string, lines?: LineRange | null): Promise<void>;
  /** What the path box was given: a path or locator, or a link (folio://open?…, or a page of this app's origin). */
  openText(text: string): Promise<void>;
  activate(id: number): void;
  close(id: number): void;
  /** The next (+1) or previous (-1) tab, wrapping. */
  cycle(delta: 1 | -1): void;
  /** Show `paths` as one timeline in the merged tab (made after the shown tab when there is none). */
  /** The merged tab of `paths` (the files of folder or glob `source`, which a following view looks in again). */
  openMerged(paths: string[], source?: string): Promise<void>;
}

type DataOf<T> = { [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]: T[K] };

function dataOf<T extends object>(state: T): DataOf<T> {
  return Object.fromEntries(Object.entries(state).filter(([, v]) => typeof v !== 'function')) as DataOf<T>;
}

interface Snapshot {
  view: ViewSnapshot;
  find: DataOf<ReturnType<typeof useFindStore.getState>>;
  filter: DataOf<ReturnType<typeof useFilterStore.getState>>;
  time: DataOf<ReturnType<typeof useTimeStore.getState>>;
}

const snapshots = new Map<number, Snapshot>();
let nextId = 1;
/** Only the latest open may make a tab (typing paths quickly, or a link while a file is read). */
let latestOpen = 0;

/** Codes of a file that is there but not shown as text: it gets its tab, and the viewer says why. */
const SHOWN_WITH_PROBLEM = new Set(['binary_file', 'encoding_mismatch']);

/**
 * Whether `path` opens, before a tab is made for it: its first lines (the viewer's
 * first window), or, with `lines`, file_info to check they are in the file.
 */
async function firstReadOf(path: string, lines: LineRange | null): Promise<{ ok: true; first?: ReadOutput } | { ok: false; problem: string }> {
  try {
    if (lines) {
      const info = await call('file_info', { path });
      const problem = linesProblemOf(lines, path, info.lines);
      return problem ? { ok: false, problem } : { ok: true };
    }
    return { ok: true, first: await call('read', { path, start_byte: 0, max_bytes: FIRST_WINDOW_BYTES }) };
  } catch (err) {
    const error = errorPayloadOf(err);
    return SHOWN_WITH_PROBLEM.has(error.code) ? { ok: true } : { ok: false, problem: `Cannot open ${path}: ${error.message} (${error.code})` };
  }
}

/** Keep the shown tab's state, and stop its work in flight (its answers would land in the next tab's state). */
function keepShown(id: number | null): void {
  const find = useFindStore.getState();
  const filter = useFilterStore.getState();
  const time = useTimeStore.getState();
  // The merged tab's state is merge-store's; the viewer behind it still holds the file shown before.
  const merged = useTabStore.getState().tabs.find((t) => t.id === id)?.merged;
  if (id !== null && !merged) snapshots.set(id, { view: viewSnapshotOf(), find: dataOf(find), filter: dataOf(filter), time: dataOf(time) });
  find.hide();
  filter.hide();
  time.hide();
  useViewerStore.getState().setFollowing(false);
}

/** Put a tab's state back, and start again what it was doing when it was left. */
function show(snapshot: Snapshot): void {
  useFindStore.setState(snapshot.find);
  useFilterStore.setState(snapshot.filter);
  useTimeStore.setState(snapshot.time);
  restoreView(snapshot.view);
  if (snapshot.find.searching || snapshot.find.counting) void useFindStore.getState().search();
  if (snapshot.filter.loading || snapshot.filter.counting) void useFilterStore.getState().apply();
  if (snapshot.time.computing) void useTimeStore.getState().compute();
}

/** A new tab starts with the stores as the app starts. */
function showFresh(): void {
  useFindStore.setState(dataOf(useFindStore.getInitialState()));
  useFilterStore.setState(dataOf(useFilterStore.getInitialState()));
  useTimeStore.setState(dataOf(useTimeStore.getInitialState()));
}

export const useTabStore = create<TabState>()((set, get) => ({
  tabs: [],
  activeId: null,
  async open(path, lines = null) {
    const request = ++latestOpen;
    useOpenProblemStore.getState().clear();
    const existing = get().tabs.find((t) => t.path === path && !t.merged);
    if (existing) {
      get().activate(existing.id);
      // Opened again: first in the recent list, as opening it would make it.
      void useRecentStore.getState().add(path);
      const lineCount = useViewerStore.getState().info?.lines;
      const problem = lines && lineCount !== undefined ? linesProblemOf(lines, path, lineCount) : null;
      if (problem) useOpenProblemStore.getState().show(problem);
      else if (lines) void useViewerStore.getState().showLines(lines);
      return;
    }
    const opened = await firstReadOf(path, lines);
    if (request !== latestOpen) return; // another open was asked for meanwhile
    if (!opened.ok) return useOpenProblemStore.getState().show(opened.problem);
    const { tabs, activeId } = get();
    // The first file's tab is made when the viewer opens it (adoptViewerPath, below).
    if (activeId !== null) {
      keepShown(activeId);
      const tab = { id: nextId++, path };
      const at = tabs.findIndex((t) => t.id === activeId) + 1;
      set({ tabs: [...tabs.slice(0, at), tab, ...tabs.slice(at)], activeId: tab.id });
      showFresh();
    }
    const opening = useViewerStore.getState().openFile(path, opened.first);
    // Asked before file_info answers: the store makes this jump instead of showing the first lines.
    if (lines) void useViewerStore.getState().showLines(lines);
    await opening;
  },
  async openText(text) {
    const link = folioLinkOf(text, [window.location.origin]);
    if (!link) return get().open(text);
    if (!link.ok) {
      latestOpen++;
      return useOpenProblemStore.getState().show(link.problem);
    }
    return get().open(link.path, link.lines);
  },
  activate(id) {
    const { tabs, activeId } = get();
    const snapshot = snapshots.get(id);
    if (id !== activeId && tabs.find((t) => t.id === id)?.merged) {
      keepShown(activeId);
      set({ activeId: id });
      return;
    }
    if (id === activeId || !snapshot) return;
    keepShown(activeId);
    snapshots.delete(id);
    set({ activeId: id });
    show(snapshot);
  },
  close(id) {
    const { tabs, activeId } = get();
    const at = tabs.findIndex((t) => t.id === id);
    if (at < 0 || tabs.length === 1) return;
    const rest = tabs.filter((t) => t.id !== id);
    if (id !== activeId) {
      snapshots.delete(id);
      set({ tabs: rest });
      return;
    }
    // The shown tab closes: show its neighbour (the one after it, else before).
    const next = rest[Math.min(at, rest.length - 1)]!;
    const snapshot = snapshots.get(next.id);
    keepShown(null);
    snapshots.delete(next.id);
    set({ tabs: rest, activeId: next.id });
    if (snapshot) show(snapshot);
  },
  cycle(delta) {
    const { tabs, activeId } = get();
    if (tabs.length < 2) return;
    const at = tabs.findIndex((t) => t.id === activeId);
    get().activate(tabs[(at + delta + tabs.length) % tabs.length]!.id);
  },
  async openMerged(paths, source) {
    const { tabs, activeId } = get();
    const label = mergedLabelOf(paths);
    const existing = tabs.find((t) => t.merged);
    if (existing) {
      set({ tabs: tabs.map((t) => (t.merged ? { ...t, path: label } : t)) });
      get().activate(existing.id);
    } else {
      keepShown(activeId);
      const tab = { id: nextId++, path: label, merged: true };
      const at = tabs.findIndex((t) => t.id === activeId) + 1;
      set({ tabs: [...tabs.slice(0, at), tab, ...tabs.slice(at)], activeId: tab.id });
    }
    await useMergeStore.getState().open(paths, source ?? null);
  },
}));

const mergedLabelOf = (paths: readonly string[]) => `Merged (${paths.length} logs)`;

// A following view that took in a new log (or lost one) says so in its tab.
useMergeStore.subscribe((now, before) => {
  if (now.paths.length === before.paths.length) return;
  const { tabs } = useTabStore.getState();
  if (tabs.some((t) => t.merged)) useTabStore.setState({ tabs: tabs.map((t) => (t.merged ? { ...t, path: mergedLabelOf(now.paths) } : t)) });
});

/** A file the viewer opened by itself (the launch file, before this module loaded; a link) is the shown tab's. */
function adoptViewerPath(path: string | null): void {
  if (!path) return;
  const { tabs, activeId } = useTabStore.getState();
  if (activeId === null) {
    const tab = { id: nextId++, path };
    useTabStore.setState({ tabs: [tab], activeId: tab.id });
  } else if (!tabs.find((t) => t.id === activeId)?.merged && tabs.find((t) => t.id === activeId)?.path !== path) {
    useTabStore.setState({ tabs: tabs.map((t) => (t.id === activeId ? { ...t, path } : t)) });
  }
}
/** A file the viewer opened by itself that did not open (the launch file): no tab stands for it while it is the only one. */
function dropLoneFailedTab(path: string | null): void {
  const { tabs } = useTabStore.getState();
  if (tabs.length === 1 && tabs[0]!.path === path) useTabStore.setState({ tabs: [], activeId: null });
}
/**
 * The viewer's open of its file failed: nothing of it to show, and the error why.
 * Not a file that is not there yet but proposed (a create being reviewed): the
 * viewer shows its proposed lines (FileProblem), and it keeps its tab.
 */
function openFailed(s: ViewerState): boolean {
  if (!s.error || s.info || s.window || s.loading) return false;
  const selected = useReviewStore.getState().selected;
  return !(selected && selected.change.kind !== 'edit' && isSameFile(s.path, selected.path));
}
// This module may load after the launch file's open already failed (start-open.ts runs first).
if (!openFailed(useViewerStore.getState())) adoptViewerPath(useViewerStore.getState().path);
useViewerStore.subscribe((s, prev) => {
  if (s.path !== prev.path) adoptViewerPath(s.path);
  else if (openFailed(s) && !openFailed(prev)) dropLoneFailedTab(s.path);
});
