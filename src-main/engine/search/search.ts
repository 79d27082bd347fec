/**
 * Regex search of a file, line by line (grep semantics): every line is matched on
 * its own, so a regex never matches across lines (multi-line patterns are not
 * supported) and `^` / `$` match at each line's start and end. A line's text
 * excludes its '\n' and a '\r' just before it; invalid UTF-8 reads as U+FFFD.
 *
 * Big ranges are split at line boundaries into one piece per worker thread
 * (search-worker.mjs and the modules it imports hold the scanning code, shared
 * with the in-thread path used for files under 8 MiB). Workers report up to maxMatches + 1 matches
 * each, so the merge knows whether more exist; the first piece to exceed the cap
 * tells later pieces (shared flag) that their matches will never be returned.
 * Progress is a shared per-piece counter polled here; cancellation is a shared
 * flag checked once per ~1 MiB chunk. A single regex exec cannot be interrupted
 * (catastrophic backtracking on a long line), so a worker that has not answered
 * ABORT_GRACE_MS after an abort is terminated (the pool respawns on demand). In
 * the calling thread (small files, threads: 0) the flag is checked between chunks
 * only.
 *
 * Nothing hangs the caller, and nothing holds the calling thread (a server's
 * event loop): only a provably cheap search (cheapInThread: a literal, or a
 * linear-time regex over at most 64 KiB) runs in the calling thread; every other
 * one, the head-first part included, runs in workers. Every search has a time
 * budget (search-budget.ts); past it the workers are stopped like after an abort
 * (terminated when stuck in one exec) and the caller gets a `timeout` error saying
 * how far the search got. V8's linear-time engine still takes over any regex that
 * backtracks too much (regex-engine.mjs), so most searches finish long before it.
 * A remote value (its source mounted under index.path: index/byte-source.ts) is
 * searched the same way; only its bytes come differently. Workers cannot see the
 * mount, so this thread reads each piece through the value's ByteSource (one
 * forward pass, read-ahead, bounded cache) and hands the bytes to a worker with the
 * job: pieces are cut at most REMOTE_PIECE_BYTES long and at most threads + 1 are
 * in flight, so memory stays bounded whatever the value's size. In this thread,
 * each step's chunk is awaited from the source before the step runs.
 */
import { mountedSource } from '../index/byte-source.ts';
import { foregroundScans } from '../index/worker-pool.ts';
import { FolioError } from '../errors.ts';
import { defaultThreads } from '../index/builder.ts';
import type { LineIndex } from '../index/line-index.ts';
import { searchBudgetMs, searchTimeoutError, type PieceProgress } from './search-budget.ts';
import { planSearch, type RangeJob, type RangeResult, type RawMatch, type SearchPlan } from './search-worker.mjs';
import { cancelled, searchInThread, searchInWorkers } from './range-runs.ts';

export { closeSearchPools, pool, startSearchWorkers } from './range-runs.ts';

export interface SearchOptions {
  /** JavaScript RegExp source. */
  pattern: string;
  /** Subset of 'imsu' ('g' is added internally, 'y' refused). */
  flags?: string;
  /** Search [startByte, endByte); startByte is snapped back to its line start. */
  startByte?: number;
  /** Default: file size. A line that starts before endByte is searched whole. */
  endByte?: number;
  /** Cap on matches returned, default 100, 1..10000. */
  maxMatches?: number;
  /** Matched line text is cut to this many characters around the match, default 400. */
  maxLineChars?: number;
  /** Count matching lines over the whole range (grep -c), return no matches. */
  countOnly?: boolean;
  /** The file's encoding as file-facts reports it (default: the index's layout, i.e. UTF-8 or UTF-16). */
  encoding?: string;
  /** Worker threads; default one per core; 0 searches in this thread. */
  threads?: number;
  /** Ranges smaller than this are searched in the calling thread (default 8 MiB; tests and benches lower it). */
  smallRangeBytes?: number;
  /** Time budget in ms (default FOLIO_SEARCH_TIMEOUT_MS or 10 s); past it the search fails with `timeout`. */
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (p: { bytesDone: number; totalBytes: number }) => void;
}

export interface SearchMatch {
  /** 1-based line number */
  line: number;
  /** file byte offset of the first match in the line */
  byteOffset: number;
  /** 1-based column of that match, in code points of the line */
  column: number;
  /** the line without its terminator, cut to maxLineChars around the match */
  text: string;
  textTruncated: boolean;
}

