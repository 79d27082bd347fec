/**
 * Line counts per level (error, warn, info, debug, other) per time bucket, over
 * a whole file or a byte range of it, never loading the file: one worker per core
 * over line-aligned pieces (histogram-worker.mjs: levels read on every line,
 * timestamps parsed only where a 64 KiB segment straddles a bucket boundary).
 *
 * The buckets depend on the file alone, never on the range: their width is the
 * smallest "nice" width (1 s … 1 d, then whole days) that covers the span from
 * the first stamp to the last in at most max_buckets, their origin the first
 * stamp rounded down to it. So the counts of several ranges add up to the whole
 * file's, which is how the app shows progress (one call per slice).
 */
import { closeSync } from 'node:fs';
import { FolioError, fromFsError } from '../errors.ts';
import { openForRead } from '../index/identity.ts';
import { defaultThreads } from '../index/builder.ts';
import { foregroundScans, poolRegistry } from '../index/worker-pool.ts';
import type { LineIndex } from '../index/line-index.ts';
import { firstStampFrom, lastStampBefore, timeSchemeOf, type TimeScheme } from './time-probe.ts';
import { histogramPiece, type HistogramJob, type HistogramPart } from './histogram-worker.mjs';
import type { TimeFormat } from './timestamps.mjs';

export const LEVELS = ['error', 'warn', 'info', 'debug', 'other'] as const;
export type LevelCounts = Record<(typeof LEVELS)[number], number>;

export interface HistogramOptions {
  /** Count lines starting in [startByte, endByte) (snapped to line starts); default the whole file. */
  startByte?: number;
  endByte?: number;
  /** At most this many buckets (default 120, 1..10,000). */
  maxBuckets?: number;
  /** A bucket width of your own (ms), instead of the nice width for maxBuckets. */
  bucketMs?: number;
  /** Worker threads (default one per core); 0 counts in this thread. */
  threads?: number;
  /** Ranges smaller than this are counted in the calling thread (default 8 MiB). */
  smallRangeBytes?: number;
  encoding?: string;
  signal?: AbortSignal;
  onProgress?: (p: { bytesDone: number; totalBytes: number }) => void;
}

export interface HistogramResult {
  format: TimeFormat;
  firstMs: number;
  lastMs: number;
  originMs: number;
  bucketMs: number;
  /** bucket i covers [originMs + i·bucketMs, originMs + (i+1)·bucketMs) */
  buckets: LevelCounts[];
  /** Lines before the file's first stamp. */
  unstamped: LevelCounts;
  /** Lines stamped before the first stamp or after the last (the file is not in order). */
  outside: LevelCounts;
  lines: number;
  /** Where the order of stamps first breaks in the counted range (the counts are then line by line from there). */
  orderBreak: { lineNo: number; byte: number; timeBeforeMs: number; timeMs: number } | null;
  scanned: { startByte: number; endByte: number };
  /** Bytes whose lines were parsed one by one (segments straddling a bucket boundary). */
  parsedBytes: number;
  elapsedMs: number;
}

const NICE_MS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400].map((s) => s * 1000);
const SMALL_RANGE_BYTES = 8 * 1024 * 1024;
const DAY_MS = 86_400_000;

/** The smallest nice width covering `spanMs` in at most `maxBuckets` buckets. */
export function niceBucketMs(spanMs: number, maxBuckets: number): number {
  for (const w of NICE_MS) if (Math.floor(spanMs / w) + 1 <= maxBuckets) return w;
  return Math.ceil((spanMs + 1) / maxBuckets / DAY_MS) * DAY_MS;
}

function invalid(message: string, details: Record<string, unknown>): FolioError {
  return new FolioError('invalid_input', message, details);
}

const zero = (): LevelCounts => ({ error: 0, warn: 0, info: 0, debug: 0, other: 0 });
const countsOf = (a: ArrayLike<number>, at = 0): LevelCounts => ({ error: a[at]!, warn: a[at + 1]!, info: a[at + 2]!, debug: a[at + 3]!, other: a[at + 4]! });

