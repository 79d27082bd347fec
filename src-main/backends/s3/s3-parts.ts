/**
 * How a replace of an S3 object is cut into the parts of a multipart upload, within
 * S3's rules (https://docs.aws.amazon.com/AmazonS3/latest/userguide/qfacts.html): pure
 * arithmetic, property-tested in test/backends/s3-parts.test.ts.
 */

export interface PartLimits {
  /** every part but the last is at least this (S3: 5 MiB) */
  minPartBytes: number;
  /** largest UploadPartCopy range (S3: 5 GiB); at least 2 × minPartBytes */
  maxCopyPartBytes: number;
  /** largest UploadPart; at least 2 × minPartBytes */
  maxUploadPartBytes: number;
}

/** Where the bytes of one part come from: a range of the current object, or the new content. */
export type UploadSource = { fetch: [number, number] } | { content: [number, number] };
/** One part of the composed object: copied on the server, or uploaded from these sources in order. */
export type S3Part = { copy: [number, number] } | { upload: UploadSource[] };

/**
 * The parts of the object that replaces [start, end) of a `size`-byte object with
 * `contentLength` new bytes, within S3's rules: every part but the last at least
 * `minPartBytes`, copies at most `maxCopyPartBytes`, uploads at most `maxUploadPartBytes`
 * (both ≥ 2 × the minimum). Untouched ranges are copied on the server when they can make
 * parts of their own; a prefix under the minimum travels in the first uploaded part, and
 * an uploaded part under the minimum that is not last borrows the head of the suffix, so
 * at most 2 × minPartBytes of untouched bytes are fetched, whatever the size.
 * `end` is clamped to the size by the caller.
 */
export function planS3Parts(start: number, end: number, size: number, contentLength: number, limits: PartLimits): S3Part[] {
  const min = limits.minPartBytes;
  const parts: S3Part[] = [];
  if (start >= min) for (const r of evenSplit(0, start, limits.maxCopyPartBytes)) parts.push({ copy: r });
  const upload: UploadSource[] = [];
  let uploaded = 0;
  if (start > 0 && start < min) {
    upload.push({ fetch: [0, start] });
    uploaded += start;
  }
  if (contentLength > 0) {
    upload.push({ content: [0, contentLength] });
    uploaded += contentLength;
  }
  let suffixFrom = end;
  if (suffixFrom < size && uploaded > 0 && uploaded < min) {
    // Not the last part, so it must reach the minimum: borrow the suffix's first bytes
    // (all of them when the suffix is no longer than the minimum).
    const borrow = size - suffixFrom <= min ? size - suffixFrom : min - uploaded;
    upload.push({ fetch: [suffixFrom, suffixFrom + borrow] });
    suffixFrom += borrow;
    uploaded += borrow;
  }
  // The uploaded bytes, cut evenly into parts; each part takes its slice of the sources.
  for (const [a, b] of evenSplit(0, uploaded, limits.maxUploadPartBytes)) parts.push({ upload: sliceSources(upload, a, b) });
  if (suffixFrom < size) for (const r of evenSplit(suffixFrom, size, limits.maxCopyPartBytes)) parts.push({ copy: r });
  return parts;
}

/** Bytes [a, b) of the concatenation of `sources`, as sources. */
function sliceSources(sources: UploadSource[], a: number, b: number): UploadSource[] {
  const out: UploadSource[] = [];
  let at = 0;
  for (const s of sources) {
    const [from, to] = 'fetch' in s ? s.fetch : s.content;
    const len = to - from;
    const lo = Math.max(a, at);
    const hi = Math.min(b, at + len);
    if (lo < hi) {
      const r: [number, number] = [from + lo - at, from + hi - at];
      out.push('fetch' in s ? { fetch: r } : { content: r });
    }
    at += len;
  }
  return out;
}

/** [from, to) cut into the fewest equal pieces of at most `max` bytes (max ≥ 2 × the part minimum, so each is ≥ it when the whole is). */
export function evenSplit(from: number, to: number, max: number): Array<[number, number]> {
  const len = to - from;
  if (len <= 0) return [];
  // n pieces of floor(len/n) or one more byte: none shorter than len/n - 1
  const n = Math.ceil(len / max);
  const base = Math.floor(len / n);
  const extra = len % n;
  const out: Array<[number, number]> = [];
  for (let i = 0, at = from; i < n; i++) {
    const next = at + base + (i < extra ? 1 : 0);
    out.push([at, next]);
    at = next;
  }
  return out;
}
