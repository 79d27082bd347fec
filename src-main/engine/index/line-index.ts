/**
 * LineIndex: line -> byte offset and byte offset -> line over a file of any size,
 * in O(log blocks) plus one 64 KiB block scan, from a sparse table of newline
 * counts per block (block-table.ts). It also knows the file's totals: bytes,
 * newlines, UTF-8 validity (first invalid offset), newline style, BOM, final newline.
 *
 * An index may be partial while its build runs (index-builder.ts): it covers a
 * contiguous prefix [0, indexedBytes) and serves a query past that prefix by
 * scanning forward in this thread (on-demand), so the first window of a huge file
 * comes back long before the build ends. extend() indexes only appended bytes.
 *
 * Newlines are counted in the file's text layout (text-layout.ts): '\n' bytes, or
 * LF code units of a UTF-16 file (2 bytes at even offsets). Offsets stay file byte
 * offsets either way; a newline's offset is that of its unit's first byte.
 */
import { closeFd, readAt } from './byte-source.ts';
import { BlockTable, blockCount } from './block-table.ts';
import { FolioError } from '../errors.ts';
import { edgeHashes, EDGE_BYTES, openForRead, statRegularFile, type FileIdentity } from './identity.ts';
import { BLOCK_SIZE, CHUNK_SIZE, textKernels, type TextKernels, type Utf8Counts } from '../kernels/kernels.mjs';
import { scanRange } from './index-worker.mjs';
import { localKernels } from '../kernels/local-kernels.ts';
import { bomLengthOf, layoutOf, LAYOUT_SAMPLE_BYTES, type TextLayout } from './layout.ts';

/** How lines end: by '\n', '\r\n', '\r' alone (whichever dominates), an even mix of LF and CRLF, or no line break at all. */
export type NewlineStyle = 'none' | 'lf' | 'crlf' | 'cr' | 'mixed';

export interface NewlineCounts {
  /** '\n' not preceded by '\r' */
  lf: number;
  /** '\r\n' pairs */
  crlf: number;
  /** '\r' not followed by '\n' */
  cr: number;
}

export interface IndexFacts {
  /** CR units ('\r' bytes, or 0x000D units of UTF-16) */
  cr: number;
  /** CR LF pairs */
  crlf: number;
  /** offset of the first invalid UTF-8 byte (Rust valid_up_to semantics), or of the first ill-formed UTF-16 unit; null if valid */
  firstInvalid: number | null;
  /** bytes at the end of the indexed prefix that may be an incomplete UTF-8 sequence (0 when complete) */
  pendingUtf8: number;
  /**
   * UTF-8 evidence over the whole file, once indexed (null in UTF-16 layouts):
   * ill-formed sequences (each one U+FFFD when decoded, as WHATWG and Python
   * decoders do) and valid characters of 2-4 bytes. The encoding is decided from these.
   */
  utf8: Utf8Counts | null;
}

export interface IndexState {
  identity: FileIdentity;
  head: string;
  tail: string;
  table: BlockTable;
  indexedBytes: number;
  newlines: number;
  facts: IndexFacts;
  /** the last code unit (a byte, or a UTF-16 unit), -1 for an empty file */
  lastUnit: number;
  firstBytes: number[];
  layout: TextLayout;
}

export class LineIndex {
  identity: FileIdentity;
  /** Hashes of the first and last 64 KiB of the indexed bytes. */
  head: string;
  tail: string;
  private table: BlockTable;
  /** Bytes [0, indexedBytes) are counted; past that, queries scan on demand. */
  indexedBytes: number;
  /** '\n' count within the indexed bytes (what `wc -l` prints once complete). */
  newlines: number;
  facts: IndexFacts;
  private lastUnit: number;
  private firstBytes: number[];
  /** How newlines are laid out: bytes, or UTF-16 units in either byte order. */
  layout: TextLayout;
  /** How long the build took (ms) and whether it came from the persisted cache. */
  buildMs = 0;
  fromCache = false;

