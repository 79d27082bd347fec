/**
 * Several logs as one view in time order: a lazy, stable k-way merge. Each file is
 * read forward a chunk at a time (merge-lines.ts), each line's stamp parsed in the
 * format detected for that file (time-probe.ts); a line without a stamp (a stack
 * trace) takes the time of the line above it, so it stays with that line; lines
 * before a file's first stamp come first (no time). Equal times go to the earlier
 * file in argument order, which is what `sort -m -s` does with one key per line.
 *
 * `from` starts each file at its first line stamped at or after it by the line
 * index's bisection (time-seek.ts: O(log n) small reads, once the index is built
 * or loaded from the cache); `to` ends each file after its last line stamped at
 * or before it. A cursor (merge-lines.ts) holds each file's next line, so the next
 * window reads on from there, never from the files' starts.
 *
 * `match` keeps only the lines a regex matches, as `grep` after the merge: the
 * lines skipped are read and passed like the others, so a window of N matching
 * lines ends at its Nth, and its cursor goes on right after it. The regex runs in
 * worker threads (line-filter.ts), never on the calling thread: for each file a
 * worker reads on ahead of the merge, a chunk of lines at a time, and answers
 * which of them match; the merge takes each line's answer as it hands the line
 * out (nextMatch), waiting without blocking when it has not come yet.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, readSync } from 'node:fs';
import { FolioError, fromFsError } from '../errors.ts';
import { openForRead } from '../index/identity.ts';
import type { LineIndex } from '../index/line-index.ts';
import { LineReader, decodeCursor, encodeCursor, type FilePosition, type MergePosition } from './merge-lines.ts';
import { timeSchemeOf, type TimeScheme } from './time-probe.ts';
import { targetTimeOf, timeSeek } from './time-seek.ts';
import { timeOfLine, type TimeFormat } from './timestamps.mjs';
import { filterChunk, lineFilterOf, type LineFilter } from './line-filter.ts';

export interface MergeOptions {
  /** where to start: a time as time_seek takes it (string, or epoch ms) */
  from?: string | number;
  /** where to end (inclusive) */
  to?: string | number;
  /** a token from a previous window: go on from there (`from` is then ignored) */
  cursor?: string;
  /** the complete line index of each file, needed with `from` (none is needed otherwise) */
  indexOf?: (path: string, fileIdx: number) => Promise<LineIndex>;
  /** each file's encoding as detected elsewhere (default: UTF-8, or UTF-16 when it starts with a BOM) */
  encodings?: readonly string[];
  /** only the lines this JavaScript regex matches (their text without the terminator, decoded as UTF-8), as `grep -E` after the merge */
  match?: string;
  /** the regex's flags, of `imsu` */
  matchFlags?: string;
  /** ms the regex may take over one chunk of a file's lines (default: the search budget, search-budget.ts) */
  matchBudgetMs?: number;
  /** stop waiting for the regex: `cancelled` */
  signal?: AbortSignal;
}

export interface MergeFile {
  path: string;
  size: number;
  /** null: an empty file */
  format: TimeFormat | null;
}

/** A line of the merged view. `buf[start, end)` is the line with its terminator; those bytes stay as they are (the object itself is reused by next()). */
export interface MergedLine {
  fileIdx: number;
  lineNo: number;
  /** the line's time, or the time of the stamped line above it; -Infinity before the file's first stamp */
  timeMs: number;
  buf: Buffer;
  start: number;
  /** end of the text, before LF or CRLF */
  contentEnd: number;
  /** end of the line with its terminator */
  end: number;
}

interface Source {
  fd: number;
  scheme: TimeScheme | null;
  reader: LineReader | null;
  /** time of the line at the head (read, not yet handed out) */
  headMs: number;
  /** whether the reader holds a line not yet handed out */
  hasHead: boolean;
  /** the time an unstamped next line takes: the last stamped line's */
  carryMs: number;
  /** carryMs before the head line was read (what a cursor at the head must carry) */
  carryBeforeHeadMs: number;
  /** where the file ended when it ran out of lines (its size then): lines written later go on from there; null while it has lines, or when `to` ended it */
  endPos: FilePosition | null;
}

