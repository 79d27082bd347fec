/**
 * A ByteSource over ranged reads of one version of a value (a backend's
 * `read(start, end, token)`): 64 KiB blocks in a bounded LRU cache, and read-ahead
 * for a forward pass. A read that follows the previous one (a step scanning on)
 * starts a ranged read of the next window in the background, growing from
 * MIN_READ_AHEAD to maxReadAheadBytes, so the transfer of chunk n+1 overlaps the
 * compute on chunk n and a whole-value pass costs about size / maxReadAheadBytes
 * ranged reads. Blocks being fetched are awaited, never fetched twice.
 *
 * Memory: the cache holds at most maxCachedBytes, and a read pins only the blocks
 * it returns: a pass over a value bigger than the cache completes in one pass (the
 * blocks behind it are dropped).
 *
 * The synchronous view (`readHeld`) is what windowed steps run over (mounted by
 * index/byte-source.ts): it answers from held blocks only, and throws BytesMissing
 * for the others (backend/remote.ts runOn fetches them, a bounded number of times).
 */
import { FolioError } from '../errors.ts';
import type { ByteSource } from './byte-source.ts';

export const SOURCE_BLOCK = 64 * 1024;
/** First read-ahead of a forward pass; it doubles on each read that follows on. */
const MIN_READ_AHEAD = 1024 * 1024;
const DEFAULT_READ_AHEAD = 8 * 1024 * 1024;
const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

/** A synchronous step asked for bytes [start, end) the source does not hold. */
export class BytesMissing extends Error {
  constructor(
    readonly start: number,
    readonly end: number,
  ) {
    super(`bytes ${start}-${end} are not fetched yet`);
  }
}

/** What windowed synchronous steps read through (index/byte-source.ts mounts one per call chain). */
export interface SyncByteSource {
  readonly size: number;
  /** Copy bytes [pos, pos + len) (clamped to size) into buf at off; returns how many. Throws BytesMissing for bytes not held. */
  readInto(buf: Uint8Array, off: number, len: number, pos: number): number;
}

export interface RangedSourceOptions {
  /** names the value in errors */
  label: string;
  size: number;
  version: string;
  /** bytes [start, end) of exactly this version (a backend's read(start, end, token)) */
  fetch(start: number, end: number): Promise<Uint8Array>;
  /** cache cap; default 64 MiB, at least 4 blocks */
  maxCachedBytes?: number;
  /** largest read-ahead of a forward pass; default 8 MiB, at most a quarter of the cache */
  maxReadAheadBytes?: number;
}

export class RangedSource implements ByteSource, SyncByteSource {
  readonly size: number;
  readonly version: string;
  /** ranged reads sent, and the bytes they carried (tests and the bench count them) */
  fetches = 0;
  bytesFetched = 0;
  private readonly blocks = new Map<number, Uint8Array>();
  /** blocks being fetched: the read that brings them, and its first block */
  private readonly inflight = new Map<number, { first: number; got: Promise<Uint8Array[]> }>();
  private readonly maxBlocks: number;
  private readonly maxAhead: number;
  /** where the last read ended (a read starting there follows on), and the read-ahead it earned */
  private lastEnd = -1;
  private ahead = 0;

  constructor(private readonly o: RangedSourceOptions) {
    this.size = o.size;
    this.version = o.version;
    this.maxBlocks = Math.max(4, Math.floor((o.maxCachedBytes ?? DEFAULT_CACHE_BYTES) / SOURCE_BLOCK));
    const aheadCap = Math.max(SOURCE_BLOCK, Math.floor(this.maxBlocks / 4) * SOURCE_BLOCK);
    this.maxAhead = Math.min(o.maxReadAheadBytes ?? DEFAULT_READ_AHEAD, aheadCap);
  }

  async readAt(offset: number, length: number): Promise<Uint8Array> {
    const end = Math.min(this.size, offset + Math.max(0, length));
    if (end <= offset) return new Uint8Array(0);
    const follows = offset === this.lastEnd;
    this.ahead = follows ? Math.min(this.maxAhead, Math.max(MIN_READ_AHEAD, this.ahead * 2)) : 0;
    this.lastEnd = end;
    const b0 = Math.floor(offset / SOURCE_BLOCK);
    const b1 = Math.ceil(end / SOURCE_BLOCK);
    // A miss of a forward pass fetches the read-ahead with it.
    const got = this.blocksOf(b0, b1, follows ? this.ahead : 0);
    if (follows) this.prefetch(end, this.ahead);
    const blocks = await got;
    const out = new Uint8Array(end - offset);
    let at = 0;
    for (let b = b0; b < b1; b++) {
      const block = blocks[b - b0]!;
      const from = Math.max(offset, b * SOURCE_BLOCK) - b * SOURCE_BLOCK;
      const to = Math.min(end, (b + 1) * SOURCE_BLOCK) - b * SOURCE_BLOCK;
      out.set(block.subarray(from, to), at);
      at += to - from;
    }
    return out;
  }

  /** Fetch the blocks covering [start, end) (at least `minBytes` from start) unless held or on their way. */
  async fetch(start: number, end: number, minBytes = 0): Promise<void> {
    const b0 = Math.floor(start / SOURCE_BLOCK);
    const b1 = Math.ceil(Math.min(this.size, end) / SOURCE_BLOCK);
    if (b1 > b0) await this.blocksOf(b0, b1, minBytes);
  }