  constructor(s: IndexState) {
    this.identity = s.identity;
    this.head = s.head;
    this.tail = s.tail;
    this.table = s.table;
    this.indexedBytes = s.indexedBytes;
    this.newlines = s.newlines;
    this.facts = s.facts;
    this.lastUnit = s.lastUnit;
    this.firstBytes = s.firstBytes;
    this.layout = s.layout;
  }

  get path(): string {
    return this.identity.path;
  }
  get size(): number {
    return this.identity.size;
  }
  get complete(): boolean {
    return this.indexedBytes >= this.identity.size;
  }
  get blocks(): number {
    return blockCount(this.identity.size);
  }
  get memoryBytes(): number {
    return this.table.memoryBytes;
  }
  get finalNewline(): boolean {
    return this.lastUnit === 10;
  }
  /** Bytes per code unit: 2 for UTF-16, else 1. */
  get unit(): 1 | 2 {
    return this.layout === 'utf-8' ? 1 : 2;
  }
  /** Length of the byte-order mark (3 for UTF-8, 2 for UTF-16), 0 if none. */
  get bomLength(): number {
    return bomLengthOf(this.layout, this.firstBytes);
  }
  get bom(): boolean {
    return this.bomLength > 0;
  }
  private kernels(): TextKernels {
    return textKernels(localKernels(), this.layout);
  }
  /** Lines: newlines, plus one for a last line without a final newline. */
  get lineCount(): number {
    this.requireComplete('lineCount');
    return this.newlines + (this.size > 0 && !this.finalNewline ? 1 : 0);
  }
  /** Line endings by kind: '\n' alone, '\r\n', and '\r' not followed by '\n' (units in UTF-16). */
  get newlineCounts(): NewlineCounts {
    const { cr, crlf } = this.facts;
    return { lf: this.newlines - crlf, crlf, cr: cr - crlf };
  }
  /**
   * The dominant line ending, so that one stray '\r' (`two\r\r\n`) does not make
   * a CRLF file 'mixed': 'crlf' or 'lf', whichever ends more lines; 'cr' when lone
   * CRs outnumber both (or the file has no '\n'); 'mixed' only for a tie between
   * LF and CRLF; 'none' without any.
   */
  get newlineStyle(): NewlineStyle {
    const { lf, crlf, cr } = this.newlineCounts;
    if (this.newlines === 0) return cr > 0 ? 'cr' : 'none';
    if (cr > lf && cr > crlf) return 'cr';
    if (crlf > lf) return 'crlf';
    if (lf > crlf) return 'lf';
    return 'mixed';
  }

  /** Snapshot for the persisted cache. */
  state(): IndexState {
    this.table.trim();
    return {
      identity: this.identity,
      head: this.head,
      tail: this.tail,
      table: this.table,
      indexedBytes: this.indexedBytes,
      newlines: this.newlines,
      facts: this.facts,
      lastUnit: this.lastUnit,
      firstBytes: this.firstBytes,
      layout: this.layout,
    };
  }

  /** Replace this (partial) index's contents with a finished build of the same file. */
  adopt(other: LineIndex): void {
    this.identity = other.identity;
    this.head = other.head;
    this.tail = other.tail;
    this.table = other.table;
    this.indexedBytes = other.indexedBytes;
    this.newlines = other.newlines;
    this.facts = other.facts;
    this.lastUnit = other.lastUnit;
    this.firstBytes = other.firstBytes;
    this.layout = other.layout;
  }

  /**
   * Take block counts produced by a running build for blocks [knownBlocks, upToBlock),
   * so the live index grows with the build. counts[b] is block b's newline count.
   */
  absorbCounts(counts: Uint32Array, upToBlock: number): void {
    const limit = Math.min(upToBlock, this.blocks);
    if (this.indexedBytes % BLOCK_SIZE !== 0) return;
    let b = this.indexedBytes / BLOCK_SIZE;
    if (b >= limit) return;
    let lines = this.newlines;
    for (; b < limit; b++) {
      lines += counts[b]!;
      if (b + 1 < this.blocks) this.table.push(lines);
    }
    this.newlines = lines;
    this.indexedBytes = Math.min(limit * BLOCK_SIZE, this.identity.size);
  }

