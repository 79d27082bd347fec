/**
 * The filter view's store: the lines of the open file that pass the filters
 * (filter-query.ts), fetched with the engine's `search` in byte slices, each
 * continuing at the last one's `next_start_byte`. The first slice is small and
 * capped at FIRST_ROWS, so the first lines show at once on a big file; from there
 * the rest of the file is counted (count_only) for the total and the progress
 * while, at the same time, the list fills in up to KEPT_ROWS.
 *
 * The list scrolls through every passing line (issue 31), with at most
 * WINDOW_ROWS of them in memory: `rows` are the lines from index `rowsStart` on.
 * Each answer leaves a checkpoint (row index, byte where that row is searched
 * from: the search's own cursor), one per CHECKPOINT_ROWS or so; scrolling to rows
 * outside the window (`showRows`) refetches from the checkpoint before them, and
 * rows fetched past WINDOW_ROWS drop the oldest.
 */
import { create } from 'zustand';
import type { SearchOutput } from '../../src-main/api/schemas.ts';
import { assertionOf, FilterExprError, parseFilterExpr } from '../model/filter-expr.ts';
import { filterPatternOf, invalidTermOf, type FilterTerm, type LogLevel } from '../model/filter-query.ts';
import type { ErrorPayload } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';
import { countRange, countToEnd, nextSliceBytes, searchSlice, SLICE_BYTES, type SearchTarget } from './incremental-search.ts';
import { infoWhenReady, useViewerStore } from './viewer-store.ts';

export type FilterRow = SearchOutput['matches'][number];

/** Rows of the first answer: enough to fill the panel. */
export const FIRST_ROWS = 200;
/** Rows fetched per later call. */
export const PAGE_ROWS = 2_000;
/** Rows fetched without scrolling; past them the rest of the file is counted, and scrolling fetches more. */
export const KEPT_ROWS = 10_000;
/** The most rows kept in memory: past it, the rows furthest from the view are dropped (refetched from a checkpoint). */
export const WINDOW_ROWS = 12_000;
/**
 * No checkpoint is added within this many rows of another. Each page leaves one at its
 * end otherwise, so rows paged through have checkpoints at most PAGE_ROWS + 2 ×
 * CHECKPOINT_ROWS apart, and a jump back into them fetches from one without counting.
 */
const CHECKPOINT_ROWS = 1_000;

/** Row `row` (0-based, among the passing lines) is the first passing line at or after `byte`. */
export interface RowCheckpoint {
  row: number;
  byte: number;
}

/** The first slice is small, so a sparse filter still paints quickly; later slices are large. */
const FIRST_SLICE_BYTES = 8 * 1024 * 1024;

export interface FilterState {
  open: boolean;
  terms: FilterTerm[];
  /** a boolean expression (filter-expr.ts) the lines must also pass; '' for none */
  expression: string;
  levels: LogLevel[];
  caseSensitive: boolean;
  /** the passing lines from index `rowsStart` on (a window of at most WINDOW_ROWS) */
  rows: FilterRow[];
  rowsStart: number;
  /** where rows were fetched from, ascending by row: where a refetch starts */
  checkpoints: RowCheckpoint[];
  /** where the window's rows continue; null once the last passing line is in `rows` */
  nextStartByte: number | null;
  /** bytes looked at (listed or counted), of `fileBytes` */
  searchedBytes: number;
  fileBytes: number;
  /** passing lines in the bytes looked at */
  total: number;
  loading: boolean;
  counting: boolean;
  error: ErrorPayload | null;
  /** what `rows` are for */
  appliedFor: SearchTarget | null;
  toggle(): void;
  hide(): void;
  setTerms(terms: FilterTerm[]): void;
  setExpression(expression: string): void;
  setLevels(levels: LogLevel[]): void;
  setCaseSensitive(on: boolean): void;
  /** Search with the current terms and levels. */
  apply(): Promise<void>;
  /** Have rows [first, last) (indices among all passing lines) in the window, fetching from a checkpoint when they are not. */
  showRows(first: number, last: number): Promise<void>;
}

let latest = 0;

/** The expression's assertion, null when there is none, or why it is malformed. */
function assertionOfExpression(expression: string): string | null | FilterExprError {
  if (expression.trim() === '') return null;
  try {
    return assertionOf(parseFilterExpr(expression));
  } catch (err) {
    if (err instanceof FilterExprError) return err;
    throw err;
  }
}

/** `checkpoints` with `c` in row order (none added within CHECKPOINT_ROWS of one there: they would save no reading). */
function withCheckpoint(checkpoints: RowCheckpoint[], c: RowCheckpoint): RowCheckpoint[] {
  if (checkpoints.some((k) => Math.abs(k.row - c.row) < CHECKPOINT_ROWS && k.row !== 0)) return checkpoints;
  const at = checkpoints.findIndex((k) => k.row > c.row);
  return at < 0 ? [...checkpoints, c] : [...checkpoints.slice(0, at), c, ...checkpoints.slice(at)];
}

