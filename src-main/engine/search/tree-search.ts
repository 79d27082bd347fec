/**
 * Regex search of every file under a directory (or those matching a glob), the
 * way `rg PATTERN DIR` does: .gitignore honoured, `.git` and symlinks skipped
 * (read/walk.ts), binary files skipped, one result per matching line in walk
 * order, capped, with a cursor to continue.
 *
 * The calling thread walks the tree and hands files out in batches to a pool of
 * worker threads (tree-search-worker.mjs), a few batches per worker in flight, and
 * takes the answers back in walk order; once the cap is reached the walk stops.
 * A small file is read whole and searched as one chunk by the single-file scanner,
 * so both searches agree line for line. A file of at least BIG_FILE_BYTES goes to
 * the single-file search (its index and all cores); a file with a NUL byte in its
 * head goes to the engine's sniff: binary is skipped, UTF-16 is searched like any
 * single file.
 *
 * Context lines (context: N) come with matches in files under BIG_FILE_BYTES; a
 * big file's matches have none (read the lines around them).
 *
 * The cursor is "<path>:<byte>" (the path relative to the searched directory): the
 * search resumes in that file at that byte's line, then goes on in walk order.
 */
import { FolioError } from '../errors.ts';
import { defaultThreads } from '../index/builder.ts';
import { etagOf } from '../index/identity.ts';
import { withPinnedFile } from '../index/pinned-file.ts';
import { openIndex } from '../index/store.ts';
import { poolRegistry } from '../index/worker-pool.ts';
import { sniffBinary } from '../text/binary-sniff.ts';
import { comparePaths, walkTree, type WalkEntry } from '../read/walk.ts';
import { searchBudgetMs } from './search-budget.ts';
import { searchPath } from './search-path.ts';
import { planSearch } from './plan.mjs';
import { searchTreeBatch, type TreeBatchJob, type TreeFileResult, type TreeRawMatch } from './tree-search-worker.mjs';

export interface TreeSearchOptions {
  pattern: string;
  /** subset of 'imsu' */
  flags?: string;
  /** only files whose path (relative to the directory) matches this glob */
  glob?: string;
  /** cap on matching lines returned, default 100, 1..10000 */
  maxMatches?: number;
  maxLineChars?: number;
  /** count matching lines per file over the whole tree; no matches returned */
  countOnly?: boolean;
  /** lines of context before and after each match (0..20) */
  context?: number;
  /** "<path>:<byte>" from a previous answer's nextCursor */
  cursor?: string;
  /** files at least this big go to the one-file search (default BIG_FILE_BYTES; tests lower it) */
  bigFileBytes?: number;
  /** worker threads; default one per core; 0: the calling thread */
  threads?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** which files the caller may see (the agent guard's policy); others are never opened */
  admit?: (abs: string, rel: string, kind: 'file' | 'dir') => boolean;
  /** open files as the walk saw them (agent guard): no final symlink, the open lands on the walked path, and hard links refused unless allowed */
  pinned?: { refuseLinks: boolean };
}

export interface TreeMatch {
  /** relative to the searched directory, '/'-separated */
  path: string;
  line: number;
  byteOffset: number;
  column: number;
  text: string;
  textTruncated: boolean;
  contextBefore?: string[];
  contextAfter?: string[];
}

export interface TreeSearchResult {
  /** the searched directory */
  root: string;
  /**
   * files with matching lines, in walk order, with how many of their lines this answer
   * holds (count_only: all of them), and the etag of the version the lines were read
   * from (null: it changed while it was searched)
   */
  files: { path: string; count: number; etag: string | null }[];
  matches: TreeMatch[];
  /** matching lines in this answer (count_only: in the whole tree) */
  count: number;
  filesSearched: number;
  bytesSearched: number;
  truncated: boolean;
  nextCursor: string | null;
  elapsedMs: number;
}

/**
 * Files at least this big are searched by the single-file search (index, all
 * cores); smaller ones are read whole by a worker, which is cheaper than building
 * an index for a file that is searched once.
 */
export const BIG_FILE_BYTES = 64 * 1024 * 1024;
const BATCH_FILES = 128;
/** Batches running or queued per worker: enough that a worker never waits for the walk; a stop flag skips the rest once the cap is reached. */
const RUNNING_PER_THREAD = 4;
/** Batches done but not yet taken (answers wait in walk order behind a slow batch): bounds memory. */
const MAX_UNTAKEN = 64;
const DEFAULT_MAX_MATCHES = 100;
const MAX_MATCHES_LIMIT = 10_000;
const MAX_CONTEXT = 20;

const pools = poolRegistry<TreeBatchJob, TreeFileResult[]>(
  new URL('./tree-search-worker.mjs', import.meta.url),
  () => ({ folioTreeSearchWorker: true }),
  'tree search',
);

/** Stop all tree-search workers (tests, shutdown). */
export async function closeTreeSearchPools(): Promise<void> {
  await pools.closeAll();
}

function invalid(message: string, details: Record<string, unknown>): FolioError {
  return new FolioError('invalid_input', message, details);
}

function intIn(field: string, v: number | undefined, fallback: number, min: number, max: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < min || v > max) throw invalid(`${field} must be an integer in ${min}..${max}, got ${v}`, { field, value: v, min, max });
  return v;
}

