/**
 * The merged view's histogram (issue 31): lines per level per time bucket over
 * all its files. Each file's span first (a `histogram` of no bytes: its first and
 * last stamps, no counting), then one width for them all (merged-histogram.ts),
 * then each file counted at that width, the buckets summed. A bar's click starts
 * the merged view at its time.
 *
 * While the view follows its files, the bars follow too: once lines have come
 * (FOLLOW_REFRESH_MS apart at most), each file's bytes past what was counted are
 * counted at the same width and added to its buckets, the bars staying on screen;
 * when the span outgrows twice MAX_BUCKETS bars, everything is counted again at a
 * wider width.
 */
import { create } from 'zustand';
import { commonBucketMsOf, summedHistogramOf, type LevelCounts } from '../model/merged-histogram.ts';
import { call } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';
import { knownLinesOf, useMergeStore } from './merge-store.ts';

/** Bars at most, as the file's histogram. */
const MAX_BUCKETS = 120;
/** While following: a recount of the lines come since at most this often. */
export const FOLLOW_REFRESH_MS = 2_000;

/** One file's part of the histogram: its buckets at the common width, and the bytes counted so far. */
interface FilePart {
  origin_ms: number;
  buckets: LevelCounts[];
  lines: number;
  endByte: number;
}

export interface MergedHistogram {
  paths: string[];
  originMs: number;
  bucketMs: number;
  buckets: LevelCounts[];
  /** lines counted in all the files */
  lines: number;
  /** each file's part, to add the lines written since to */
  parts: FilePart[];
}

interface MergedHistogramState {
  open: boolean;
  computing: boolean;
  histogram: MergedHistogram | null;
  error: string | null;
  toggle(): void;
  /** Count the merged view's files. */
  compute(): Promise<void>;
  /** Start the merged view at bar `i`'s time. */
  jumpToBucket(i: number): Promise<void>;
  /** Count the lines written since the last count and add them (all again at a wider width when the bars outgrow it). */
  refresh(): Promise<void>;
}

let run = 0;
let refreshing = false;

function histogramOf(paths: string[], parts: FilePart[], bucketMs: number): MergedHistogram {
  return { paths, ...summedHistogramOf(parts, bucketMs), lines: parts.reduce((n, p) => n + p.lines, 0), parts };
}

export const useMergedHistogramStore = create<MergedHistogramState>()((set, get) => ({
  open: false,
  computing: false,
  histogram: null,
  error: null,
  toggle() {
    if (get().open) {
      run++;
      return set({ open: false, computing: false });
    }
    set({ open: true });
    void get().compute();
  },
  async compute() {
    const paths = useMergeStore.getState().paths;
    const mine = ++run;
    // The bars of the same files stay on screen while they are counted again (a wider width while following).
    const shown = get().histogram;
    set({ computing: true, error: null, histogram: shown?.paths === paths ? shown : null });
    try {
      const spans = await Promise.all(paths.map((path) => call('histogram', { path, start_byte: 0, end_byte: 0 })));
      const firstMs = Math.min(...spans.map((s) => Date.parse(s.first_time)));
      const lastMs = Math.max(...spans.map((s) => Date.parse(s.last_time)));
      const bucketMs = commonBucketMsOf(firstMs, lastMs, MAX_BUCKETS);
      const answers = await Promise.all(paths.map((path) => call('histogram', { path, bucket_ms: bucketMs })));
      if (mine !== run) return;
      const parts = answers.map((a) => ({ origin_ms: a.origin_ms, buckets: a.buckets, lines: a.lines, endByte: a.scanned.end_byte }));
      set({ computing: false, histogram: histogramOf(paths, parts, bucketMs) });
    } catch (err) {
      if (mine === run) set({ computing: false, error: errorPayloadOf(err).message });
    }
  },
  async refresh() {
    const h = get().histogram;
    if (!h || get().computing || refreshing) return;
    refreshing = true;
    const mine = run;
    try {
      const deltas = await Promise.all(h.paths.map((path, i) => call('histogram', { path, bucket_ms: h.bucketMs, start_byte: h.parts[i]!.endByte })));
      if (mine !== run || get().histogram !== h) return;
      const parts = h.parts.map((part, i) => {
        const d = deltas[i]!;
        const sum = summedHistogramOf([part, d], h.bucketMs);
        return { origin_ms: sum.originMs, buckets: sum.buckets, lines: part.lines + d.lines, endByte: d.scanned.end_byte };
      });
      const next = histogramOf(h.paths, parts, h.bucketMs);
      // Outgrown: every file counted again at a width that fits MAX_BUCKETS bars.
      if (next.buckets.length > 2 * MAX_BUCKETS) {
        refreshing = false;
        return await get().compute();
      }
      set({ histogram: next });
    } catch (err) {
      if (mine === run) set({ error: errorPayloadOf(err).message });
    } finally {
      refreshing = false;
    }
  },
  async jumpToBucket(i) {
    const h = get().histogram;
    if (!h) return;
    const problem = await useMergeStore.getState().goToTime(new Date(h.originMs + i * h.bucketMs).toISOString());
    if (problem) set({ error: problem });
  },
}));

// While the merged view follows and lines come, the open histogram counts them (FOLLOW_REFRESH_MS apart at most).
let lastRefresh = 0;
let pending: ReturnType<typeof setTimeout> | null = null;
useMergeStore.subscribe((now, before) => {
  if (!now.following || knownLinesOf(now) === knownLinesOf(before) || now.paths !== before.paths) return;
  const h = useMergedHistogramStore.getState();
  if (!h.open || !h.histogram || pending) return;
  pending = setTimeout(
    () => {
      pending = null;
      lastRefresh = Date.now();
      void useMergedHistogramStore.getState().refresh();
    },
    Math.max(0, lastRefresh + FOLLOW_REFRESH_MS - Date.now()),
  );
});