  /** Newlines before block b (b may be the block that starts exactly at indexedBytes). */
  private linesBeforeBlock(b: number): number {
    if (b < this.table.knownBlocks) return this.table.linesBefore(b);
    if (b * BLOCK_SIZE === this.indexedBytes) return this.newlines;
    throw this.changedUnder();
  }

  /**
   * The index and the file disagree (it changed under us, or an index was made of
   * bytes the file no longer has): a typed conflict, never an internal error, and
   * the index is dropped (onStale) so the next call builds a fresh one instead of
   * failing the same way until the cache is removed by hand.
   */
  private changedUnder(): FolioError {
    LineIndex.onStale?.(this);
    return new FolioError('conflict', `file changed while reading its index: ${this.path}`, { path: this.path });
  }

  /** Told of an index found to disagree with its file (store.ts drops it, in memory and on disk). */
  static onStale: ((index: LineIndex) => void) | null = null;

  private requireComplete(what: string): void {
    if (!this.complete) {
      throw new FolioError('invalid_input', `${what} is not known until indexing ends`, {
        indexedBytes: this.indexedBytes,
        size: this.size,
      });
    }
  }

  /**
   * Count bytes [indexedBytes, target) in this thread (whole blocks, so the prefix
   * stays block-aligned), appending to the table. Used for on-demand queries while a
   * build runs. Facts (UTF-8, CR counts) are left to the build.
   */
  private scanForward(targetBytes: number, untilNewlines = Infinity): void {
    const end = Math.min(this.identity.size, Math.ceil(targetBytes / BLOCK_SIZE) * BLOCK_SIZE);
    if (end <= this.indexedBytes || this.indexedBytes % BLOCK_SIZE !== 0) return;
    const k = this.kernels();
    const fd = openForRead(this.path);
    try {
      let pos = this.indexedBytes;
      const counts = new Uint32Array(CHUNK_SIZE / BLOCK_SIZE);
      while (pos < end && this.newlines < untilNewlines) {
        const want = Math.min(CHUNK_SIZE, end - pos);
        const got = readAt(fd, k.input, 0, want, pos);
        if (got <= 0) break;
        counts.fill(0);
        k.scanLines(got, counts, 0, false);
        const firstBlock = pos / BLOCK_SIZE;
        for (let i = 0; i * BLOCK_SIZE < got; i++) {
          this.newlines += counts[i]!;
          if (firstBlock + i + 1 < this.blocks) this.table.push(this.newlines);
        }
        pos += got;
      }
      this.indexedBytes = pos;
    } finally {
      closeFd(fd);
    }
  }

  /** Make sure the n-th newline (1-based) is indexed, if the file has one. */
  private ensureNewlines(n: number): void {
    if (n > this.newlines && !this.complete) this.scanForward(this.identity.size, n);
  }

  /** Make sure bytes up to `offset` are indexed. */
  private ensureBytes(offset: number): void {
    if (offset > this.indexedBytes && !this.complete) this.scanForward(offset);
  }

  /** Read block b (within the indexed prefix) into the kernels' input window; returns its length. */
  private loadBlock(k: TextKernels, fd: number, b: number, limit: number): number {
    const start = b * BLOCK_SIZE;
    const len = Math.min(BLOCK_SIZE, limit - start);
    let done = 0;
    while (done < len) {
      const n = readAt(fd, k.input, done, len - done, start + done);
      if (n <= 0) break;
      done += n;
    }
    return done;
  }

