/**
 * The find store: a regex search over the whole open file with the `search` op,
 * in byte slices so that results fill in while a big file is searched, up to
 * PAGE_RESULTS per page; `more()` continues where the last page stopped. Past
 * the first page the rest of the file is counted (count_only, same slices), so
 * the panel can say "3 of 56,789 lines · 45% searched". `step(±1)` (F3, Enter)
 * moves through the results, fetching the next page at the end of one.
 *
 * Find as you type (issue 31): a new pattern is searched FIND_DEBOUNCE_MS after
 * the last keystroke; each keystroke cancels the search before it (its HTTP
 * requests aborted, and the generation counters drop any answer still on its
 * way), so a shorter prefix's results never show after a longer one's.
 */
import { create } from 'zustand';
import type { SearchOutput } from '../../src-main/api/schemas.ts';
import type { ErrorPayload } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';
import { countToEnd, nextSliceBytes, searchSlice, SLICE_BYTES, type SearchTarget } from './incremental-search.ts';
import { infoWhenReady, useViewerStore } from './viewer-store.ts';

export type FindMatch = SearchOutput['matches'][number];

/** Results per page ("More" asks for the next). */
export const PAGE_RESULTS = 200;
/** Quiet time after a keystroke before the pattern is searched: a word typed at ~5 keys/s starts one search, not five. */
export const FIND_DEBOUNCE_MS = 150;

export interface FindState {
  open: boolean;
  pattern: string;
  caseSensitive: boolean;
  results: FindMatch[];
  searching: boolean;
  error: ErrorPayload | null;
  /** where the next page starts; null once the whole file was searched */
  nextStartByte: number | null;
  /** bytes searched so far, of `fileBytes` */
  searchedBytes: number;
  fileBytes: number;
  /** index in `results` of the result shown last (stepped to or clicked) */
  current: number | null;
  /** matching lines in the bytes searched or counted so far (all of them once `searchedBytes` reaches `fileBytes`) */
  total: number;
  /** the rest of the file is being counted */
  counting: boolean;
  /** the pattern and file the results are for */
  searchedFor: SearchTarget | null;
  show(): void;
  hide(): void;
  setPattern(pattern: string): void;
  setCaseSensitive(on: boolean): void;
  /** Search the pattern from the file's start; `showFirst` (default true) shows the first result when the page is in, as Enter does; find as you type lists without moving the view. */
  search(options?: { showFirst?: boolean }): Promise<void>;
  more(): Promise<void>;
  /** Show the next (+1) or previous (-1) result; searches first when the pattern changed. */
  step(delta: 1 | -1): Promise<void>;
  /** Show result `index` in the main view. */
  showResult(index: number): void;
}

let latestSearch = 0;
let latestCount = 0;
/** The pending search of find as you type. */
let typingTimer: ReturnType<typeof setTimeout> | undefined;
/** Aborts the requests of the current search (page and count). */
let inFlight: AbortController | null = null;
/** The first page of a search started by typing, for Enter pressed before it is in. */
let typedPage: Promise<void> | null = null;

/** Stop the running search and any pending one: later answers of it are dropped. */
function cancelSearch(): AbortSignal {
  clearTimeout(typingTimer);
  typingTimer = undefined;
  latestSearch++;
  latestCount++;
  inFlight?.abort();
  inFlight = new AbortController();
  return inFlight.signal;
}

/** Count the matching lines from `startByte` to the end, slice by slice, adding to `total`. */
async function countRest(request: number, startByte: number, signal: AbortSignal | undefined): Promise<void> {
  const { getState: get, setState: set } = useFindStore;
  const target = get().searchedFor;
  if (!target) return;
  set({ counting: true });
  try {
    await countToEnd(
      target,
      startByte,
      () => get().fileBytes,
      () => request === latestCount,
      (count, reached) => set((s) => ({ total: s.total + count, searchedBytes: reached })),
      signal,
    );
  } catch (err) {
    // countToEnd asked a failed slice again once; this is the second failure, or a cancel.
    if (!signal?.aborted && request === latestCount) set({ error: errorPayloadOf(err) });
  } finally {
    if (request === latestCount) set({ counting: false });
  }
}

/** A keystroke: cancel what runs, and search the new pattern once typing pauses (an empty one clears the results). */
function searchAsTyped() {
  const { getState: get, setState: set } = useFindStore;
  cancelSearch();
  if (!get().open) return;
  if (!get().pattern) {
    set({ results: [], current: null, total: 0, searching: false, counting: false, nextStartByte: null, searchedBytes: 0, searchedFor: null, error: null });
    return;
  }
  typingTimer = setTimeout(() => void get().search({ showFirst: false }), FIND_DEBOUNCE_MS);
}

