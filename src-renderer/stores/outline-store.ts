/**
 * The outline store: the headings of the open markdown file (the `outline` op),
 * re-read whenever the file's version changes (an approve, undo, refresh or
 * follow poll gives viewer-store a new etag). Only the latest request lands, as
 * in viewer-store. A refusal (too_large, binary_file, …) is kept as the message
 * the panel shows. Whether the panel is shown is the person's choice for the
 * session: it opens by itself for markdown files until they close it.
 */
import { create } from 'zustand';
import type { OutlineOutput } from '../../src-main/api/schemas.ts';
import { isMarkdownPath } from '../model/outline-rows.ts';
import { call, type ErrorPayload } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';
import { useViewerStore, type ViewerState } from './viewer-store.ts';

export type OutlineHeading = OutlineOutput['headings'][number];

/** sessionStorage key of "the person closed the outline": kept across reloads of the page, not across sessions. */
const CLOSED_KEY = 'folio.outline.closed';

function closedThisSession(): boolean {
  try {
    return sessionStorage.getItem(CLOSED_KEY) === '1';
  } catch {
    return false;
  }
}

function rememberClosed(closed: boolean): void {
  try {
    if (closed) sessionStorage.setItem(CLOSED_KEY, '1');
    else sessionStorage.removeItem(CLOSED_KEY);
  } catch {
    // storage refused (private mode): the choice lasts for this page only
  }
}

export interface OutlineState {
  /** the open file has an outline (markdown) */
  applies: boolean;
  /** the panel is wanted: true until the person closes it */
  wanted: boolean;
  path: string | null;
  /** the version the headings are of */
  etag: string | null;
  headings: OutlineHeading[];
  loading: boolean;
  error: ErrorPayload | null;
  filter: string;
  /** Read the outline of `path` (at version `etag`, as file_info last said). */
  load(path: string, etag: string): Promise<void>;
  /** Forget the outline: the open file has none. */
  clear(): void;
  /** A markdown file is opening: drop the last file's headings until its version is known (`waiting` while file_info is asked). */
  expect(path: string, waiting: boolean): void;
  toggle(): void;
  setFilter(filter: string): void;
}

let latestLoad = 0;

export const useOutlineStore = create<OutlineState>()((set, get) => ({
  applies: false,
  wanted: !closedThisSession(),
  path: null,
  etag: null,
  headings: [],
  loading: false,
  error: null,
  filter: '',
  async load(path, etag) {
    const request = ++latestLoad;
    const samePath = get().path === path;
    set({ applies: true, path, etag, loading: true, ...(samePath ? {} : { headings: [], error: null, filter: '' }) });
    try {
      const answer = await call('outline', { path });
      if (request !== latestLoad) return;
      set({ headings: answer.headings, etag: answer.version.etag, loading: false, error: null });
    } catch (err) {
      if (request !== latestLoad) return;
      set({ headings: [], loading: false, error: errorPayloadOf(err) });
    }
  },
  clear() {
    latestLoad++;
    set({ applies: false, path: null, etag: null, headings: [], loading: false, error: null, filter: '' });
  },
  expect(path, waiting) {
    latestLoad++;
    set({ applies: true, path, etag: null, headings: [], loading: waiting, error: null, ...(get().path === path ? {} : { filter: '' }) });
  },
  toggle() {
    const wanted = !get().wanted;
    rememberClosed(!wanted);
    set({ wanted });
  },
  setFilter: (filter) => set({ filter }),
}));

/** What the outline follows in the viewer: the open file, its version, and whether file_info is being asked. */
function keyOf(s: Pick<ViewerState, 'path' | 'info' | 'loading'>): { path: string | null; etag: string | null; loading: boolean } {
  return { path: s.path, etag: s.info?.version.etag ?? null, loading: s.loading };
}

/**
 * Keep the outline on the viewer's file: load it once file_info names a version,
 * and again whenever that version changes. Returns unsubscribe.
 */
export function followViewerFile(): () => void {
  const sync = (s: ViewerState) => {
    const { path, etag } = keyOf(s);
    const outline = useOutlineStore.getState();
    if (!isMarkdownPath(path) || s.info?.binary.is_binary) {
      if (outline.applies || outline.path !== null) outline.clear();
      return;
    }
    if (!path) return;
    // file_info not in yet (or failed, which the viewer shows): nothing to read against.
    if (!etag) {
      if (outline.path !== path || outline.etag !== null || outline.loading !== s.loading) outline.expect(path, s.loading);
      return;
    }
    if (outline.path === path && outline.etag === etag) return;
    void outline.load(path, etag);
  };
  sync(useViewerStore.getState());
  return useViewerStore.subscribe((s, prev) => {
    const now = keyOf(s);
    const before = keyOf(prev);
    if (now.path !== before.path || now.etag !== before.etag || now.loading !== before.loading) sync(s);
  });
}
