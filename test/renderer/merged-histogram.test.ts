/**
 * The merged view's histogram (model/merged-histogram.ts): one nice width for the
 * span of all files, and per-file buckets summed at their offsets, checked against
 * counting the same stamps directly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commonBucketMsOf, summedHistogramOf, type LevelCounts } from '../../src-renderer/model/merged-histogram.ts';

const zero = (): LevelCounts => ({ error: 0, warn: 0, info: 0, debug: 0, other: 0 });

/** What the engine answers for one file's stamps (level per stamp) at width w. */
function fileHistogram(stamps: [number, keyof LevelCounts][], w: number) {
  const first = Math.min(...stamps.map((s) => s[0]));
  const last = Math.max(...stamps.map((s) => s[0]));
  const origin = Math.floor(first / w) * w;
  const buckets = Array.from({ length: Math.floor((last - origin) / w) + 1 }, zero);
  for (const [t, l] of stamps) buckets[Math.floor((t - origin) / w)]![l]++;
  return { origin_ms: origin, buckets };
}

describe('merged histogram', () => {
  it('picks a nice width that keeps the whole span within the buckets', () => {
    expect(commonBucketMsOf(0, 59_000, 120)).toBe(1_000);
    expect(commonBucketMsOf(0, 3_600_000, 120)).toBe(60_000);
    expect(commonBucketMsOf(0, 400 * 86_400_000, 120) % 86_400_000).toBe(0);
  });

  it('sums per-file buckets into the counts of all stamps bucketed at once', () => {
    const stamp = fc.tuple(fc.integer({ min: 1_700_000_000_000, max: 1_700_000_500_000 }), fc.constantFrom('error', 'warn', 'info', 'debug', 'other'));
    fc.assert(
      fc.property(fc.array(fc.array(stamp, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 4 }), (files) => {
        const all = files.flat() as [number, keyof LevelCounts][];
        const w = commonBucketMsOf(Math.min(...all.map((s) => s[0])), Math.max(...all.map((s) => s[0])), 120);
        const sum = summedHistogramOf(
          files.map((f) => fileHistogram(f as [number, keyof LevelCounts][], w)),
          w,
        );
        expect(sum.buckets.length).toBeLessThanOrEqual(120);
        const direct = fileHistogram(all, w);
        expect(sum.originMs).toBe(direct.origin_ms);
        expect(sum.buckets).toEqual(direct.buckets);
      }),
    );
  });
});