/** "<path>:<byte>" as its parts. */
export function parseCursor(cursor: string): { path: string; byte: number } {
  const at = cursor.lastIndexOf(':');
  const path = cursor.slice(0, at);
  const byte = Number(cursor.slice(at + 1));
  if (at <= 0 || !Number.isInteger(byte) || byte < 0 || path.startsWith('/') || path.split('/').includes('..')) {
    throw invalid(`cursor must be "<path>:<byte>" as a previous answer's next_cursor gave it, got "${cursor}"`, { field: 'cursor', cursor });
  }
  return { path, byte };
}

export const cursorOf = (path: string, byte: number) => `${path}:${byte}`;

interface FileOutcome {
  entry: WalkEntry;
  size: number;
  count: number;
  matches: TreeRawMatch[];
  searched: boolean;
  /** the version searched, when it held from before the read to after the search */
  etag?: string;
}

/** The search's settings from its options, checked: a bad one is invalid_input. */
function settingsOf(opts: TreeSearchOptions) {
  const flags = opts.flags ?? '';
  if (!/^[imsu]*$/.test(flags)) throw invalid(`unsupported regex flags '${flags}': use a subset of 'imsu'`, { field: 'flags', flags });
  let plan;
  try {
    plan = planSearch(opts.pattern, flags);
  } catch (err) {
    throw invalid(`invalid regex /${opts.pattern}/${flags}: ${(err as Error).message}`, { field: 'pattern', pattern: opts.pattern, flags });
  }
  return {
    plan,
    maxMatches: intIn('max', opts.maxMatches, DEFAULT_MAX_MATCHES, 1, MAX_MATCHES_LIMIT),
    maxLineChars: intIn('max_line_chars', opts.maxLineChars, 400, 1, 1_000_000),
    context: intIn('context', opts.context, 0, 0, MAX_CONTEXT),
    threads: intIn('threads', opts.threads, defaultThreads(), 0, 256),
    countOnly: opts.countOnly ?? false,
    budgetMs: searchBudgetMs(opts.timeoutMs),
    cursor: opts.cursor === undefined ? undefined : parseCursor(opts.cursor),
  };
}

type Batch = { entries: WalkEntry[]; run: { id: number; done: Promise<TreeFileResult[]> } | TreeFileResult[] };

/**
 * The batches handed out and not yet taken, in walk order, and the walk that
 * feeds them. `topUp` keeps the workers fed: it walks and hands out batches until
 * RUNNING_PER_THREAD are running per worker. It runs on every batch that
 * finishes, not only when the caller takes answers, so the walk goes on while it
 * waits for a slow batch. Without a pool a batch is searched in this thread.
 */
function batchFeed(
  walker: Iterator<WalkEntry>,
  jobBase: Omit<TreeBatchJob, 'files'>,
  startOf: (e: WalkEntry) => number,
  pool: ReturnType<typeof pools.get> | undefined,
  poolSize: number,
) {
  const inFlight: Batch[] = [];
  let walkDone = false;
  let running = 0;
  let stopped = false;
  const nextBatch = (): WalkEntry[] => {
    const batch: WalkEntry[] = [];
    while (batch.length < BATCH_FILES) {
      const n = walker.next();
      if (n.done) {
        walkDone = true;
        break;
      }
      batch.push(n.value);
    }
    return batch;
  };
  const topUp = () => {
    // In this thread a batch is searched as it is handed out: one at a time, so a cap reached early stops the walk early.
    while (!walkDone && !stopped && running < poolSize * RUNNING_PER_THREAD && inFlight.length < (pool ? MAX_UNTAKEN : 1)) {
      const entries = nextBatch();
      if (!entries.length) break;
      const job: TreeBatchJob = { ...jobBase, files: entries.map((e) => ({ abs: e.abs, startByte: startOf(e) })) };
      if (!pool) {
        inFlight.push({ entries, run: searchTreeBatch(job) });
        continue;
      }
      const run = pool.run(job);
      running++;
      const settle = () => {
        running--;
        topUp();
      };
      run.done.then(settle, settle);
      inFlight.push({ entries, run });
    }
  };
  return {
    inFlight,
    topUp,
    stop: () => {
      stopped = true;
    },
  };
}

