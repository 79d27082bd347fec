/**
 * The sparse line index proper: for every 64 KiB block b >= 1 of a file, the number
 * of '\n' bytes in blocks [0, b) ("lines before b"). Block 0 always has 0 lines
 * before it, so it is not stored: the table costs 4 bytes per block after the first,
 * which keeps it at or under 64 KiB per GiB of file.
 *
 * Values are stored mod 2^32. A file would need more than 4 Gi newlines (so at
 * least 4 GiB of nothing but newlines) for a value to wrap; the rare blocks where
 * that happens are listed in `wraps` so the true value is still exact.
 */
import { BLOCK_SIZE } from '../kernels/kernels.mjs';

const TWO_32 = 2 ** 32;

export class BlockTable {
  /** linesBefore[b - 1] for block b >= 1, mod 2^32; only `length` entries are in use. */
  private cum: Uint32Array;
  private length = 0;
  /** Block indices b at which linesBefore(b) crossed another multiple of 2^32 (sorted). */
  private wraps: number[] = [];
  private lastTrue = 0;

  constructor(capacityBlocks = 0) {
    this.cum = new Uint32Array(Math.max(0, capacityBlocks - 1));
  }

  /** Number of blocks whose starting line count is known (block 0 always is). */
  get knownBlocks(): number {
    return this.length + 1;
  }

  /** Bytes held by the table: what "index memory" means. */
  get memoryBytes(): number {
    return this.cum.byteLength + this.wraps.length * 8;
  }

  /** Lines (newlines) before block b, for 0 <= b < knownBlocks. */
  linesBefore(b: number): number {
    if (b <= 0) return 0;
    const stored = this.cum[b - 1]!;
    if (this.wraps.length === 0) return stored;
    let wrapsUpTo = 0;
    for (const w of this.wraps) if (w <= b) wrapsUpTo++;
    return stored + wrapsUpTo * TWO_32;
  }

  /** Record linesBefore for the next block (block index = knownBlocks). Values must not decrease. */
  push(linesBeforeNext: number): void {
    const b = this.length + 1;
    if (this.length >= this.cum.length) {
      // Exact growth keeps the memory bound; growth only happens on extend(), which is rare.
      const grown = new Uint32Array(Math.max(this.length + 1, Math.ceil(this.cum.length * 1.25)));
      grown.set(this.cum);
      this.cum = grown;
    }
    if (Math.floor(linesBeforeNext / TWO_32) > Math.floor(this.lastTrue / TWO_32)) this.wraps.push(b);
    this.cum[this.length++] = linesBeforeNext % TWO_32;
    this.lastTrue = linesBeforeNext;
  }

  /** Drop capacity beyond what is used, so memoryBytes is exact. */
  trim(): void {
    if (this.cum.length !== this.length) this.cum = this.cum.slice(0, this.length);
  }

  /**
   * The block holding the n-th newline (1-based): the largest b with linesBefore(b) < n.
   * Requires 1 <= n and that the newline lies in a known block or the partial tail.
   */
  blockOfNthNewline(n: number): number {
    let lo = 0;
    let hi = this.knownBlocks - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.linesBefore(mid) < n) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Serialize for the persisted cache (stored values, wraps). */
  toBuffers(): { cum: Uint32Array; wraps: number[] } {
    return { cum: this.cum.subarray(0, this.length), wraps: [...this.wraps] };
  }

  static fromBuffers(cum: Uint32Array, wraps: number[]): BlockTable {
    const t = new BlockTable(0);
    t.cum = cum;
    t.length = cum.length;
    t.wraps = [...wraps];
    t.lastTrue = t.linesBefore(t.length);
    return t;
  }

  /** Build from per-block newline counts (counts[b] = newlines in block b). */
  static fromCounts(counts: Uint32Array, blocks: number): BlockTable {
    const t = new BlockTable(blocks);
    let total = 0;
    for (let b = 0; b + 1 < blocks; b++) {
      total += counts[b]!;
      t.push(total);
    }
    return t;
  }
}

export function blockCount(size: number): number {
  return Math.max(1, Math.ceil(size / BLOCK_SIZE));
}
