/**
 * Where a range of a search runs: in this thread a chunk per step (searchInThread),
 * or in the search pool's workers a piece per job (searchInWorkers), under the
 * search's budget, abort signal and progress reports (search.ts decides which and
 * merges the answers). A remote value's bytes come through its ByteSource: awaited
 * before each in-thread step, and sent with each worker's job, read here in file
 * order with threads + 1 pieces in flight.
 */
import { closeFd, readAt, type MountedSource } from '../index/byte-source.ts';
import { poolRegistry } from '../index/worker-pool.ts';
import { defaultThreads } from '../index/builder.ts';
import { FolioError, fromFsError, type ErrorCode } from '../errors.ts';
import { openForRead } from '../index/identity.ts';
import type { PieceProgress } from './search-budget.ts';
import { RangeSearch, SEARCH_CHUNK, type RangeJob, type RangeResult, type SearchPlan } from './search-worker.mjs';

/** How long a worker may keep running a single regex exec after an abort before it is terminated. */
const ABORT_GRACE_MS = 200;
const PROGRESS_INTERVAL_MS = 50;

/** What a run takes of the search's options. */
export interface RunOptions {
  signal?: AbortSignal;
  onProgress?: (p: { bytesDone: number; totalBytes: number }) => void;
}

export function cancelled(path: string): FolioError {
  return new FolioError('cancelled', `search cancelled: ${path}`, { path });
}

/** Search one range in this thread, a chunk at a time, yielding to the event loop every few chunks so abort and progress work. */
export async function searchInThread(
  path: string,
  plan: SearchPlan,
  job: RangeJob,
  opts: RunOptions,
  total: number,
  deadline: number,
  timeoutError: (done: PieceProgress[]) => FolioError,
  source?: MountedSource,
): Promise<RangeResult> {
  let fd: number | undefined;
  try {
    if (!source) fd = openForRead(path);
  } catch (err) {
    throw fromFsError(err, path);
  }
  try {
    // A remote value: each step's chunk is awaited from the source first, then the step reads it here.
    const chunk: { start: number; bytes: Uint8Array } = { start: 0, bytes: new Uint8Array(0) };
    const fromChunk = (_fd: number, buf: Uint8Array, off: number, len: number, pos: number): number => {
      const at = pos - chunk.start;
      const got = chunk.bytes.subarray(at, at + len);
      buf.set(got, off);
      return got.length;
    };
    const rs = new RangeSearch({
      plan,
      fd: fd ?? -1,
      start: job.start,
      end: job.end,
      countOnly: job.countOnly,
      maxMatches: job.maxMatches,
      maxLineChars: job.maxLineChars,
      encoding: job.encoding,
      read: source ? fromChunk : readAt,
    });
    const step = async (): Promise<boolean> => {
      if (source && !rs.done) {
        chunk.start = rs.pos;
        chunk.bytes = await source.readAt(rs.pos, Math.min(SEARCH_CHUNK, job.end - rs.pos));
      }
      return rs.step();
    };
    // Yield after each ~1 MiB step (costs microseconds) so an abort or a progress reader gets a turn.
    while (!(await step())) {
      opts.onProgress?.({ bytesDone: rs.bytesDone, totalBytes: total });
      await new Promise((resolve) => setImmediate(resolve));
      if (opts.signal?.aborted) return { ...rs.result, cancelled: true };
      // Between chunks only: plan.bounded keeps each chunk's regex work linear in its size.
      if (performance.now() > deadline) {
        throw timeoutError([{ start: job.start, end: job.end, bytesDone: rs.bytesDone, matches: rs.result.count }]);
      }
    }
    return rs.result;
  } catch (err) {
    throw toFolioError(err, path);
  } finally {
    if (fd !== undefined) closeFd(fd);
  }
}

export async function searchInWorkers(
  path: string,
  jobs: RangeJob[],
  threads: number,
  control: Int32Array,
  opts: RunOptions,
  progress: () => { bytesDone: number; totalBytes: number },
  budget: { ms: number; error: () => FolioError },
  source?: MountedSource,
): Promise<RangeResult[]> {
  const p = pool(threads);
  /** ids of the jobs the workers run now */
  const running = new Set<number>();
  let graceTimer: NodeJS.Timeout | undefined;
  let timedOut: FolioError | undefined;
  const stop = () => {
    if (graceTimer) return;
    Atomics.store(control, 0, 1);
    // A worker stuck in one long exec never sees the flag: terminate it after a grace period.
    graceTimer = setTimeout(() => running.forEach((id) => p.terminate(id)), ABORT_GRACE_MS);
  };
  const onAbort = () => {
    stop();
    graceTimer!.unref();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  // Kept ref'd: the budget is what ends a runaway search, so it must fire even with nothing else pending.
  const budgetTimer = setTimeout(() => {
    timedOut = budget.error(); // progress as it stood when the budget ran out
    stop();
  }, budget.ms);
  const timer = opts.onProgress ? setInterval(() => opts.onProgress!(progress()), PROGRESS_INTERVAL_MS) : undefined;
  const runJob = async (job: RangeJob): Promise<RangeResult> => {
    const withBytes = source ? { ...job, bytes: await source.readAt(job.start, job.end - job.start) } : job;
    // Stopped or capped while its bytes came: the worker is not bothered.
    const idle = { count: 0, matches: [], capped: false, stopped: false, cancelled: false };
    if (Atomics.load(control, 0) !== 0) return { ...idle, cancelled: true };
    if (Atomics.load(control, 1) < job.piece) return { ...idle, stopped: true };
    const run = p.run(withBytes);
    running.add(run.id);
    try {
      return await run.done;
    } finally {
      running.delete(run.id);
    }
  };
  try {
    // A local file's pieces all start at once (each worker reads its own); a remote
    // value's are read here in file order, threads + 1 in flight (bytes fetched ahead
    // of the workers, memory bounded).
    const results = source ? await inOrder(jobs, threads + 1, runJob) : await Promise.all(jobs.map(runJob));
    if (timedOut && results.some((r) => r.cancelled)) throw timedOut;
    return results;
  } catch (err) {
    if (timedOut) throw timedOut;
    if (opts.signal?.aborted) throw cancelled(path);
    throw toFolioError(err, path);
  } finally {
    // Stop the other pieces too when one failed.
    Atomics.store(control, 0, 1);
    clearTimeout(budgetTimer);
    clearInterval(timer);
    clearTimeout(graceTimer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

/** `run` over `items` in order, at most `limit` at a time; the first failure stops new starts and is thrown. */
async function inOrder<T, R>(items: T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await run(items[i]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

export function toFolioError(err: unknown, path: string): FolioError {
  const e = err as { folioCode?: ErrorCode; details?: Record<string, unknown>; message?: string };
  if (e && typeof e.folioCode === 'string') return new FolioError(e.folioCode, e.message ?? 'search failed', { path, ...e.details });
  return fromFsError(err, path);
}

const pools = poolRegistry<RangeJob, RangeResult>(new URL('./search-worker.mjs', import.meta.url), () => ({ folioSearchWorker: true }), 'search', {
  foreground: true,
});

/** The search pool of `size` workers (search/warm-workers.ts warms the default one). */
export function pool(size: number) {
  return pools.get(size);
}

/** Start the default search workers now, so the first search does not wait for their boot. */
export function startSearchWorkers(): void {
  pools.get(defaultThreads()).spawnAll();
}

/** Stop all search workers (tests, shutdown). */
export async function closeSearchPools(): Promise<void> {
  await pools.closeAll();
}