interface WholeFileSearch {
  plan: { pattern: string; flags: string };
  startByte: number;
  /** matches still wanted (count_only: the cap) */
  maxMatches: number;
  maxLineChars: number;
  countOnly: boolean;
  deadline: number;
  signal?: AbortSignal;
  pinned?: { refuseLinks: boolean };
}

/** A file the batch scanner sent back: big (single-file search) or with a NUL in its head (sniff first). */
async function searchWhole(e: WalkEntry, r: TreeFileResult, how: WholeFileSearch): Promise<FileOutcome> {
  const none: FileOutcome = { entry: e, size: r.size, count: 0, matches: [], searched: false };
  const run = async (enginePath: string): Promise<FileOutcome> => {
    if (r.status === 'nul') {
      const verdict = await sniffBinary(enginePath, r.size);
      if (verdict.isBinary) return none;
    }
    const found = await searchPath(enginePath, {
      pattern: how.plan.pattern,
      flags: how.plan.flags,
      startByte: how.startByte,
      maxMatches: how.maxMatches,
      maxLineChars: how.maxLineChars,
      countOnly: how.countOnly,
      hash: false,
      timeoutMs: Math.max(1, Math.round(how.deadline - performance.now())),
      signal: how.signal,
    });
    const index = found.matches.length ? await openIndex(enginePath) : undefined;
    const matches: TreeRawMatch[] = found.matches.map((m) => {
      const next = index!.lineStart(m.line);
      return { ...m, nextLine: next < 0 ? index!.size : next };
    });
    if (found.truncated && found.nextStartByte !== null) {
      // More lines match in this file than the answer can hold: a sentinel makes the merge see "more".
      matches.push({ line: 0, byteOffset: found.nextStartByte, nextLine: found.nextStartByte, column: 0, text: '', textTruncated: false });
    }
    return { ...none, size: found.scanned.endByte, count: found.count, matches, searched: true, etag: found.version.etag };
  };
  try {
    return how.pinned ? await withPinnedFile(e.abs, run, { refuseLinks: how.pinned.refuseLinks }) : await run(e.abs);
  } catch (err) {
    if (err instanceof FolioError && (err.code === 'timeout' || err.code === 'cancelled' || err.code === 'invalid_input')) throw err;
    return none; // gone, swapped or unreadable since the walk: skipped like rg skips it
  }
}

/** The answer, built from the files' outcomes taken in walk order, up to the cap. */
class TreeAnswer {
  files: { path: string; count: number; etag: string | null }[] = [];
  kept: (TreeMatch & { nextLine: number })[] = [];
  total = 0;
  filesSearched = 0;
  bytesSearched = 0;
  truncated = false;
  nextCursor: string | null = null;

  constructor(
    private readonly countOnly: boolean,
    private readonly maxMatches: number,
  ) {}

  /** Take one file's answer (`startByte`: where its search began); false once the cap is passed. */
  take(o: FileOutcome, startByte: number): boolean {
    const { files, kept, countOnly, maxMatches } = this;
    if (!o.searched) return true;
    this.filesSearched++;
    this.bytesSearched += Math.max(0, o.size - startByte);
    if (countOnly) {
      if (o.count > 0) files.push({ path: o.entry.rel, count: o.count, etag: o.etag ?? null });
      this.total += o.count;
      return true;
    }
    let n = 0;
    for (const m of o.matches) {
      if (kept.length === maxMatches) {
        this.truncated = true;
        const last = kept[kept.length - 1]!;
        this.nextCursor = cursorOf(last.path, last.nextLine);
        break;
      }
      kept.push({
        path: o.entry.rel,
        line: m.line,
        byteOffset: m.byteOffset,
        column: m.column,
        text: m.text,
        textTruncated: m.textTruncated,
        ...(m.before ? { contextBefore: m.before, contextAfter: m.after ?? [] } : {}),
        nextLine: m.nextLine,
      });
      n++;
    }
    if (n > 0) files.push({ path: o.entry.rel, count: n, etag: o.etag ?? null });
    return !this.truncated;
  }
}

/** The error when the search runs out of its budget, with where to continue. */
function timeoutError(
  root: string,
  plan: { pattern: string; flags: string },
  budgetMs: number,
  answer: TreeAnswer,
  countOnly: boolean,
  pendingFrom: string | undefined,
) {
  const { filesSearched, total, kept } = answer;
  return new FolioError('timeout', `search of /${plan.pattern}/${plan.flags} under ${root} ran out of its ${budgetMs} ms budget after ${filesSearched} files`, {
    path: root,
    pattern: plan.pattern,
    flags: plan.flags,
    budget_ms: budgetMs,
    files_searched: filesSearched,
    matches_found: countOnly ? total : kept.length,
    next_cursor: pendingFrom === undefined ? null : cursorOf(pendingFrom, 0),
    hint: 'the regex backtracks too much, or the tree is big: simplify the regex, narrow it with glob, or continue from next_cursor',
  });
}