export const useFindStore = create<FindState>()((set, get) => {
  /** Search slices from `startByte` until a page is full or the file ends, appending as each slice answers. */
  async function fillPage(request: number, startByte: number, counts: boolean): Promise<void> {
    const target = get().searchedFor;
    if (!target) return;
    let start = startByte;
    let found = 0;
    let slice = SLICE_BYTES;
    set({ searching: true, error: null });
    try {
      for (;;) {
        const fileBytes = useViewerStore.getState().info?.size ?? get().fileBytes;
        if (start >= fileBytes) {
          if (request === latestSearch) set(counts ? { nextStartByte: null, searchedBytes: fileBytes, fileBytes } : { nextStartByte: null });
          break;
        }
        const { matches, next } = await searchSlice(target, start, Math.min(fileBytes, start + slice), PAGE_RESULTS - found, 300, inFlight?.signal);
        if (request !== latestSearch) return;
        slice = nextSliceBytes(slice);
        found += matches.length;
        start = next;
        set((s) => {
          // The first page counts as it goes; later pages ("More") are behind countRest, which counted them.
          return {
            results: [...s.results, ...matches],
            ...(counts ? { searchedBytes: Math.min(next, fileBytes), total: s.total + matches.length } : {}),
            fileBytes,
          };
        });
        if (found >= PAGE_RESULTS) {
          set({ nextStartByte: next < fileBytes ? next : null });
          break;
        }
      }
    } catch (err) {
      if (request === latestSearch) set({ error: errorPayloadOf(err), nextStartByte: null });
    } finally {
      if (request === latestSearch) set({ searching: false });
    }
  }

  return {
    open: false,
    pattern: '',
    caseSensitive: false,
    results: [],
    searching: false,
    error: null,
    nextStartByte: null,
    searchedBytes: 0,
    fileBytes: 0,
    searchedFor: null,
    current: null,
    total: 0,
    counting: false,
    show: () => set({ open: true }),
    hide() {
      cancelSearch();
      set({ open: false, searching: false, counting: false });
    },
    setPattern: (pattern) => (set({ pattern }), searchAsTyped()),
    setCaseSensitive: (caseSensitive) => (set({ caseSensitive }), searchAsTyped()),
    async search({ showFirst = true } = {}) {
      const { pattern, caseSensitive } = get();
      const { path } = useViewerStore.getState();
      if (!path || !pattern) return;
      // Enter right after the file opened: its lines show before file_info answers (a cold index); wait for it.
      const info = await infoWhenReady(path);
      if (!info || get().pattern !== pattern || get().caseSensitive !== caseSensitive || useViewerStore.getState().path !== path) return;
      const signal = cancelSearch();
      const request = latestSearch;
      const countRequest = latestCount;
      set({
        results: [],
        current: null,
        total: 0,
        counting: false,
        nextStartByte: null,
        searchedBytes: 0,
        fileBytes: info?.size ?? 0,
        searchedFor: { path, pattern, caseSensitive },
      });
      const page = fillPage(request, 0, true);
      typedPage = showFirst ? null : page;
      await page;
      const { nextStartByte, results, current } = get();
      if (showFirst && request === latestSearch && results.length > 0 && current === null) get().showResult(0);
      if (countRequest === latestCount && nextStartByte !== null) void countRest(countRequest, nextStartByte, signal);
    },
    async more() {
      const { nextStartByte, searching } = get();
      if (nextStartByte === null || searching) return;
      await fillPage(++latestSearch, nextStartByte, false);
    },
    async step(delta) {
      // Enter while the typed pattern's first page is coming: wait for it, then step from there.
      if (get().searching && typedPage) await typedPage;
      const { pattern, caseSensitive, searchedFor, searching } = get();
      const path = useViewerStore.getState().path;
      const stale = !searchedFor || searchedFor.pattern !== pattern || searchedFor.caseSensitive !== caseSensitive || searchedFor.path !== path;
      if (stale) {
        // A new search shows its first result by itself.
        await get().search();
        return;
      }
      if (searching) return;
      typedPage = null;
      const { current, results, nextStartByte } = get();
      let index = current === null ? (delta > 0 ? 0 : results.length - 1) : current + delta;
      if (index >= results.length && nextStartByte !== null) await get().more();
      const loaded = get().results.length;
      if (loaded === 0) return;
      // Past either end: around to the other, as F3 does in editors.
      if (index >= loaded) index = 0;
      if (index < 0) index = loaded - 1;
      get().showResult(index);
    },
    showResult(index) {
      const match = get().results[index];
      if (!match) return;
      set({ current: index });
      void useViewerStore.getState().goToLine(match.line, { at: 'center', select: false, highlight: true });
    },
  };
});
