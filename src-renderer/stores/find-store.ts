/**
 * The find store: a regex search over the whole open file with the `search` op,
 * in byte slices so that results fill in while a big file is searched, up to
 * PAGE_RESULTS per page; `more()` continues where the last page stopped.
 */
import { create } from 'zustand';
import type { SearchOutput } from '../../src-main/api/schemas.ts';
import { call, type ErrorPayload } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';
import { useViewerStore } from './viewer-store.ts';

export type FindMatch = SearchOutput['matches'][number];

/** Results per page ("More" asks for the next). */
export const PAGE_RESULTS = 200;
/** Bytes searched per call: small enough that the list fills in while a 1 GiB file is searched. */
const SLICE_BYTES = 128 * 1024 * 1024;

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
  /** the pattern and file the results are for */
  searchedFor: { path: string; pattern: string; caseSensitive: boolean } | null;
  show(): void;
  hide(): void;
  setPattern(pattern: string): void;
  setCaseSensitive(on: boolean): void;
  search(): Promise<void>;
  more(): Promise<void>;
}

let latestSearch = 0;

export const useFindStore = create<FindState>()((set, get) => {
  /** Search slices from `startByte` until a page is full or the file ends, appending as each slice answers. */
  async function fillPage(request: number, startByte: number): Promise<void> {
    const target = get().searchedFor;
    if (!target) return;
    const flags = target.caseSensitive ? '' : 'i';
    let start = startByte;
    let found = 0;
    set({ searching: true, error: null });
    try {
      for (;;) {
        const fileBytes = useViewerStore.getState().info?.size ?? get().fileBytes;
        if (start >= fileBytes) {
          if (request === latestSearch) set({ nextStartByte: null, searchedBytes: fileBytes, fileBytes });
          break;
        }
        const answer = await call('search', {
          path: target.path,
          pattern: target.pattern,
          ...(flags ? { flags } : {}),
          start_byte: start,
          end_byte: Math.min(fileBytes, start + SLICE_BYTES),
          max: PAGE_RESULTS - found,
          max_line_chars: 300,
        });
        if (request !== latestSearch) return;
        found += answer.matches.length;
        const next = answer.truncated && answer.next_start_byte !== null ? answer.next_start_byte : Math.max(answer.scanned.end_byte, start + 1);
        start = next;
        set((s) => ({ results: [...s.results, ...answer.matches], searchedBytes: Math.min(next, fileBytes), fileBytes }));
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
    show: () => set({ open: true }),
    hide() {
      latestSearch++;
      set({ open: false, searching: false });
    },
    setPattern: (pattern) => set({ pattern }),
    setCaseSensitive: (caseSensitive) => set({ caseSensitive }),
    async search() {
      const { pattern, caseSensitive } = get();
      const { path, info } = useViewerStore.getState();
      if (!path || !info || !pattern) return;
      const request = ++latestSearch;
      set({ results: [], nextStartByte: null, searchedBytes: 0, fileBytes: info?.size ?? 0, searchedFor: { path, pattern, caseSensitive } });
      await fillPage(request, 0);
    },
    async more() {
      const { nextStartByte, searching } = get();
      if (nextStartByte === null || searching) return;
      await fillPage(++latestSearch, nextStartByte);
    },
  };
});