  readInto(buf: Uint8Array, off: number, len: number, pos: number): number {
    const end = Math.min(this.size, pos + len);
    if (end <= pos) return 0;
    const b0 = Math.floor(pos / SOURCE_BLOCK);
    const b1 = Math.ceil(end / SOURCE_BLOCK);
    let missFrom = -1;
    let missTo = -1;
    for (let b = b0; b < b1; b++) {
      if (!this.blocks.has(b)) {
        if (missFrom < 0) missFrom = b;
        missTo = b + 1;
      }
    }
    if (missFrom >= 0) throw new BytesMissing(missFrom * SOURCE_BLOCK, Math.min(this.size, missTo * SOURCE_BLOCK));
    let at = off;
    for (let b = b0; b < b1; b++) {
      const block = this.touch(b)!;
      const from = Math.max(pos, b * SOURCE_BLOCK) - b * SOURCE_BLOCK;
      const to = Math.min(end, (b + 1) * SOURCE_BLOCK) - b * SOURCE_BLOCK;
      buf.set(block.subarray(from, to), at);
      at += to - from;
    }
    return at - off;
  }

  /** Blocks already held: the bytes of a write this process just made. */
  hasBlock(b: number): boolean {
    return this.blocks.has(b);
  }

  /** Blocks held now (tests: the cache stays within its cap). */
  get heldBlocks(): number {
    return this.blocks.size;
  }

  /** The cache's cap in bytes. */
  get maxCachedBytes(): number {
    return this.maxBlocks * SOURCE_BLOCK;
  }

  /** Held blocks: most recently used last (Map order is the eviction order). */
  private touch(b: number): Uint8Array | undefined {
    const block = this.blocks.get(b);
    if (block) {
      this.blocks.delete(b);
      this.blocks.set(b, block);
    }
    return block;
  }

  /**
   * Blocks [b0, b1), each from the cache, a fetch on its way, or one new ranged
   * read per run of missing blocks (stretched to `minBytes` over blocks nobody has).
   * The blocks are returned, so eviction meanwhile cannot take them from the caller.
   */
  private async blocksOf(b0: number, b1: number, minBytes: number): Promise<Uint8Array[]> {
    const parts: (Uint8Array | Promise<Uint8Array>)[] = [];
    for (let b = b0; b < b1;) {
      const held = this.touch(b);
      if (held) {
        parts.push(held);
        b++;
        continue;
      }
      const coming = this.inflight.get(b);
      if (coming) {
        const at = b;
        parts.push(coming.got.then((bs) => bs[at - coming.first]!));
        b++;
        continue;
      }
      let to = b + 1;
      while (to < b1 && !this.blocks.has(to) && !this.inflight.has(to)) to++;
      if (to === b1) to = this.stretch(b, to, minBytes);
      const first = b;
      const got = this.fetchBlocks(first, to);
      for (let x = first; x < Math.min(to, b1); x++) parts.push(got.then((bs) => bs[x - first]!));
      b = to;
    }
    return Promise.all(parts);
  }

  /** Start fetching [from, from + bytes) in the background (what a forward pass reads next). */
  private prefetch(from: number, bytes: number): void {
    let b = Math.floor(from / SOURCE_BLOCK);
    const last = Math.ceil(Math.min(this.size, from + bytes) / SOURCE_BLOCK);
    while (b < last && (this.blocks.has(b) || this.inflight.has(b))) b++;
    // Half a window still ahead: wait, so each ranged read carries a whole window, not one chunk.
    if (b >= last || b * SOURCE_BLOCK - from >= bytes / 2) return;
    // A failure here is the next read's to report (it fetches those bytes itself).
    this.fetchBlocks(b, this.stretch(b, b + 1, bytes)).catch(() => undefined);
  }

  /** Extend a run of missing blocks from `b` to cover `minBytes`, over blocks neither held nor on their way. */
  private stretch(b: number, to: number, minBytes: number): number {
    const want = Math.min(Math.ceil(this.size / SOURCE_BLOCK), b + Math.ceil(minBytes / SOURCE_BLOCK));
    while (to < want && !this.blocks.has(to) && !this.inflight.has(to)) to++;
    return to;
  }

  private fetchBlocks(b0: number, b1: number): Promise<Uint8Array[]> {
    const start = b0 * SOURCE_BLOCK;
    const end = Math.min(this.size, b1 * SOURCE_BLOCK);
    this.fetches++;
    const got = this.o.fetch(start, end).then((bytes) => {
      if (bytes.length !== end - start) {
        throw new FolioError('conflict', `${this.o.label}: asked for bytes ${start}-${end}, got ${bytes.length}`, { path: this.o.label });
      }
      this.bytesFetched += bytes.length;
      const blocks: Uint8Array[] = [];
      for (let p = start; p < end; p += SOURCE_BLOCK) blocks.push(bytes.slice(p - start, Math.min(end, p + SOURCE_BLOCK) - start));
      blocks.forEach((block, i) => this.blocks.set(b0 + i, block));
      while (this.blocks.size > this.maxBlocks) this.blocks.delete(this.blocks.keys().next().value!);
      return blocks;
    });
    const entry = { first: b0, got };
    for (let b = b0; b < b1; b++) this.inflight.set(b, entry);
    const settle = () => {
      for (let b = b0; b < b1; b++) if (this.inflight.get(b) === entry) this.inflight.delete(b);
    };
    got.then(settle, settle);
    return got;
  }
}