  /** Byte offset of the n-th newline (1-based; its unit's first byte), or -1 if the file has fewer. */
  nthNewlineOffset(n: number): number {
    if (n < 1) throw new RangeError(`newline number must be >= 1, got ${n}`);
    this.ensureNewlines(n);
    if (n > this.newlines) return -1;
    const b = this.table.blockOfNthNewline(n);
    const k = this.kernels();
    const fd = openForRead(this.path);
    try {
      const len = this.loadBlock(k, fd, b, this.indexedBytes);
      const at = k.findNthNewline(0, len, n - this.table.linesBefore(b));
      if (at < 0) throw this.changedUnder();
      return b * BLOCK_SIZE + at;
    } finally {
      closeFd(fd);
    }
  }

  /** Byte offset where line `lineIdx` (0-based) starts; -1 past the last line. */
  lineStart(lineIdx: number): number {
    if (lineIdx === 0) return this.size === 0 ? -1 : 0;
    const off = this.nthNewlineOffset(lineIdx);
    if (off < 0) return -1;
    // After the last newline there is a line only if bytes follow it.
    if (off + this.unit === this.size && this.complete) return -1;
    return off + this.unit;
  }

  /** Byte offset just past line `lineIdx`'s content, before its newline (and before a CR of CRLF not removed). */
  lineEnd(lineIdx: number): number {
    const off = this.nthNewlineOffset(lineIdx + 1);
    return off < 0 ? this.size : off;
  }

  /** 0-based index of the line holding byte `offset` (offset == size gives the last line). */
  lineAt(offset: number): number {
    if (offset < 0 || offset > this.size) {
      throw new FolioError('out_of_bounds', `byte offset ${offset} is outside the file (size ${this.size})`, {
        offset,
        size: this.size,
      });
    }
    this.ensureBytes(offset);
    const b = Math.min(Math.floor(offset / BLOCK_SIZE), this.table.knownBlocks - 1);
    const start = b * BLOCK_SIZE;
    if (offset === start) return this.linesBeforeBlock(b);
    const k = this.kernels();
    const fd = openForRead(this.path);
    try {
      const len = this.loadBlock(k, fd, b, Math.min(offset, this.indexedBytes));
      return this.table.linesBefore(b) + k.countNewlines(0, len);
    } finally {
      closeFd(fd);
    }
  }

  /**
   * Index bytes appended since this index was built (a growing log). Returns 'same'
   * when nothing changed, 'extended' when only new bytes were scanned, 'rebuild' when
   * the file shrank, was replaced, or its indexed part changed: the caller must
   * build a fresh index (a stale index is never used).
   */
  extend(now: FileIdentity = statRegularFile(this.path)): 'same' | 'extended' | 'rebuild' {
    this.requireComplete('extend()');
    const old = this.identity;
    if (now.dev !== old.dev || now.ino !== old.ino || now.size < old.size) return 'rebuild';
    if (now.size === old.size) {
      if (now.mtimeNs !== old.mtimeNs) return 'rebuild';
      // Same bytes, but the version (etag) takes the ctime too: a link, an unlink or a
      // chmod changes it, and the writers' preconditions stat the file afresh.
      this.identity = now;
      return 'same';
    }
    const edges = edgeHashes(this.path, old.size);
    if (edges.head !== this.head || edges.tail !== this.tail) return 'rebuild';
    // A head shorter than the layout sample may read differently once it grows.
    if (old.size < LAYOUT_SAMPLE_BYTES && layoutOfFile(this.path, now.size) !== this.layout) return 'rebuild';

    const k = this.kernels();
    const fd = openForRead(this.path);
    try {
      // UTF-8 validation goes on from where the old end left it: a sequence cut by
      // the old end (counted then as one ill-formed sequence) may be whole now.
      const utf8Start = this.layout === 'utf-8' ? old.size - pendingUtf8At(fd, old.size) : old.size;
      // Rescan from the start of that (partial) block so per-block counts stay whole.
      const b0 = Math.floor(utf8Start / BLOCK_SIZE);
      const from = b0 * BLOCK_SIZE;
      const overlap = this.styleOf(k, fd, from, old.size);
      const counts = new Uint32Array(blockCount(now.size) - b0);
      const r = scanRange({
        kernels: localKernels(),
        layout: this.layout,
        fd,
        read: readAt,
        start: from,
        end: now.size,
        isLast: true,
        ...(this.layout === 'utf-8' ? { utf8Start } : {}),
        counts,
        firstBlock: b0,
      });
      const base = this.linesBeforeBlock(b0);
      const newBlocks = blockCount(now.size);
      let lines = base;
      for (let b = b0; b + 1 < newBlocks; b++) {
        lines += counts[b - b0]!;
        if (b + 1 >= this.table.knownBlocks) this.table.push(lines);
      }
      this.newlines = base + r.newlines;
      const was = this.facts;
      const cutAtOldEnd = utf8Start < old.size ? 1 : 0;
      // Errors before where validation restarted stand (UTF-16 restarts at the block).
      const kept = this.layout === 'utf-8' ? utf8Start : from;
      this.facts = {
        cr: was.cr - overlap.cr + r.cr,
        crlf: was.crlf - overlap.crlf + r.crlf,
        firstInvalid: was.firstInvalid !== null && was.firstInvalid < kept ? was.firstInvalid : r.firstInvalid >= 0 ? r.firstInvalid : null,
        pendingUtf8: 0,
        utf8: was.utf8 && { invalid: was.utf8.invalid - cutAtOldEnd + r.invalid, multibyte: was.utf8.multibyte + r.multibyte },
      };
      this.lastUnit = lastUnitOf(fd, now.size, this.layout);
      if (old.size < 3) this.firstBytes = firstBytesOf(fd, now.size);
      this.identity = now;
      this.indexedBytes = now.size;
      const edgesNow = edgeHashes(this.path, now.size);
      this.tail = edgesNow.tail;
      if (old.size < EDGE_BYTES) this.head = edgesNow.head;
      return 'extended';
    } finally {
      closeFd(fd);
    }
  }