const BOM_UTF16 = /^(fffe|feff)/;

/** Lines of a file's first chunk a `match` tests: a window of 200 lines of a dense match needs about this many. */
const FIRST_CHUNK_LINES = 256;
/** Lines of a chunk at most (they double from FIRST_CHUNK_LINES), and its bytes at most. */
const MAX_CHUNK_LINES = 16_384;
const MAX_CHUNK_BYTES = 4 << 20;

/** Which of a file's lines `match` matches, a chunk at a time from a worker, ahead of the merge. */
interface MatchQueue {
  /** the answers for the chunk being handed out (1: matches), and the next one's index */
  keep: Uint8Array;
  at: number;
  /** where the next chunk starts: its byte and line number */
  nextByte: number;
  nextLineNo: number;
  /** lines the next chunk asks for */
  chunkLines: number;
  /** the next chunk, asked for */
  pending: Promise<{ keep: Uint8Array; next: number }> | null;
}

/** A merge of `paths`, ready to hand out lines. Close it when done. */
export async function openMerge(paths: readonly string[], opts: MergeOptions = {}): Promise<Merge> {
  if (paths.length === 0) throw new FolioError('invalid_input', 'merge needs at least one file', { field: 'paths' });
  const filter = opts.match === undefined ? null : lineFilterOf(opts.match, opts.matchFlags ?? '', opts.matchBudgetMs);
  const sources: Source[] = [];
  const files: MergeFile[] = [];
  try {
    for (const [i, path] of paths.entries()) {
      let fd: number;
      try {
        fd = openForRead(path);
      } catch (err) {
        throw fromFsError(err, path);
      }
      const size = fstatSync(fd).size;
      const source: Source = { fd, scheme: null, reader: null, headMs: NaN, hasHead: false, carryMs: NaN, carryBeforeHeadMs: NaN, endPos: null };
      sources.push(source);
      if (size > 0) source.scheme = timeSchemeOf(fd, path, size, opts.encodings?.[i] ?? encodingGuess(fd));
      files.push({ path, size, format: source.scheme?.format ?? null });
    }
    const first = firstStampedFile(sources);
    const fromMs = opts.from === undefined || opts.cursor !== undefined ? undefined : timeInput(opts.from, 'from', sources[first]!, files[first]!);
    const toMs = opts.to === undefined ? Infinity : timeInput(opts.to, 'to', sources[first]!, files[first]!);
    const start: MergePosition = opts.cursor ? decodeCursor(opts.cursor, paths.length) : await Promise.all(files.map((f, i) => startOf(f, i, fromMs, opts)));
    start.forEach((pos, i) => {
      const f = files[i]!;
      if (!pos || f.size === 0) {
        sources[i]!.endPos = pos ?? null;
        return;
      }
      if (pos.byte > f.size) {
        throw new FolioError('conflict', `the cursor is past the end of ${f.path} (${pos.byte} > ${f.size} bytes): it changed since`, { path: f.path });
      }
      // The same size or more, but another file (rotated: made anew) or the same one rewritten (copytruncate).
      if (pos.mark !== undefined && pos.mark !== fingerprintOf(sources[i]!.fd, pos.byte)) {
        throw new FolioError('conflict', `${f.path} is not the file the cursor was in: it was replaced or rewritten since (rotated?)`, {
          path: f.path,
          reason: 'replaced',
        });
      }
      sources[i]!.reader = new LineReader(sources[i]!.fd, f.size, f.path, pos.byte, pos.lineNo);
      sources[i]!.carryMs = pos.carryMs;
    });
    return new Merge(files, sources, toMs, filter, opts.signal);
  } catch (err) {
    for (const s of sources) closeSync(s.fd);
    throw err;
  }
}

/** Bytes at a file's start a cursor's fingerprint covers (a stamped log's first stamp and more). */
const MARK_BYTES = 64;

