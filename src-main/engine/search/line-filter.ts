/**
 * A merge's `match` (merge.ts), run in a pool of worker threads a chunk of a file's
 * lines at a time (line-filter-worker.mjs reads them), never on the thread that
 * answers calls. A regex V8's linear-time engine
 * cannot run (the `i` flag the app sends by default, `u`, lookarounds such as the
 * filter form's AND and NOT: regex-engine.mjs) can backtrack for hours on one
 * line; run on the server's thread it would stop every other call with it. Here
 * each chunk has the search budget (search-budget.ts, 10 s by default): a worker
 * still in it then is terminated, whether or not anyone still waits for its
 * answer, and the caller gets `timeout` naming where the chunk began. A caller
 * that aborts stops waiting at once (`cancelled`); its chunk is left to finish or
 * to meet the budget.
 */
import { FolioError, fromFsError } from '../errors.ts';
import { poolRegistry } from '../index/worker-pool.ts';
import type { LineFilterAnswer, LineFilterJob } from './line-filter-worker.mjs';
import { useLinearFallback } from './regex-engine.mjs';
import { searchBudgetMs } from './search-budget.ts';

/** A checked `match`: its pattern and flags. */
export interface LineFilter {
  pattern: string;
  flags: string;
  /** ms a chunk may take (search-budget.ts) */
  budgetMs: number;
}

/** A chunk of a file's lines to test: from `start` (a line start) up to `maxLines` lines, or the first line end past `maxBytes`, or `end`. */
export interface LineChunk {
  path: string;
  start: number;
  end: number;
  maxLines: number;
  maxBytes: number;
}

/** Worker threads of the pool: two chunks of different calls run at once, and one runaway regex leaves the other worker free. */
const POOL_SIZE = 2;

const pools = poolRegistry<LineFilterJob, LineFilterAnswer>(
  new URL('./line-filter-worker.mjs', import.meta.url),
  () => ({ folioLineFilterWorker: true }),
  'line-filter',
  {
    foreground: true,
  },
);

/** Stop the line-filter workers (tests, shutdown). */
export async function closeLineFilterPools(): Promise<void> {
  await pools.closeAll();
}

/** The regex a line's text must match; invalid_input (field `match` or `match_flags`) when it is none. */
export function lineFilterOf(match: string, flags: string, budgetMs?: number): LineFilter {
  if (!/^[imsu]*$/.test(flags) || new Set(flags).size !== flags.length)
    throw new FolioError('invalid_input', `match flags must be some of imsu, each once: "${flags}"`, { field: 'match_flags', value: flags });
  // A pattern that backtracks without limit restarts on V8's linear engine where it can (regex-engine.mjs).
  useLinearFallback();
  try {
    new RegExp(match, flags);
  } catch (err) {
    throw new FolioError('invalid_input', `match is not a regular expression: ${err instanceof Error ? err.message : String(err)}`, {
      field: 'match',
      value: match,
    });
  }
  return { pattern: match, flags, budgetMs: searchBudgetMs(budgetMs) };
}

/** Where a chunk begins, for the error that says a regex ran out of time on it. */
export interface ChunkPlace {
  path: string;
  line: number;
}

/**
 * 1 for each line of `chunk` that `filter` matches, else 0, and the byte after the
 * last line tested, from a pool worker. `timeout` past the filter's budget,
 * `cancelled` as soon as `signal` aborts.
 */
export async function filterChunk(filter: LineFilter, chunk: LineChunk, where: ChunkPlace, signal?: AbortSignal): Promise<LineFilterAnswer> {
  const pool = pools.get(POOL_SIZE);
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw cancelledError(where);
    const { id, done } = pool.run({ pattern: filter.pattern, flags: filter.flags, ...chunk });
    let timedOut = false;
    // The budget holds whether or not the caller still waits: a runaway worker is stopped either way.
    const timer = setTimeout(() => {
      timedOut = true;
      pool.terminate(id);
    }, filter.budgetMs);
    timer.unref();
    const settled = () => clearTimeout(timer);
    done.then(settled, settled);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(cancelledError(where));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([done, aborted]);
    } catch (err) {
      if (timedOut) throw timeoutError(filter, where);
      if (err instanceof FolioError) throw err;
      // The file went away under the worker (removed, made unreadable): as a read of it would say.
      if (typeof (err as NodeJS.ErrnoException).code === 'string' && /^E[A-Z]+$/.test((err as NodeJS.ErrnoException).code!)) throw fromFsError(err, chunk.path);
      // Its worker was stopped for another call's runaway chunk: once more, on a fresh one.
      if (attempt === 0) continue;
      throw err;
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      done.catch(() => {});
      aborted.catch(() => {});
    }
  }
}

function cancelledError(where: ChunkPlace): FolioError {
  return new FolioError('cancelled', `merge cancelled at ${where.path} line ${where.line}`, { path: where.path, line: where.line });
}

function timeoutError(filter: LineFilter, where: ChunkPlace): FolioError {
  return new FolioError(
    'timeout',
    `match /${filter.pattern}/${filter.flags} ran past its ${filter.budgetMs} ms budget on the lines of ${where.path} from line ${where.line}: ` +
      'it backtracks (V8 runs a regex in linear time only without the i and u flags, lookarounds and backreferences); simplify it, or narrow from and to',
    { field: 'match', pattern: filter.pattern, flags: filter.flags, budget_ms: filter.budgetMs, path: where.path, line: where.line },
  );
}