  private styleOf(k: TextKernels, fd: number, from: number, to: number): { cr: number; crlf: number } {
    if (to <= from) return { cr: 0, crlf: 0 };
    let prevIsCR = false;
    if (from >= k.unit) prevIsCR = readAt(fd, k.input, 0, k.unit, from - k.unit) === k.unit && k.unitAt(k.input, 0) === 13;
    const got = readAt(fd, k.input, 0, to - from, from);
    return k.countNewlineStyle(0, got, prevIsCR);
  }
}

/** Bytes of a valid but incomplete UTF-8 sequence ending the first `size` bytes of the file (0..3). */
function pendingUtf8At(fd: number, size: number): number {
  const k = localKernels();
  const n = Math.min(3, size);
  readAt(fd, k.input, 0, n, size - n);
  const s = k.utf8Stream();
  s.feed(n);
  return s.pending();
}

/** The last code unit of the file (`unit` bytes, in the layout's order for UTF-16; see textKernels), or -1. */
export function lastUnitOf(fd: number, size: number, layout: TextLayout): number {
  const unit = layout === 'utf-8' ? 1 : 2;
  if (size < unit || (unit === 2 && size % 2 === 1)) return -1;
  const b = Buffer.alloc(unit);
  if (readAt(fd, b, 0, unit, size - unit) !== unit) return -1;
  if (unit === 1) return b[0]!;
  return layout === 'utf-16be' ? (b[0]! << 8) | b[1]! : (b[1]! << 8) | b[0]!;
}

/** The layout of a file from its first LAYOUT_SAMPLE_BYTES bytes. */
export function layoutOfFile(path: string, size: number): TextLayout {
  const fd = openForRead(path);
  try {
    const head = Buffer.alloc(Math.min(size, LAYOUT_SAMPLE_BYTES));
    const n = readAt(fd, head, 0, head.length, 0);
    return layoutOf(head.subarray(0, n));
  } finally {
    closeFd(fd);
  }
}

export function firstBytesOf(fd: number, size: number): number[] {
  const b = Buffer.alloc(3);
  const n = readAt(fd, b, 0, Math.min(3, size), 0);
  return [...b.subarray(0, n)];
}