/**
 * Which file a cursor's position is in: its inode and a hash of its first bytes (up
 * to the position, which were there when the cursor was made). A log rotated
 * (renamed away, made anew) has another inode; one cut in place and written on
 * (copytruncate) has other first bytes, its first line's stamp at least.
 */
function fingerprintOf(fd: number, upTo: number): string {
  const head = Buffer.alloc(Math.min(MARK_BYTES, upTo));
  const n = head.length > 0 ? readSync(fd, head, 0, head.length, 0) : 0;
  const hash = createHash('sha1').update(head.subarray(0, n)).digest('base64url').slice(0, 12);
  return `${fstatSync(fd).ino}:${hash}`;
}

/** UTF-16 when the file starts with its BOM (stamps are then no ASCII bytes: time-probe.ts refuses them), else UTF-8. */
function encodingGuess(fd: number): string {
  const head = Buffer.alloc(2);
  const n = readSync(fd, head, 0, 2, 0);
  return n === 2 && BOM_UTF16.test(head.toString('hex')) ? 'utf-16' : 'utf-8';
}

function firstStampedFile(sources: Source[]): number {
  const i = sources.findIndex((s) => s.scheme !== null);
  return i < 0 ? 0 : i;
}

/** A time the caller gave, in epoch ms, read against the first non-empty file's scheme (its day, for a time of day; its year, for syslog). */
function timeInput(time: string | number, field: 'from' | 'to', source: Source, file: MergeFile): number {
  const scheme = source.scheme ?? { format: 'iso8601' as const, year: new Date().getUTCFullYear() };
  try {
    return targetTimeOf(time, scheme, firstStampMs(source.fd, file.size, scheme));
  } catch (err) {
    if (err instanceof FolioError && err.code === 'invalid_input')
      throw new FolioError('invalid_input', err.message.replace(/^not a time/, `${field} is not a time`), { field, value: time });
    throw err;
  }
}

/** The first stamp of a file (its first 64 KiB, where the format was found), for a time of day's day. */
function firstStampMs(fd: number, size: number, scheme: TimeScheme): number {
  if (size === 0) return NaN;
  const reader = new LineReader(fd, Math.min(size, 64 * 1024), '', 0, 1);
  while (reader.next()) {
    const t = timeOfLine(reader.buf, reader.lineStart, reader.contentEnd, scheme.format, scheme.year);
    if (!Number.isNaN(t)) return t;
  }
  return NaN;
}

/** Where file `i` starts: its first line, or its first line stamped at or after `fromMs` (null: none is). */
async function startOf(f: MergeFile, i: number, fromMs: number | undefined, opts: MergeOptions): Promise<FilePosition | null> {
  if (f.size === 0) return { byte: 0, lineNo: 1, carryMs: NaN };
  if (fromMs === undefined) return { byte: 0, lineNo: 1, carryMs: NaN };
  if (!opts.indexOf) throw new FolioError('invalid_input', 'a merge from a time needs the line index of each file', { path: f.path });
  const index = await opts.indexOf(f.path, i);
  try {
    const r = timeSeek(index, fromMs, opts.encodings?.[i] ?? 'utf-8');
    return { byte: r.byteOffset, lineNo: r.lineNo, carryMs: NaN };
  } catch (err) {
    // Nothing at or after `from` in this file: it gives no lines, but the lines written after its end will.
    if (err instanceof FolioError && err.code === 'out_of_bounds') return { byte: index.size, lineNo: index.newlines + 1, carryMs: NaN };
    throw err;
  }
}

export class Merge {
  /** the file that handed out the last line, while it stays first */
  private cur = -1;
  /** the runner-up's key: lines of `cur` before it need no new comparison */
  private boundMs = Infinity;
  private boundIdx = Infinity;

