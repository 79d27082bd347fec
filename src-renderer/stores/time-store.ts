/**
 * Time in the open log: go to a time (time_seek), and the histogram of lines per
 * level over time for the whole file, counted in byte slices so the panel shows
 * progress (the engine's buckets depend on the file only, so slices add up).
 * A run belongs to one file version; opening another file or a new run drops it.
 */
import { create } from 'zustand';
import type { HistogramOutput } from '../../src-main/api/schemas/time.ts';
import type { z } from 'zod';
import { call } from '../transport.ts';
import { errorPayloadOf } from './call-error.ts';
import { useViewerStore } from './viewer-store.ts';

export type LevelCounts = z.infer<typeof HistogramOutput>['buckets'][number];
export const HISTOGRAM_LEVELS = ['error', 'warn', 'info', 'debug', 'other'] as const;

/** Most buckets the panel draws. */
export const HISTOGRAM_BUCKETS = 120;
/** Slices: at least this many bytes each, at most SLICES of them. */
const MIN_SLICE_BYTES = 32 * 1024 * 1024;
const SLICES = 8;
/**
 * Slices asked for at once. The engine counts each slice on every core and answers
 * when its slowest piece is done; with the next slice already queued the cores
 * never wait for an answer's round trip, the panel's update and the next request.
 */
const IN_FLIGHT = 2;

export interface HistogramView {
  path: string;
  originMs: number;
  bucketMs: number;
  firstTime: string;
  lastTime: string;
  buckets: LevelCounts[];
  lines: number;
  orderBreak: { line: number; time: string; timeBefore: string } | null;
}

export interface TimeState {
  open: boolean;
  /** Bytes counted so far of `totalBytes`. */
  doneBytes: number;
  totalBytes: number;
  computing: boolean;
  histogram: HistogramView | null;
  error: string | null;
  /** What the last jump from the histogram said, when it could not jump. */
  jumpProblem: string | null;
  toggle(): void;
  hide(): void;
  /** Count the open file (again). */
  compute(): Promise<void>;
  /** Show the first line at or after bucket `i`'s start. */
  jumpToBucket(i: number): Promise<void>;
}

let run = 0;

/** Show the first line at or after `time` (typed text or epoch ms) in the open file; the reason when it cannot, else null. */
export async function goToTime(time: string | number): Promise<string | null> {
  const viewer = useViewerStore.getState();
  if (!viewer.path) return 'no file is open';
  try {
    const r = await call('time_seek', { path: viewer.path, time });
    await useViewerStore.getState().goToLine(r.line, { at: 'top', select: true });
    return null;
  } catch (err) {
    return errorPayloadOf(err).message;
  }
}

export const useTimeStore = create<TimeState>()((set, get) => ({
  open: false,
  doneBytes: 0,
  totalBytes: 0,
  computing: false,
  histogram: null,
  error: null,
  jumpProblem: null,
  toggle() {
    if (get().open) return get().hide();
    set({ open: true });
    const path = useViewerStore.getState().path;
    if (path && get().histogram?.path !== path) void get().compute();
  },
  hide() {
    run++;
    set({ open: false, computing: false });
  },
  async compute() {
    const { path, info } = useViewerStore.getState();
    if (!path || !info) return;
    const mine = ++run;
    const size = info.size;
    const slice = Math.max(MIN_SLICE_BYTES, Math.ceil(size / SLICES));
    set({ computing: true, doneBytes: 0, totalBytes: size, histogram: null, error: null, jumpProblem: null });
    const starts: number[] = [];
    for (let start = 0; start < size || starts.length === 0; start += slice) starts.push(start);
    let view: HistogramView | null = null;
    // Answers are taken in order, so the bars fill in from the file's start and doneBytes is a frontier.
    const asked: Promise<z.infer<typeof HistogramOutput>>[] = [];
    const ask = () => {
      const start = starts[asked.length];
      if (start === undefined || mine !== run) return;
      const answer = call('histogram', { path, max_buckets: HISTOGRAM_BUCKETS, start_byte: start, end_byte: Math.min(size, start + slice) });
      answer.catch(() => undefined); // a later slice's failure is seen when its turn comes, or not at all after an earlier one
      asked.push(answer);
    };
    try {
      for (let i = 0; i < IN_FLIGHT; i++) ask();
      for (let i = 0; i < asked.length; i++) {
        const r = await asked[i]!;
        if (mine !== run) return;
        ask();
        view = view ? addSlice(view, r) : viewOf(path, r);
        set({ histogram: view, doneBytes: r.scanned.end_byte });
      }
      set({ computing: false, doneBytes: size });
    } catch (err) {
      if (mine === run) set({ computing: false, error: errorPayloadOf(err).message });
    }
  },
  async jumpToBucket(i) {
    const h = get().histogram;
    if (!h) return;
    set({ jumpProblem: await goToTime(h.originMs + i * h.bucketMs) });
  },
}));

function viewOf(path: string, r: z.infer<typeof HistogramOutput>): HistogramView {
  return {
    path,
    originMs: r.origin_ms,
    bucketMs: r.bucket_ms,
    firstTime: r.first_time,
    lastTime: r.last_time,
    buckets: r.buckets,
    lines: r.lines,
    orderBreak: r.order_break ? { line: r.order_break.line, time: r.order_break.time, timeBefore: r.order_break.time_before } : null,
  };
}

function addSlice(view: HistogramView, r: z.infer<typeof HistogramOutput>): HistogramView {
  const buckets = view.buckets.map((b, i) => {
    const o = r.buckets[i];
    return o ? { error: b.error + o.error, warn: b.warn + o.warn, info: b.info + o.info, debug: b.debug + o.debug, other: b.other + o.other } : b;
  });
  const orderBreak = view.orderBreak ?? (r.order_break ? { line: r.order_break.line, time: r.order_break.time, timeBefore: r.order_break.time_before } : null);
  return { ...view, buckets, lines: view.lines + r.lines, orderBreak };
}