/** Search the directory `root` (a real path to an existing directory). */
export async function searchTree(root: string, opts: TreeSearchOptions): Promise<TreeSearchResult> {
  const started = performance.now();
  const { plan, maxMatches, maxLineChars, context, threads, countOnly, budgetMs, cursor } = settingsOf(opts);
  // Only a literal runs in this thread (threads: 0): any regex could hold it past the budget, and only a worker can be stopped.
  const inThread = threads === 0 && plan.mode === 'literal';
  const poolSize = Math.max(1, threads);

  const control = new Int32Array(new SharedArrayBuffer(4));
  const jobBase = {
    control: control.buffer as SharedArrayBuffer,
    pattern: plan.pattern,
    flags: plan.flags,
    countOnly,
    maxMatches,
    maxLineChars,
    context,
    bigBytes: opts.bigFileBytes ?? BIG_FILE_BYTES,
    verify: Boolean(opts.pinned),
    refuseLinks: opts.pinned?.refuseLinks ?? false,
  };
  const walker = walkTree(root, { glob: opts.glob, from: cursor?.path, admit: opts.admit });
  const startOf = (e: WalkEntry) => (cursor && e.rel === cursor.path ? cursor.byte : 0);

  const answer = new TreeAnswer(countOnly, maxMatches);
  const deadline = performance.now() + budgetMs;
  /** the first file whose answer is not taken yet (for the timeout error's cursor) */
  let pendingFrom: string | undefined;

  const pool = inThread ? undefined : pools.get(poolSize);
  const { inFlight, topUp, stop } = batchFeed(walker, jobBase, startOf, pool, poolSize);
  const whole = (e: WalkEntry, r: TreeFileResult) =>
    searchWhole(e, r, {
      plan,
      startByte: startOf(e),
      maxMatches: countOnly ? maxMatches : Math.max(1, maxMatches - answer.kept.length),
      maxLineChars,
      countOnly,
      deadline,
      signal: opts.signal,
      pinned: opts.pinned,
    });

  let budgetTimer: NodeJS.Timeout | undefined;
  let current: Batch | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    budgetTimer = setTimeout(() => {
      // The batch being waited for, and those queued behind it: a worker stuck in one regex exec only stops this way.
      for (const f of current ? [current, ...inFlight] : inFlight) if (!Array.isArray(f.run)) pool?.terminate(f.run.id);
      reject(timeoutError(root, plan, budgetMs, answer, countOnly, pendingFrom));
    }, budgetMs);
  });
  timedOut.catch(() => undefined);
  try {
    for (;;) {
      if (opts.signal?.aborted) throw new FolioError('cancelled', `search cancelled: ${root}`, { path: root });
      if (!inFlight.length) topUp();
      const head = inFlight.shift();
      current = head;
      if (!head) break;
      pendingFrom = head.entries[0]!.rel;
      const results = Array.isArray(head.run) ? head.run : await Promise.race([head.run.done, timedOut]);
      topUp();
      let more = true;
      for (const [i, r] of results.entries()) {
        const e = head.entries[i]!;
        pendingFrom = e.rel;
        const o: FileOutcome =
          r.status === 'ok'
            ? { entry: e, size: r.size, count: r.count, matches: r.matches, searched: true, ...(r.id ? { etag: etagOf(r.id) } : {}) }
            : r.status === 'skip'
              ? { entry: e, size: 0, count: 0, matches: [], searched: false }
              : await Promise.race([whole(e, r), timedOut]);
        if (!answer.take(o, startOf(o.entry))) {
          more = false;
          break;
        }
      }
      if (!more) break;
      if (performance.now() > deadline) await timedOut;
    }
  } finally {
    clearTimeout(budgetTimer);
    stop();
    Atomics.store(control, 0, 1); // batches still queued are not needed
  }
  if (opts.signal?.aborted) throw new FolioError('cancelled', `search cancelled: ${root}`, { path: root });
  // A big file's "there are more" sentinel is not a match.
  const matches = answer.kept.filter((m) => m.line > 0).map(({ nextLine: _n, ...m }) => m);
  return {
    root,
    files: answer.files,
    matches,
    count: countOnly ? answer.total : matches.length,
    filesSearched: answer.filesSearched,
    bytesSearched: answer.bytesSearched,
    truncated: answer.truncated,
    nextCursor: answer.nextCursor,
    elapsedMs: performance.now() - started,
  };
}

export { comparePaths };