  constructor(
    readonly files: readonly MergeFile[],
    private readonly sources: Source[],
    private readonly toMs: number,
    /** only lines this matches are handed out (null: all) */
    private readonly filter: LineFilter | null = null,
    private readonly signal?: AbortSignal,
  ) {
    sources.forEach((_, i) => this.advance(i));
    // Each file's answers start at its first line (the head just read).
    this.queues = sources.map((s) => {
      const r = s.reader;
      return { keep: new Uint8Array(0), at: 0, nextByte: r?.lineByte ?? 0, nextLineNo: r?.lineNo ?? 1, chunkLines: FIRST_CHUNK_LINES, pending: null };
    });
  }

  private readonly queues: MatchQueue[];

  /** Whether lines are handed out by nextMatch (a `match` was given) rather than next. */
  get filtered(): boolean {
    return this.filter !== null;
  }

  /** Bytes read from the files by the line readers (not counting the bisection's probes). */
  get bytesRead(): number {
    return this.sources.reduce((n, s) => n + (s.reader?.bytesRead ?? 0), this.endedBytes);
  }

  /** Bytes read by the readers of the files that have ended. */
  private endedBytes = 0;

  /** Read file i's next line into its head (or mark it done). */
  private advance(i: number): void {
    const s = this.sources[i]!;
    s.hasHead = false;
    if (!s.reader || !s.scheme) return;
    s.carryBeforeHeadMs = s.carryMs;
    if (!s.reader.next()) {
      s.endPos = { byte: s.reader.byte, lineNo: s.reader.nextLineNo, carryMs: s.carryMs };
      this.endedBytes += s.reader.bytesRead;
      s.reader = null;
      return;
    }
    const r = s.reader;
    // A UTF-8 BOM before the first line's stamp is no part of it.
    const bom = r.lineByte === 0 && r.buf[r.lineStart] === 0xef && r.buf[r.lineStart + 1] === 0xbb && r.buf[r.lineStart + 2] === 0xbf ? 3 : 0;
    const t = timeOfLine(r.buf, r.lineStart + bom, r.contentEnd, s.scheme.format, s.scheme.year);
    if (!Number.isNaN(t)) s.carryMs = t;
    const at = Number.isNaN(s.carryMs) ? -Infinity : s.carryMs;
    if (at > this.toMs) {
      this.endedBytes += r.bytesRead;
      s.reader = null;
      return;
    }
    s.headMs = at;
    s.hasHead = true;
  }

  /** The first head by (time, file order); sets the bound of the runner-up. */
  private pick(): number {
    let best = -1;
    let bestMs = Infinity;
    let secondMs = Infinity;
    let secondIdx = Infinity;
    for (let i = 0; i < this.sources.length; i++) {
      const s = this.sources[i]!;
      if (!s.hasHead) continue;
      if (best < 0 || s.headMs < bestMs) {
        if (best >= 0) [secondMs, secondIdx] = [bestMs, best];
        best = i;
        bestMs = s.headMs;
      } else if (s.headMs < secondMs) {
        [secondMs, secondIdx] = [s.headMs, i];
      }
    }
    this.boundMs = secondMs;
    this.boundIdx = secondIdx;
    return best;
  }

  private handed: MergedLine = { fileIdx: -1, lineNo: 0, timeMs: NaN, buf: Buffer.alloc(0), start: 0, contentEnd: 0, end: 0 };
  private pending = -1;

  /**
   * The next line of the merged view, or null at its end (a merge without `match`;
   * with one, nextMatch). The returned object is reused by the next call, its
   * bytes are not: lines read one after another from the same buffer are adjacent
   * there (`end` of one is `start` of the next), so a caller can copy a run of
   * them at once.
   */
  next(): MergedLine | null {
    if (this.filter) throw new Error('a merge with match hands out its lines by nextMatch()');
    return this.nextLine();
  }

  /**
   * The next line of the merged view that `match` matches, or null at the end; as
   * next(), the object is reused and its bytes stay. `timeout` when the regex runs
   * past its budget on a chunk, `cancelled` when the merge's signal aborts.
   */
  async nextMatch(): Promise<MergedLine | null> {
    if (!this.filter) return this.nextLine();
    for (let m = this.nextLine(); m; m = this.nextLine()) {
      const q = this.queues[m.fileIdx]!;
      if (q.at >= q.keep.length) await this.nextChunk(q, m.fileIdx);
      // No answer for the line (the file shrank under the worker): it is not kept.
      if (q.at < q.keep.length && q.keep[q.at++] === 1) return m;
    }
    return null;
  }

