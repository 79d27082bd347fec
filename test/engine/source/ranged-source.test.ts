/**
 * The remote ByteSource (source/ranged-source.ts) against the bytes it reads:
 * exact ranges, one forward pass in window-sized ranged reads, a cache that never
 * passes its cap, fetches shared instead of repeated, failures reported.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RangedSource } from '../../../src-main/engine/source/ranged-source.ts';
import { BytesMissing } from '../../../src-main/engine/index/byte-source.ts';

function sourceOver(bytes: Uint8Array, o: { maxCachedBytes?: number; maxReadAheadBytes?: number } = {}) {
  const reads: [number, number][] = [];
  let fail = 0;
  const src = new RangedSource({
    label: 'mem://x',
    size: bytes.length,
    version: 'v1',
    fetch: async (s, e) => {
      await new Promise((r) => setImmediate(r));
      if (fail > 0) {
        fail--;
        throw new Error('injected');
      }
      reads.push([s, e]);
      return bytes.slice(s, e);
    },
    ...o,
  });
  return { src, reads, failNext: (n: number) => (fail = n) };
}

const MiB = 1024 * 1024;

describe('RangedSource', () => {
  it('a forward pass over a value 10x its cache reads every byte once, in window-sized reads, and holds at most the cap', async () => {
    const bytes = randomBytes(10 * MiB);
    const { src, reads } = sourceOver(bytes, { maxCachedBytes: MiB, maxReadAheadBytes: 256 * 1024 });
    let held = 0;
    for (let p = 0; p < bytes.length; p += 100_000) {
      const got = await src.readAt(p, 100_000);
      expect(Buffer.from(got).equals(bytes.subarray(p, p + 100_000))).toBe(true);
      held = Math.max(held, src.heldBlocks);
    }
    const fetched = reads.reduce((n, [s, e]) => n + e - s, 0);
    expect(fetched).toBeLessThanOrEqual(1.1 * bytes.length);
    expect(reads.length).toBeLessThanOrEqual(Math.ceil(bytes.length / (128 * 1024)) + 2);
    expect(held * 64 * 1024).toBeLessThanOrEqual(MiB);
  });

  it('random reads equal the bytes; concurrent reads of one range share one fetch', async () => {
    const bytes = randomBytes(3 * MiB + 12345);
    const { src, reads } = sourceOver(bytes, { maxCachedBytes: 512 * 1024 });
    let x = 7;
    for (let i = 0; i < 200; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      const p = x % bytes.length;
      const len = (x >> 8) % 300_000;
      expect(Buffer.from(await src.readAt(p, len)).equals(bytes.subarray(p, p + len))).toBe(true);
    }
    expect(await src.readAt(bytes.length, 10)).toHaveLength(0);
    const before = reads.length;
    const [a, b] = await Promise.all([src.readAt(2 * MiB + 5, 1000), src.readAt(2 * MiB + 5, 1000)]);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect(reads.length - before).toBeLessThanOrEqual(1);
  });

  it('the synchronous view answers held bytes and names the missing ones', async () => {
    const bytes = randomBytes(MiB);
    const { src } = sourceOver(bytes);
    const buf = new Uint8Array(10);
    expect(() => src.readInto(buf, 0, 10, 300_000)).toThrow(BytesMissing);
    await src.fetch(300_000, 300_010);
    expect(src.readInto(buf, 0, 10, 300_000)).toBe(10);
    expect(Buffer.from(buf).equals(bytes.subarray(300_000, 300_010))).toBe(true);
  });

  it('a failed ranged read fails the read that needed it, and the next read fetches again', async () => {
    const bytes = randomBytes(2 * MiB);
    const { src, failNext } = sourceOver(bytes);
    failNext(1);
    await expect(src.readAt(0, 1000)).rejects.toThrow('injected');
    expect(Buffer.from(await src.readAt(0, 1000)).equals(bytes.subarray(0, 1000))).toBe(true);
  });
});
