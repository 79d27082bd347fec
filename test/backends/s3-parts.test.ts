/**
 * The S3 replace's part plan (planS3Parts), as properties over random sizes and edits:
 * the parts rebuild exactly the local splice, keep S3's part rules, and fetch a bounded
 * number of untouched bytes whatever the object's size.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planS3Parts, type S3Part } from '../../src-main/backends/s3/s3-parts.ts';

function realize(parts: S3Part[], original: Uint8Array, content: Uint8Array): Buffer {
  return Buffer.concat(
    parts.map((p) =>
      'copy' in p
        ? original.subarray(p.copy[0], p.copy[1])
        : Buffer.concat(p.upload.map((s) => ('fetch' in s ? original.subarray(s.fetch[0], s.fetch[1]) : content.subarray(s.content[0], s.content[1])))),
    ),
  );
}

const partSize = (p: S3Part): number =>
  'copy' in p ? p.copy[1] - p.copy[0] : p.upload.reduce((n, s) => n + ('fetch' in s ? s.fetch[1] - s.fetch[0] : s.content[1] - s.content[0]), 0);
const fetched = (parts: S3Part[]): number =>
  parts.reduce((n, p) => n + ('upload' in p ? p.upload.reduce((m, s) => m + ('fetch' in s ? s.fetch[1] - s.fetch[0] : 0), 0) : 0), 0);

const edit = fc
  .record({
    min: fc.integer({ min: 1, max: 40 }),
    copyFactor: fc.integer({ min: 2, max: 5 }),
    uploadFactor: fc.integer({ min: 2, max: 5 }),
    size: fc.integer({ min: 0, max: 600 }),
    a: fc.nat(),
    b: fc.nat(),
    contentLength: fc.integer({ min: 0, max: 300 }),
  })
  .map(({ min, copyFactor, uploadFactor, size, a, b, contentLength }) => {
    const x = size ? a % (size + 1) : 0;
    const y = size ? b % (size + 1) : 0;
    return {
      limits: { minPartBytes: min, maxCopyPartBytes: min * copyFactor, maxUploadPartBytes: min * uploadFactor },
      size,
      start: Math.min(x, y),
      end: Math.max(x, y),
      contentLength,
    };
  });

describe('planS3Parts', () => {
  it('rebuilds the splice byte for byte, within S3 part rules, fetching under 2 × the minimum', () => {
    fc.assert(
      fc.property(edit, ({ limits, size, start, end, contentLength }) => {
        const original = Uint8Array.from({ length: size }, (_, i) => (i * 31 + 7) & 255);
        const content = Uint8Array.from({ length: contentLength }, (_, i) => (i * 17 + 101) & 255);
        const parts = planS3Parts(start, end, size, contentLength, limits);
        const expected = Buffer.concat([original.subarray(0, start), content, original.subarray(end)]);
        expect(realize(parts, original, content).equals(expected)).toBe(true);
        parts.forEach((p, i) => {
          const n = partSize(p);
          expect(n).toBeGreaterThan(0);
          if (i < parts.length - 1) expect(n).toBeGreaterThanOrEqual(limits.minPartBytes);
          expect(n).toBeLessThanOrEqual('copy' in p ? limits.maxCopyPartBytes : limits.maxUploadPartBytes);
          if ('copy' in p) expect(p.copy[1]).toBeLessThanOrEqual(size);
        });
        expect(fetched(parts)).toBeLessThan(2 * limits.minPartBytes);
      }),
      { numRuns: 3000 },
    );
  });

  it('copies every untouched byte of a large object but a borrowed head under the minimum', () => {
    const MiB = 1024 * 1024;
    const limits = { minPartBytes: 5 * MiB, maxCopyPartBytes: 5 * 1024 * MiB, maxUploadPartBytes: 64 * MiB };
    const size = 4 * 1024 * MiB;
    const parts = planS3Parts(2 * 1024 * MiB, 2 * 1024 * MiB + 10, size, 100, limits);
    expect(parts.map((p) => Object.keys(p)[0])).toEqual(['copy', 'upload', 'copy']);
    expect(fetched(parts)).toBe(5 * MiB - 100);
  });
});