/** Rows a jump fetches at most before the ones it shows: past this, it narrows down by counting (narrowTo). */
const JUMP_FETCH_ROWS = 2 * PAGE_ROWS;

/** `s` with `matches` after its rows (the oldest dropped past WINDOW_ROWS), a checkpoint at `byte` when due, and where the rows go on. */
function withRowsAppended(s: FilterState, matches: FilterRow[], byte: number, nextStartByte: number | null, counts: boolean): Partial<FilterState> {
  const all = [...s.rows, ...matches];
  const drop = Math.max(0, all.length - WINDOW_ROWS);
  const end = s.rowsStart + all.length;
  return {
    rows: drop > 0 ? all.slice(drop) : all,
    rowsStart: s.rowsStart + drop,
    // Spaced against every checkpoint, not only the last: after a far jump, the count's lie further down.
    checkpoints: withCheckpoint(s.checkpoints, { row: end, byte }),
    nextStartByte,
    ...(counts ? { searchedBytes: nextStartByte ?? s.fileBytes, total: s.total + matches.length } : {}),
  };
}

/** After the next frame is painted (a timer where there are no frames). */
const nextPaint = () =>
  new Promise<void>((resolve) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => setTimeout(resolve, 0)) : setTimeout(resolve, 0)));

/** Count passing lines from `startByte` to the end (the rows past KEPT_ROWS), for the total and the progress. */
async function countRest(request: number, startByte: number): Promise<void> {
  const { getState: get, setState: set } = useFilterStore;
  const target = get().appliedFor;
  if (!target) return;
  set({ counting: true });
  try {
    await countToEnd(
      target,
      startByte,
      () => get().fileBytes,
      () => request === latest,
      // Each slice's end is a checkpoint: a jump far into the list starts counting from the nearest.
      (count, reached) =>
        set((s) => ({ total: s.total + count, searchedBytes: reached, checkpoints: withCheckpoint(s.checkpoints, { row: s.total + count, byte: reached }) })),
    );
  } catch (err) {
    if (request === latest) set({ error: errorPayloadOf(err) });
  } finally {
    set({ counting: false });
  }
}

/**
 * A checkpoint at most JUMP_FETCH_ROWS before row `first`, from `from` (one before
 * it): the byte range up to the next checkpoint past `first` (or what the count
 * has reached) is halved by counting its first half (count_only, no rows sent),
 * each count's end a checkpoint kept for later jumps. About log2(range / 64 KiB)
 * counts over half the range each: a jump to the end of a 1 GiB log's 2 million
 * matches reads the last slice twice instead of sending 2 million rows.
 */
async function narrowTo(first: number, from: RowCheckpoint): Promise<RowCheckpoint> {
  const { getState: get, setState: set } = useFilterStore;
  const target = get().appliedFor;
  if (!target) return from;
  const s = get();
  let lo = from;
  let hi: RowCheckpoint = s.checkpoints.find((c) => c.row > first) ?? { row: s.total, byte: s.searchedBytes };
  if (hi.row <= first) return from;
  while (hi.row - lo.row > JUMP_FETCH_ROWS && hi.byte - lo.byte > 64 * 1024) {
    const mid = lo.byte + Math.floor((hi.byte - lo.byte) / 2);
    const { count, end } = await countRange(target, lo.byte, mid);
    if (get().appliedFor !== target) return from;
    if (end <= lo.byte || end >= hi.byte) break;
    const at = { row: lo.row + count, byte: end };
    set((st) => ({ checkpoints: withCheckpoint(st.checkpoints, at) }));
    if (at.row <= first) lo = at;
    else hi = at;
  }
  return lo;
}

/** narrowTo while the list shows it is loading; null when it failed (said in the panel) or another filter took over. */
async function narrowedStart(first: number, from: RowCheckpoint): Promise<RowCheckpoint | null> {
  const { getState: get, setState: set } = useFilterStore;
  const target = get().appliedFor;
  set({ loading: true });
  try {
    const near = await narrowTo(first, from);
    return get().appliedFor === target ? near : null;
  } catch (err) {
    if (get().appliedFor === target) set({ error: errorPayloadOf(err), loading: false });
    return null;
  }
}

