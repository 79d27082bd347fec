/**
 * The merged view's histogram (issue 31): lines per level per time bucket over
 * all its files. Each file's span first (a `histogram` of no bytes: its first and
 * last stamps, no counting), then one width for them all (merged-histogram.ts),
 * then each file counted at that width, the buckets summed. A bar's click starts
 * the merged view at its time.
 */
import { create } from 'zustand';
import { commonBucketMsOf, summedHistogramOf, type LevelCounts } from '../model/merged-histogram.ts';
import { call } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';
import { useMergeStore } from './merge-store.ts';

/** Bars at most, as the file's histogram. */
const MAX_BUCKETS = 120;

export interface MergedHistogram {
  paths: string[];
  originMs: number;
  bucketMs: number;
  buckets: LevelCounts[];
  /** lines counted in all the files */
  lines: number;
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
}

let run = 0;

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
    set({ computing: true, error: null, histogram: null });
    try {
      const spans = await Promise.all(paths.map((path) => call('histogram', { path, start_byte: 0, end_byte: 0 })));
      const firstMs = Math.min(...spans.map((s) => Date.parse(s.first_time)));
      const lastMs = Math.max(...spans.map((s) => Date.parse(s.last_time)));
      const bucketMs = commonBucketMsOf(firstMs, lastMs, MAX_BUCKETS);
      const parts = await Promise.all(paths.map((path) => call('histogram', { path, bucket_ms: bucketMs })));
      if (mine !== run) return;
      const sum = summedHistogramOf(parts, bucketMs);
      set({ computing: false, histogram: { paths, ...sum, lines: parts.reduce((n, p) => n + p.lines, 0) } });
    } catch (err) {
      if (mine === run) set({ computing: false, error: errorPayloadOf(err).message });
    }
  },
  async jumpToBucket(i) {
    const h = get().histogram;
    if (!h) return;
    const problem = await useMergeStore.getState().goToTime(new Date(h.originMs + i * h.bucketMs).toISOString());
    if (problem) set({ error: problem });
  },
}));
