/**
 * Tabs: several files open, each with its own view (window, top line, follow)
 * and its own find, filter and histogram. The stores stay singletons for the
 * shown tab; switching keeps a snapshot of their data for the tab left and puts
 * back the one of the tab shown (work in flight for the tab left is dropped, and
 * started again when it is shown). Opening a path that has a tab shows that tab.
 */
import { create } from 'zustand';
import { useFilterStore } from './filter-store.ts';
import { useFindStore } from './find-store.ts';
import { useRecentStore } from './recent-store.ts';
import { useTimeStore } from './time-store.ts';
import { restoreView, useViewerStore, viewSnapshotOf, type ViewSnapshot } from './viewer-store.ts';

export interface Tab {
  id: number;
  path: string;
}

export interface TabState {
  tabs: Tab[];
  activeId: number | null;
  /** Show `path`: its tab, or a new tab after the shown one. */
  open(path: string): Promise<void>;
  activate(id: number): void;
  close(id: number): void;
  /** The next (+1) or previous (-1) tab, wrapping. */
  cycle(delta: 1 | -1): void;
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

/** Keep the shown tab's state, and stop its work in flight (its answers would land in the next tab's state). */
function keepShown(id: number | null): void {
  const find = useFindStore.getState();
  const filter = useFilterStore.getState();
  const time = useTimeStore.getState();
  if (id !== null) snapshots.set(id, { view: viewSnapshotOf(), find: dataOf(find), filter: dataOf(filter), time: dataOf(time) });
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
  async open(path) {
    const { tabs, activeId } = get();
    const existing = tabs.find((t) => t.path === path);
    if (existing) {
      get().activate(existing.id);
      // Opened again: first in the recent list, as opening it would make it.
      void useRecentStore.getState().add(path);
      return;
    }
    if (activeId === null) {
      // The first file: the tab is made when the viewer opens it (below).
      await useViewerStore.getState().openFile(path);
      return;
    }
    keepShown(activeId);
    const tab = { id: nextId++, path };
    const at = tabs.findIndex((t) => t.id === activeId) + 1;
    set({ tabs: [...tabs.slice(0, at), tab, ...tabs.slice(at)], activeId: tab.id });
    showFresh();
    await useViewerStore.getState().openFile(path);
  },
  activate(id) {
    const { activeId } = get();
    const snapshot = snapshots.get(id);
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
    const snapshot = snapshots.get(next.id)!;
    keepShown(null);
    snapshots.delete(next.id);
    set({ tabs: rest, activeId: next.id });
    show(snapshot);
  },
  cycle(delta) {
    const { tabs, activeId } = get();
    if (tabs.length < 2) return;
    const at = tabs.findIndex((t) => t.id === activeId);
    get().activate(tabs[(at + delta + tabs.length) % tabs.length]!.id);
  },
}));

/** A file the viewer opened by itself (the launch file, before this module loaded; a link) is the shown tab's. */
function adoptViewerPath(path: string | null): void {
  if (!path) return;
  const { tabs, activeId } = useTabStore.getState();
  if (activeId === null) {
    const tab = { id: nextId++, path };
    useTabStore.setState({ tabs: [tab], activeId: tab.id });
  } else if (tabs.find((t) => t.id === activeId)?.path !== path) {
    useTabStore.setState({ tabs: tabs.map((t) => (t.id === activeId ? { ...t, path } : t)) });
  }
}
adoptViewerPath(useViewerStore.getState().path);
useViewerStore.subscribe((s, prev) => {
  if (s.path !== prev.path) adoptViewerPath(s.path);
});
