/**
 * The histogram of a merged view (issue 31): each file's `histogram` asked with
 * one bucket width, so every file's buckets start on multiples of it (the engine
 * puts a file's origin at floor(first stamp / width) · width) and add up bucket by
 * bucket over the span of all the files.
 */

/** The engine's nice widths (engine/search/histogram.ts NICE_MS), in ms. */
const NICE_MS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400].map((s) => s * 1000);
const DAY_MS = 86_400_000;

/** The smallest nice width covering [firstMs, lastMs] in at most `maxBuckets` buckets (as the engine picks one for a file). */
export function commonBucketMsOf(firstMs: number, lastMs: number, maxBuckets: number): number {
  const span = Math.max(0, lastMs - firstMs);
  for (const w of NICE_MS) if (Math.floor(span / w) + 2 <= maxBuckets) return w;
  return Math.ceil((span + 1) / (maxBuckets - 1) / DAY_MS) * DAY_MS;
}

export interface LevelCounts {
  error: number;
  warn: number;
  info: number;
  debug: number;
  other: number;
}

const LEVELS = ['error', 'warn', 'info', 'debug', 'other'] as const;

/** Each file's buckets (same width, origins on its multiples) summed over their common span; `unstamped` and `outside` go to no bar. */
export function summedHistogramOf(parts: readonly { origin_ms: number; buckets: readonly LevelCounts[] }[], bucketMs: number) {
  const used = parts.filter((p) => p.buckets.length > 0);
  if (used.length === 0) return { originMs: 0, bucketMs, buckets: [] as LevelCounts[] };
  const originMs = Math.min(...used.map((p) => p.origin_ms));
  const end = Math.max(...used.map((p) => p.origin_ms + p.buckets.length * bucketMs));
  const buckets: LevelCounts[] = Array.from({ length: Math.round((end - originMs) / bucketMs) }, () => ({ error: 0, warn: 0, info: 0, debug: 0, other: 0 }));
  for (const p of used) {
    const offset = Math.round((p.origin_ms - originMs) / bucketMs);
    p.buckets.forEach((b, i) => {
      for (const l of LEVELS) buckets[offset + i]![l] += b[l];
    });
  }
  return { originMs, bucketMs, buckets };
}