export interface SearchResult {
  /** in file order, one per matching line */
  matches: SearchMatch[];
  /** matching lines found (== matches.length unless countOnly; with countOnly, over the whole range) */
  count: number;
  /** the cap was hit and at least one more matching line follows */
  truncated: boolean;
  /** pass as startByte to continue after the last returned match; null when the range was searched to its end */
  nextStartByte: number | null;
  scanned: { startByte: number; endByte: number };
  elapsedMs: number;
}

const DEFAULT_MAX_MATCHES = 100;
const MAX_MATCHES_LIMIT = 10_000;
const DEFAULT_MAX_LINE_CHARS = 400;
const SMALL_RANGE_BYTES = 8 * 1024 * 1024;
/** Searched in the calling thread first when matches (not a count) are asked of a big range. */
const HEAD_BYTES = 4 * 1024 * 1024;
/** A remote value's pieces are at most this long: the bytes a worker gets with one job. */
const REMOTE_PIECE_BYTES = 4 * 1024 * 1024;

/** Ranges up to this size run a linear-time regex in the calling thread (the NFA of even `(.*a){12}` is a few ms over 64 KiB). */
const CHEAP_RANGE_BYTES = 64 * 1024;

/**
 * Whether searching `bytes` with `plan` is provably cheap, so it may run in the
 * calling thread (a server's event loop): a literal (memmem, no regex), a
 * case-insensitive word (the find kernel; without it, a regex with no choice
 * point, O(bytes x word length)), or a
 * regex the linear-time engine runs over a small range. Anything else runs in a
 * worker that is terminated at the budget. Being linear is not enough for a big
 * range: the linear engine's cost is the input times the size of the pattern's
 * automaton, and `(.*a){12}` over 3 MB held a thread for 80 s.
 */
export function cheapInThread(plan: SearchPlan, bytes: number): boolean {
  return plan.mode === 'literal' || plan.folded !== null || (plan.bounded && bytes <= CHEAP_RANGE_BYTES);
}

function invalid(message: string, details: Record<string, unknown>): FolioError {
  return new FolioError('invalid_input', message, details);
}

