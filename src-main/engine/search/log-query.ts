/**
 * SQL over logs (issue 31): `SELECT level, count(*) FROM log GROUP BY level` over
 * the rows log-rows.mjs reads from one or more files (time, level, message, raw,
 * the keys of key=value pairs and JSON bodies). SQLite through better-sqlite3, a
 * virtual table fed by a generator: the rows stream from the file in chunks, the
 * file is never copied into a database (docs/BENCHMARKS.md, "query", for why
 * SQLite and not DuckDB).
 *
 * Each query runs in a worker thread of its own (log-query-worker.mjs): a server
 * is never blocked by a scan of a multi-GB log, and the query is cancelled, or
 * stopped at its time limit, by terminating that thread, wherever SQLite is.
 * A terminated thread runs none of its finally blocks, so the files are opened
 * here, read by the worker at positions, and closed here once it has exited.
 */
import { closeSync, openSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { ERROR_CODES, FolioError, type ErrorCode } from '../errors.ts';
import type { QueryAnswer, QueryJob } from './log-query-worker.mjs';

export const DEFAULT_QUERY_LIMIT = 1000;
export const MAX_QUERY_LIMIT = 100_000;
export const DEFAULT_QUERY_TIMEOUT_MS = 10 * 60_000;
/** The worker's heap: rows stream, so only the answer (limit rows) and SQLite's own sort/group state grow it. */
const WORKER_HEAP_MB = 256;

export interface LogQueryOptions {
  /** At most this many rows in the answer (default 1000); more makes `capped` true. */
  limit?: number;
  /** Stop the query after this long (default 10 min): timeout. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The worker's heap, MiB (default 256): too_large past it. */
  heapMb?: number;
}

export interface LogQueryResult {
  columns: string[];
  rows: (string | number | null)[][];
  capped: boolean;
  /** Per row, the line it came from, when the query selected the log's `line` (and `file`, over several files). */
  links: ({ path: string; line: number } | null)[] | null;
  /** The key columns the table had (from the files' first rows). */
  keyColumns: string[];
  elapsedMs: number;
}

/**
 * Run `sql` over `files` (absolute paths; `names` is what the `file` column shows,
 * default the paths). Errors: parse_error (the SQL does not compile), permission_denied
 * (not a single read-only SELECT), timeout, cancelled, too_large (out of memory), and
 * the file system's.
 */
export async function queryLogs(files: string[], sql: string, opts: LogQueryOptions & { names?: string[] } = {}): Promise<LogQueryResult> {
  const started = performance.now();
  const limit = opts.limit ?? DEFAULT_QUERY_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_QUERY_LIMIT)
    throw new FolioError('invalid_input', `limit must be an integer in 1..${MAX_QUERY_LIMIT}, got ${limit}`, { field: 'limit', value: limit });
  if (opts.signal?.aborted) throw new FolioError('cancelled', 'query cancelled', { sql });
  const names = opts.names ?? files;
  const fds = openAll(files);
  const job: QueryJob = { files, fds, names, sql, limit };
  const answer = await new Promise<QueryAnswer>((resolve, reject) => {
    let worker: Worker;
    try {
      worker = new Worker(new URL('./log-query-worker.mjs', import.meta.url), {
        workerData: { folioQueryWorker: true, job },
        resourceLimits: { maxOldGenerationSizeMb: opts.heapMb ?? WORKER_HEAP_MB },
      });
    } catch (err) {
      closeAll(fds);
      throw err;
    }
    live++;
    let settled = false;
    const stop = (err: FolioError) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      reject(err);
    };
    const timer = setTimeout(
      () => stop(new FolioError('timeout', `query stopped after ${opts.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS} ms`, { sql, timeout_ms: opts.timeoutMs })),
      opts.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS,
    );
    const onAbort = () => stop(new FolioError('cancelled', 'query cancelled', { sql }));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    worker.once('message', (m: { result?: QueryAnswer; error?: { code: string; message: string; details?: Record<string, unknown> } }) => {
      done();
      if (settled) return;
      settled = true;
      void worker.terminate();
      if (m.result) resolve(m.result);
      else reject(errorOf(m.error!, files));
    });
    worker.once('error', (err: Error & { code?: string }) => {
      done();
      stop(
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new FolioError('too_large', `the query ran out of memory (${opts.heapMb ?? WORKER_HEAP_MB} MiB): aggregate more, or select fewer rows`, { sql })
          : new FolioError('io_error', `query worker failed: ${err.message}`, { sql }),
      );
    });
    worker.once('exit', () => {
      live--;
      closeAll(fds);
      done();
      stop(new FolioError('io_error', 'query worker exited without an answer', { sql }));
    });
  });
  const at = answer.link;
  const links = at
    ? answer.rows.map((r) => {
        const line = r[at.line];
        const file = at.file >= 0 ? r[at.file] : names[0];
        const i = typeof file === 'string' ? names.indexOf(file) : -1;
        return typeof line === 'number' && i >= 0 ? { path: files[i]!, line } : null;
      })
    : null;
  return { columns: answer.columns, rows: answer.rows, capped: answer.capped, links, keyColumns: answer.keyColumns, elapsedMs: performance.now() - started };
}

let live = 0;

/** Query workers not yet exited (a cancelled or timed-out one counts until its thread is gone). */
export const liveQueryWorkers = () => live;

/** `files` opened for reading, or the file system's error as a FolioError (none left open). */
function openAll(files: string[]): number[] {
  const fds: number[] = [];
  try {
    for (const f of files) fds.push(openSync(f, 'r'));
    return fds;
  } catch (err) {
    closeAll(fds);
    const e = err as NodeJS.ErrnoException;
    throw errorOf({ code: e.code ?? 'io_error', message: e.message, details: { path: e.path } }, files);
  }
}

function closeAll(fds: number[]): void {
  for (const fd of fds) closeSync(fd);
}

const FS_CODES: Record<string, ErrorCode> = { ENOENT: 'not_found', EACCES: 'permission_denied', EISDIR: 'is_directory' };

function errorOf(e: { code: string; message: string; details?: Record<string, unknown> }, files: string[]): FolioError {
  const code: ErrorCode = FS_CODES[e.code] ?? ((ERROR_CODES as readonly string[]).includes(e.code) ? (e.code as ErrorCode) : 'io_error');
  return new FolioError(code, e.message, { ...(e.details ?? {}), ...(FS_CODES[e.code] ? { paths: files } : {}) });
}