/** The first and last stamps of the file, and its scheme. */
export function fileTimeSpan(
  index: LineIndex,
  encoding: string,
  carryFor: number[] = [],
): { scheme: TimeScheme; first: number; last: number; carries: number[] } {
  let fd: number;
  try {
    fd = openForRead(index.path);
  } catch (err) {
    throw fromFsError(err, index.path);
  }
  try {
    const scheme = timeSchemeOf(fd, index.path, index.size, encoding);
    const first = firstStampFrom(fd, index, 0, scheme);
    const last = lastStampBefore(fd, index, index.lineCount, scheme);
    if (!first || !last) throw new FolioError('no_timestamps', `no stamped lines found in ${index.path}`, { path: index.path });
    // The stamp the first lines of each piece inherit (read here, with the index: a worker has none).
    const carries = carryFor.map((b) => (b === 0 ? NaN : (lastStampBefore(fd, index, index.lineAt(b), scheme)?.timeMs ?? NaN)));
    return { scheme, first: first.timeMs, last: Math.max(last.timeMs, first.timeMs), carries };
  } finally {
    closeSync(fd);
  }
}

/** Split [start, end) into `pieces` ranges at line starts. */
function splitAtLines(index: LineIndex, start: number, end: number, pieces: number): number[] {
  const bounds = [start];
  for (let i = 1; i < pieces; i++) {
    const at = index.lineStart(index.lineAt(start + Math.floor(((end - start) * i) / pieces)));
    if (at > bounds[bounds.length - 1]! && at < end) bounds.push(at);
  }
  bounds.push(end);
  return bounds;
}

function rangeOf(index: LineIndex, startByte: number, endByte: number): { start: number; end: number } {
  for (const [field, v] of [
    ['start_byte', startByte],
    ['end_byte', endByte],
  ] as const) {
    if (!Number.isInteger(v) || v < 0) throw invalid(`${field} must be a non-negative integer, got ${v}`, { field, value: v });
    if (v > index.size)
      throw new FolioError('out_of_bounds', `${field} ${v} is past the end of the file (size ${index.size})`, { field, value: v, size: index.size });
  }
  if (startByte > endByte)
    throw new FolioError('invalid_range', `start_byte ${startByte} is after end_byte ${endByte}`, { start_byte: startByte, end_byte: endByte });
  // Lines are counted where they start: a range boundary inside a line moves to that line's end.
  const snap = (b: number) => (b === 0 || b === index.size ? b : index.lineStart(index.lineAt(b - 1) + 1));
  const start = snap(startByte);
  const end = snap(endByte);
  return { start: start < 0 ? index.size : start, end: end < 0 ? index.size : end };
}

const pools = poolRegistry<HistogramJob, HistogramPart>(
  new URL('./histogram-worker.mjs', import.meta.url),
  () => ({ folioHistogramWorker: true }),
  'histogram',
  { foreground: true },
);

/** The histogram pool of `size` workers (search/warm-workers.ts warms the default one). */
export const histogramPool = (size: number) => pools.get(size);

/** Stop the histogram workers (tests, shutdown). */
export async function closeHistogramPools(): Promise<void> {
  await pools.closeAll();
}

/**
 * Warm-up jobs for the histogram pool (warm-workers.ts): `ranges` of the file counted
 * as histogramFile would, with the whole file's buckets, stopping when a real scan
 * starts. Throws no_timestamps when the file has none.
 */
export function warmHistogramJobs(index: LineIndex, fd: number, ranges: { start: number; end: number }[]): HistogramJob[] {
  const scheme = timeSchemeOf(fd, index.path, index.size, index.layout);
  const first = firstStampFrom(fd, index, 0, scheme);
  const last = lastStampBefore(fd, index, index.lineCount, scheme);
  if (!first || !last) return [];
  const bucketMs = niceBucketMs(Math.max(0, last.timeMs - first.timeMs), 120);
  const originMs = Math.floor(first.timeMs / bucketMs) * bucketMs;
  const buckets = Math.floor((Math.max(last.timeMs, first.timeMs) - originMs) / bucketMs) + 1;
  if (buckets > 10_000) return [];
  // Shaped as histogramFile's jobs (progress, piece, a carried stamp), or the compiled code deopts on the first real one.
  const progress = new SharedArrayBuffer(4 * Math.max(1, ranges.length));
  return ranges.map(({ start, end }, piece) => ({
    path: index.path,
    start,
    end,
    format: scheme.format,
    year: scheme.year,
    originMs,
    bucketMs,
    buckets,
    carryMs: start === 0 ? NaN : first.timeMs,
    piece,
    progress,
    // Cancelled while a real scan runs (non-zero count of running foreground jobs): a warm-up gives way.
    control: foregroundScans.buffer as SharedArrayBuffer,
  }));
}