export const useFilterStore = create<FilterState>()((set, get) => {
  /** Rows from `startByte` until `wanted` more are in or the file ends; the list's frontier is also the count's while `counts`. */
  async function fetchRows(request: number, startByte: number, wanted: number, counts: boolean): Promise<void> {
    const target = get().appliedFor;
    if (!target) return;
    let start = startByte;
    let got = 0;
    let slice = counts && startByte === 0 ? FIRST_SLICE_BYTES : SLICE_BYTES;
    set({ loading: true, error: null });
    try {
      while (got < wanted) {
        const fileBytes = get().fileBytes;
        if (start >= fileBytes) {
          if (request === latest) set(counts ? { nextStartByte: null, searchedBytes: fileBytes } : { nextStartByte: null });
          return;
        }
        const max = Math.min(got === 0 && startByte === 0 ? FIRST_ROWS : PAGE_ROWS, wanted - got);
        const { matches, next } = await searchSlice(target, start, Math.min(fileBytes, start + slice), max, 2_000);
        if (request !== latest) return;
        slice = slice < SLICE_BYTES ? SLICE_BYTES : nextSliceBytes(slice);
        got += matches.length;
        start = next;
        const reached = Math.min(start, fileBytes);
        set((s) => withRowsAppended(s, matches, start, reached < fileBytes ? reached : null, counts));
      }
    } catch (err) {
      if (request === latest) set({ error: errorPayloadOf(err), nextStartByte: null });
    } finally {
      if (request === latest) set({ loading: false });
    }
  }

  return {
    open: false,
    terms: [{ pattern: '', exclude: false }],
    expression: '',
    levels: [],
    caseSensitive: true,
    rows: [],
    rowsStart: 0,
    checkpoints: [],
    nextStartByte: null,
    searchedBytes: 0,
    fileBytes: 0,
    total: 0,
    loading: false,
    counting: false,
    error: null,
    appliedFor: null,
    toggle: () => (get().open ? get().hide() : set({ open: true })),
    hide() {
      latest++;
      set({ open: false, loading: false, counting: false });
    },
    setTerms: (terms) => set({ terms }),
    setExpression: (expression) => set({ expression }),
    setLevels: (levels) => set({ levels }),
    setCaseSensitive: (caseSensitive) => set({ caseSensitive }),
    async apply() {
      const { terms, expression, levels, caseSensitive } = get();
      const request = ++latest;
      const opened = useViewerStore.getState().path;
      // Applied right after the file opened: its lines show before file_info answers (a cold index); wait for it.
      const info = opened ? await infoWhenReady(opened) : null;
      if (request !== latest) return;
      const path = useViewerStore.getState().path;
      const invalid = invalidTermOf(terms);
      const reset = {
        rows: [],
        rowsStart: 0,
        checkpoints: [{ row: 0, byte: 0 }],
        nextStartByte: null,
        searchedBytes: 0,
        total: 0,
        counting: false,
        loading: false,
        fileBytes: info?.size ?? 0,
      };
      const compiled = assertionOfExpression(expression);
      if (compiled instanceof FilterExprError)
        return set({
          ...reset,
          appliedFor: null,
          error: { code: 'invalid_input', message: `Filter expression, at character ${compiled.at + 1}: ${compiled.message}` },
        });
      const pattern = filterPatternOf(terms, levels, compiled);
      if (invalid)
        return set({
          ...reset,
          appliedFor: null,
          error: { code: 'invalid_input', message: `“${invalid.pattern}” is not a regular expression: ${invalid.reason}` },
        });
      if (!path || !info || pattern === null) return set({ ...reset, appliedFor: null, error: null });
      set({ ...reset, error: null, appliedFor: { path, pattern, caseSensitive } });
      // The first rows, counted as they come; then the rest of the file is counted while
      // the list fills in up to KEPT_ROWS, not after it (listing is mostly round trips and
      // rows sent, which would leave the engine's cores idle).
      await fetchRows(request, 0, FIRST_ROWS, true);
      if (get().nextStartByte !== null) await nextPaint(); // the first rows are drawn before the count takes the cores
      const { nextStartByte, rows } = get();
      if (request !== latest || nextStartByte === null) return;
      void countRest(request, nextStartByte);
      if (rows.length < KEPT_ROWS) await fetchRows(request, nextStartByte, KEPT_ROWS - rows.length, false);
    },
    async showRows(first, last) {
      const { rowsStart, rows, loading, appliedFor, checkpoints, nextStartByte } = get();
      const end = rowsStart + rows.length;
      if (!appliedFor || loading || (first >= rowsStart && (last <= end || nextStartByte === null))) return;
      if (first >= rowsStart && first <= end) {
        // Just past the window's end: continue it (the oldest rows drop).
        if (nextStartByte !== null) await fetchRows(latest, nextStartByte, Math.max(PAGE_ROWS, last - end), false);
        return;
      }
      // Elsewhere: start the window at the last checkpoint before `first`, and fetch on to `last`.
      let from = checkpoints[0]!;
      for (const c of checkpoints) if (c.row <= first) from = c;
      if (first > end && from.row < end && nextStartByte !== null) from = { row: end, byte: nextStartByte };
      // Far from it (a scrollbar dragged down a GiB's filter): count down to a checkpoint near `first` instead of fetching every row between.
      if (first - from.row > JUMP_FETCH_ROWS) {
        const near = await narrowedStart(first, from);
        if (!near) return;
        from = near;
      }
      set({ rows: [], rowsStart: from.row, nextStartByte: from.byte });
      await fetchRows(latest, from.byte, Math.max(PAGE_ROWS, last - from.row), false);
    },
  };
});