  /** Take file i's next chunk of answers (waiting for it), and ask for the one after. */
  private async nextChunk(q: MatchQueue, i: number): Promise<void> {
    const chunk = await (q.pending ?? this.askChunk(q, i));
    q.keep = chunk.keep;
    q.at = 0;
    q.nextByte = chunk.next;
    q.nextLineNo += chunk.keep.length;
    q.pending = null;
    // The worker reads on while the merge hands these out.
    if (chunk.keep.length > 0 && q.nextByte < this.files[i]!.size) q.pending = this.askChunk(q, i);
  }

  private askChunk(q: MatchQueue, i: number): Promise<{ keep: Uint8Array; next: number }> {
    const lines = q.chunkLines;
    q.chunkLines = Math.min(MAX_CHUNK_LINES, lines * 2);
    const file = this.files[i]!;
    const asked = filterChunk(
      this.filter!,
      { path: file.path, start: q.nextByte, end: file.size, maxLines: lines, maxBytes: MAX_CHUNK_BYTES },
      { path: file.path, line: q.nextLineNo },
      this.signal,
    );
    asked.catch(() => {}); // a chunk asked for ahead may never be waited for
    return asked;
  }

  /** The next line of the merge, matching or not. */
  private nextLine(): MergedLine | null {
    // The file of the line handed out last reads on only now: a caller that stops after a line reads nothing past it.
    if (this.pending >= 0) {
      this.advance(this.pending);
      this.pending = -1;
    }
    let i = this.cur;
    const s0 = i >= 0 ? this.sources[i]! : undefined;
    // Still first while before the runner-up: earlier time, or the same time from an earlier file.
    if (!s0 || !s0.hasHead || !(s0.headMs < this.boundMs || (s0.headMs === this.boundMs && i < this.boundIdx))) i = this.pick();
    this.cur = i;
    if (i < 0) return null;
    const s = this.sources[i]!;
    const r = s.reader!;
    const h = this.handed;
    h.fileIdx = i;
    h.lineNo = r.lineNo;
    h.timeMs = s.headMs;
    h.buf = r.buf;
    h.start = r.lineStart;
    h.contentEnd = r.contentEnd;
    h.end = r.lineEnd;
    this.pending = i;
    return h;
  }

  /**
   * Where the merge goes on from (the lines handed out so far are behind it), or
   * null when it has ended. A file that has run out is at its end in the cursor, so
   * the lines written to it later come in a window from this cursor too.
   */
  cursor(): string | null {
    return this.sources.some((s) => s.hasHead) ? encodeCursor(this.marked(this.position())) : null;
  }

  /**
   * Once the merge has ended at the end of its files (not at `to`): a cursor at
   * those ends, which a later call sends to get the lines written since (follow).
   * null while lines are left, and when `to` ended every file.
   */
  endCursor(): string | null {
    const position = this.position();
    if (this.sources.some((s) => s.hasHead) || position.every((p) => p === null)) return null;
    return encodeCursor(this.marked(position));
  }

  /** `position` with each file's fingerprint, so the cursor is refused once a file is another. */
  private marked(position: MergePosition): MergePosition {
    return position.map((p, i) => (p && p.byte > 0 ? { ...p, mark: fingerprintOf(this.sources[i]!.fd, p.byte) } : p));
  }

  private position(): MergePosition {
    if (this.pending >= 0) {
      this.advance(this.pending);
      this.pending = -1;
    }
    return this.sources.map((s) => {
      if (!s.hasHead) return s.endPos;
      const r = s.reader!;
      return { byte: r.lineByte, lineNo: r.lineNo, carryMs: s.carryBeforeHeadMs };
    });
  }

  close(): void {
    for (const s of this.sources) {
      try {
        closeSync(s.fd);
      } catch {
        // already closed
      }
    }
  }
}