export async function histogramFile(index: LineIndex, opts: HistogramOptions = {}): Promise<HistogramResult> {
  const started = performance.now();
  if (!index.complete) throw invalid('the line index must be complete before counting', { path: index.path });
  const maxBuckets = opts.maxBuckets ?? 120;
  if (!Number.isInteger(maxBuckets) || maxBuckets < 1 || maxBuckets > 10_000) {
    throw invalid(`max_buckets must be an integer in 1..10000, got ${maxBuckets}`, { field: 'max_buckets', value: maxBuckets });
  }
  const { start, end } = rangeOf(index, opts.startByte ?? 0, opts.endByte ?? index.size);
  const threads = opts.threads ?? defaultThreads();
  const total = end - start;
  const small = threads === 0 || total < (opts.smallRangeBytes ?? SMALL_RANGE_BYTES);
  const bounds = small ? [start, end] : splitAtLines(index, start, end, threads);
  const { scheme, first, last, carries } = fileTimeSpan(index, opts.encoding ?? index.layout, bounds.slice(0, -1));
  const bucketMs = opts.bucketMs ?? niceBucketMs(last - first, maxBuckets);
  if (!Number.isInteger(bucketMs) || bucketMs < 1)
    throw invalid(`bucket_ms must be a positive integer, got ${bucketMs}`, { field: 'bucket_ms', value: bucketMs });
  const originMs = Math.floor(first / bucketMs) * bucketMs;
  const buckets = Math.floor((last - originMs) / bucketMs) + 1;
  if (buckets > 10_000) {
    throw invalid(`bucket_ms ${bucketMs} makes ${buckets} buckets over the file's span; at most 10000`, { field: 'bucket_ms', value: bucketMs, buckets });
  }
  const pieces = bounds.length - 1;
  const control = new Int32Array(new SharedArrayBuffer(4));
  const progress = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, pieces)));
  const jobs: HistogramJob[] = Array.from({ length: pieces }, (_, i) => ({
    path: index.path,
    start: bounds[i]!,
    end: bounds[i + 1]!,
    format: scheme.format,
    year: scheme.year,
    originMs,
    bucketMs,
    buckets,
    carryMs: carries[i] ?? NaN,
    piece: i,
    progress: progress.buffer as SharedArrayBuffer,
    control: control.buffer as SharedArrayBuffer,
  }));
  if (opts.signal?.aborted) throw cancelled(index.path);
  let parts: HistogramPart[];
  if (small) {
    parts = jobs.filter((j) => j.end > j.start).map((j) => histogramPiece(j));
  } else {
    const pool = pools.get(Math.max(1, threads));
    const onAbort = () => Atomics.store(control, 0, 1);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = opts.onProgress
      ? setInterval(() => {
          let done = 0;
          for (let i = 0; i < pieces; i++) done += Math.min(Atomics.load(progress, i) * 1024, bounds[i + 1]! - bounds[i]!);
          opts.onProgress!({ bytesDone: done, totalBytes: total });
        }, 50)
      : undefined;
    try {
      parts = await Promise.all(jobs.map((j) => pool.run(j).done));
    } catch (err) {
      throw fromFsError(err, index.path);
    } finally {
      clearInterval(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }
  if (opts.signal?.aborted || parts.some((p) => p.cancelled)) throw cancelled(index.path);
  opts.onProgress?.({ bytesDone: total, totalBytes: total });

  const sum = new Float64Array(buckets * 5);
  const unstamped = new Float64Array(5);
  const outside = new Float64Array(5);
  let lines = 0;
  let parsedBytes = 0;
  let orderBreak: HistogramResult['orderBreak'] = null;
  for (const p of parts) {
    for (let i = 0; i < sum.length; i++) sum[i]! += p.counts[i]!;
    for (let l = 0; l < 5; l++) {
      unstamped[l]! += p.unstampedLevels[l]!;
      outside[l]! += p.outsideLevels[l]!;
    }
    lines += p.lines;
    parsedBytes += p.parsedBytes;
    if (!orderBreak && p.orderBreak) {
      const b = p.orderBreak;
      orderBreak = { lineNo: index.lineAt(b.byte) + 1, byte: b.byte, timeBeforeMs: b.timeBefore, timeMs: b.time };
    }
  }
  return {
    format: scheme.format,
    firstMs: first,
    lastMs: last,
    originMs,
    bucketMs,
    buckets: Array.from({ length: buckets }, (_, i) => countsOf(sum, i * 5)),
    unstamped: pieces ? countsOf(unstamped) : zero(),
    outside: countsOf(outside),
    lines,
    orderBreak,
    scanned: { startByte: start, endByte: end },
    parsedBytes,
    elapsedMs: performance.now() - started,
  };
}

function cancelled(path: string): FolioError {
  return new FolioError('cancelled', `histogram cancelled: ${path}`, { path });
}