function intOption(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${name} must be an integer in ${min}..${max}, got ${value}`, { field: name, value, min, max });
  }
  return value;
}

function compile(pattern: string, flags: string): SearchPlan {
  if (typeof pattern !== 'string') throw invalid('pattern must be a string', { field: 'pattern' });
  try {
    return planSearch(pattern, flags);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw invalid(`invalid regex /${pattern}/${flags}: ${message}`, { field: 'pattern', pattern, flags });
  }
}

/** The searched byte range: start snapped back to its line start, end pushed to the end of the line holding endByte - 1. */
function lineRange(index: LineIndex, startByte: number, endByte: number): { start: number; end: number } {
  const size = index.size;
  for (const [field, v] of [
    ['startByte', startByte],
    ['endByte', endByte],
  ] as const) {
    if (!Number.isInteger(v) || v < 0) throw invalid(`${field} must be a non-negative integer, got ${v}`, { field, value: v });
    if (v > size) throw new FolioError('out_of_bounds', `${field} ${v} is past the end of the file (size ${size})`, { field, value: v, size });
  }
  if (startByte > endByte) {
    throw new FolioError('invalid_range', `startByte ${startByte} is after endByte ${endByte}`, { startByte, endByte });
  }
  const start = startByte === size ? size : index.lineStart(index.lineAt(startByte));
  if (endByte <= start) return { start, end: start };
  const lastLine = index.lineAt(endByte - 1);
  return { start, end: Math.min(size, index.lineEnd(lastLine) + index.unit) };
}

/** Split [start, end) into `pieces` ranges at line starts (some may merge when lines are long). */
function splitAtLines(index: LineIndex, start: number, end: number, pieces: number): number[] {
  const bounds = [start];
  for (let i = 1; i < pieces; i++) {
    const target = start + Math.floor(((end - start) * i) / pieces);
    const at = index.lineStart(index.lineAt(target));
    if (at > bounds[bounds.length - 1]! && at < end) bounds.push(at);
  }
  bounds.push(end);
  return bounds;
}

/**
 * Search `index.path` for lines matching `opts.pattern`. The index must be complete.
 * Regexes run on one line at a time; a pattern that could match across lines
 * (`a\nb`, `[\s\S]*`) only matches within a line.
 */
export async function searchFile(index: LineIndex, opts: SearchOptions): Promise<SearchResult> {
  const started = performance.now();
  if (!index.complete) throw invalid('the line index must be complete before searching', { path: index.path });
  const flags = opts.flags ?? '';
  if (typeof flags !== 'string' || !/^[imsu]*$/.test(flags.replace('g', ''))) {
    throw invalid(`unsupported regex flags '${flags}': use a subset of 'imsu'`, { field: 'flags', flags });
  }
  const plan = compile(opts.pattern, flags);
  const maxMatches = intOption('maxMatches', opts.maxMatches, DEFAULT_MAX_MATCHES, 1, MAX_MATCHES_LIMIT);
  const maxLineChars = intOption('maxLineChars', opts.maxLineChars, DEFAULT_MAX_LINE_CHARS, 1, 1_000_000);
  const threads = intOption('threads', opts.threads, defaultThreads(), 0, 256);
  const countOnly = opts.countOnly ?? false;
  const budgetMs = searchBudgetMs(opts.timeoutMs);
  const { start, end } = lineRange(index, opts.startByte ?? 0, opts.endByte ?? index.size);
  if (opts.signal?.aborted) throw cancelled(index.path);
  const source = mountedSource(index.path);

  const deadline = performance.now() + budgetMs;
  const rangeJob = (from: number, to: number, piece: number, control: Int32Array, progress: Int32Array): RangeJob => ({
    path: index.path,
    pattern: plan.pattern,
    flags: plan.flags,
    start: from,
    end: to,
    countOnly,
    maxMatches,
    maxLineChars,
    encoding: opts.encoding ?? index.layout,
    piece,
    control: control.buffer as SharedArrayBuffer,
    progress: progress.buffer as SharedArrayBuffer,
  });

  // Matches from the start of a big range (rg -m stops as soon as it has them): the
  // first HEAD_BYTES often hold them all, and then no other piece starts. The head
  // runs in this thread only when the regex is provably cheap (cheapInThread);
  // otherwise in one worker, under the same budget.
  let head: RangeResult | undefined;
  let headDone: PieceProgress | undefined;
  let from = start;
  const wholeTotal = end - start;
  const timeoutError = (done: PieceProgress[]) =>
    searchTimeoutError(index, { pattern: plan.pattern, flags: plan.flags, start, end, budgetMs }, headDone ? [headDone, ...done] : done);
  const remainingMs = () => Math.max(1, Math.ceil(deadline - performance.now()));
  /** Search [bounds[0], bounds.at(-1)) in pool workers, one piece per pair of bounds, under what is left of the budget. */
  const inWorkers = async (bounds: number[], poolSize: number, progressTotal: number): Promise<RangeResult[]> => {
    const pieces = bounds.length - 1;
    const control = new Int32Array(new SharedArrayBuffer(8));
    Atomics.store(control, 1, 0x7fffffff);
    // Per piece: [KiB searched, matching lines found].
    const progress = new Int32Array(new SharedArrayBuffer(8 * Math.max(1, pieces)));
    const pieceProgress = (): PieceProgress[] =>
      Array.from({ length: pieces }, (_, i) => ({
        start: bounds[i]!,
        end: bounds[i + 1]!,
        bytesDone: Atomics.load(progress, 2 * i) * 1024,
        matches: Atomics.load(progress, 2 * i + 1),
      }));
    const bytesDone = () => pieceProgress().reduce((n, p) => n + Math.min(p.bytesDone, p.end - p.start), 0);
    const jobs = Array.from({ length: pieces }, (_, i) => rangeJob(bounds[i]!, bounds[i + 1]!, i, control, progress));
    const budget = { ms: remainingMs(), error: () => timeoutError(pieceProgress()) };
    const done = () => ({ bytesDone: (headDone?.bytesDone ?? 0) + bytesDone(), totalBytes: progressTotal });
    return searchInWorkers(index.path, jobs, poolSize, control, opts, done, budget, source);
  };
  const poolSize = Math.max(1, threads);

  if (!countOnly && plan.bounded && threads > 0 && wholeTotal >= Math.max(2 * HEAD_BYTES, opts.smallRangeBytes ?? SMALL_RANGE_BYTES)) {
    const headEnd = index.lineStart(index.lineAt(start + HEAD_BYTES));
    if (headEnd > start && headEnd < end) {
      if (cheapInThread(plan, headEnd - start)) {
        const none = new Int32Array(new SharedArrayBuffer(8));
        head = await searchInThread(index.path, plan, rangeJob(start, headEnd, 0, none, none), opts, wholeTotal, deadline, timeoutError, source);
      } else {
        head = (await inWorkers([start, headEnd], poolSize, wholeTotal))[0]!;
      }
      if (head.cancelled || opts.signal?.aborted) throw cancelled(index.path);
      headDone = { start, end: headEnd, bytesDone: headEnd - start, matches: head.count };
      from = headEnd;
    }
  }
  const headMatches = head?.matches.length ?? 0;

  const total = end - from;
  const small = threads === 0 || total < (opts.smallRangeBytes ?? SMALL_RANGE_BYTES);
  // Only a provably cheap regex runs in this thread (a worker is the only thing that can be stopped mid-exec).
  const inThread = small && cheapInThread(plan, total);
  // A remote value's pieces carry their bytes: many short ones, a few in flight at a time.
  const pieces = source ? Math.max(threads, Math.ceil(total / REMOTE_PIECE_BYTES)) : threads;
  const bounds = inThread || (small && !source) ? [from, end] : splitAtLines(index, from, end, pieces);

  let results: RangeResult[];
  if (head && headMatches > maxMatches) {
    results = [head];
  } else if (inThread) {
    const none = new Int32Array(new SharedArrayBuffer(8));
    results = [await searchInThread(index.path, plan, rangeJob(from, end, 0, none, none), opts, total, deadline, timeoutError, source)];
  } else {
    results = await inWorkers(bounds, poolSize, wholeTotal);
  }
  if (head && results[0] !== head) results.unshift(head);
  if (opts.signal?.aborted || results.some((r) => r.cancelled)) throw cancelled(index.path);
  opts.onProgress?.({ bytesDone: wholeTotal, totalBytes: wholeTotal });

  if (countOnly) {
    return {
      matches: [],
      count: results.reduce((n, r) => n + r.count, 0),
      truncated: false,
      nextStartByte: null,
      scanned: { startByte: start, endByte: end },
      elapsedMs: performance.now() - started,
    };
  }
  const raw: RawMatch[] = [];
  for (const r of results) {
    for (const m of r.matches) raw.push(m);
    if (raw.length > maxMatches) break;
  }
  const truncated = raw.length > maxMatches;
  const kept = raw.slice(0, maxMatches);
  return {
    matches: withLineNumbers(index, kept),
    count: kept.length,
    truncated,
    nextStartByte: truncated ? kept[kept.length - 1]!.nextLine : null,
    scanned: { startByte: start, endByte: end },
    elapsedMs: performance.now() - started,
  };
}

/** Line numbers: one index lookup per chunk holding matches, then the worker's newline counts within the chunk. */
function withLineNumbers(index: LineIndex, raw: RawMatch[]): SearchMatch[] {
  const chunkLine = new Map<number, number>();
  return raw.map((m) => {
    let first = chunkLine.get(m.chunkStart);
    if (first === undefined) chunkLine.set(m.chunkStart, (first = index.lineAt(m.chunkStart)));
    return {
      line: first + m.linesIntoChunk + 1,
      byteOffset: m.byteOffset,
      column: m.column,
      text: m.text,
      textTruncated: m.textTruncated,
    };
  });
}

/**
 * Warm-up jobs for the search pool (warm-workers.ts): count the lines of each range
 * matching `pattern`, stopping when a real scan starts. Their control is
 * foregroundScans: [running foreground jobs: non-zero cancels, jobs started: never
 * below piece 0, so never "an earlier piece is capped"].
 */
export function warmSearchJobs(index: LineIndex, ranges: { start: number; end: number }[], pattern: string): RangeJob[] {
  const plan = compile(pattern, '');
  const progress = new Int32Array(new SharedArrayBuffer(8 * Math.max(1, ranges.length)));
  return ranges.map(({ start, end }) => ({
    path: index.path,
    pattern: plan.pattern,
    flags: plan.flags,
    start,
    end,
    countOnly: true,
    maxMatches: DEFAULT_MAX_MATCHES,
    maxLineChars: DEFAULT_MAX_LINE_CHARS,
    encoding: index.layout,
    piece: 0,
    control: foregroundScans.buffer as SharedArrayBuffer,
    progress: progress.buffer as SharedArrayBuffer,
  }));
}
