/**
 * SQL over logs (issue 31): `SELECT level, count(*) FROM log GROUP BY level` over
 * the rows log-rows.mjs reads from one or more files (time, level, message, raw,
 * the keys of key=value pairs and JSON bodies). SQLite through better-sqlite3, a
 * virtual table fed by a generator: the rows stream from the file in chunks, the
 * file is never copied into a database (docs/BENCHMARKS.md, "query", for why
 * SQLite and not DuckDB).
 *
 * Each query runs in a child process of its own (node running log-query-worker.mjs,
 * started with an IPC channel): a server is never blocked by a scan of a multi-GB
 * log, and the query is cancelled, or stopped at its time or memory limit, by
 * SIGKILL, wherever SQLite is. It was a worker thread, terminated; but V8 stops a
 * thread only when it next runs JS, and a query that loops inside SQLite (a
 * recursive CTE, a join of materialised subqueries) never does, while
 * better-sqlite3 has no sqlite3_interrupt (WiseLibs/better-sqlite3#568): the call
 * answered `cancelled` and the thread spun on, a CPU leak in a long-lived server.
 * A process costs more to start: a small query took 0.16 s in a thread and 0.43 s
 * in a process started for it (a node start), so one is kept started ahead
 * (`spare`, below): 0.09 s (docs/BENCHMARKS.md, "query", "A process per query").
 *
 * The files are opened here and passed to the child as extra stdio entries (its
 * fds 4, 5, …), so a path only this process can open (the agent door's pinned
 * /proc/self/fd/N) works, and a killed child closes its copies by dying; ours are
 * closed once it has exited. The child kills itself if this process dies first
 * (log-query-worker.mjs, a watchdog thread): an orphan would spin on too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES, FolioError, type ErrorCode } from '../errors.ts';
import type { QueryAnswer, QueryJob } from './log-query-worker.mjs';

export const DEFAULT_QUERY_LIMIT = 1000;
export const MAX_QUERY_LIMIT = 100_000;
export const DEFAULT_QUERY_TIMEOUT_MS = 10 * 60_000;
/** The query process's heap: rows stream, so only the answer (limit rows) and SQLite's own sort/group state grow it. */
const WORKER_HEAP_MB = 256;

export interface LogQueryOptions {
  /** At most this many rows in the answer (default 1000); more makes `capped` true. */
  limit?: number;
  /** Stop the query after this long (default 10 min): timeout. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The query process's heap, MiB (default 256): too_large past it. */
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
  const heapMb = opts.heapMb ?? WORKER_HEAP_MB;
  const warm = takeSpare(heapMb);
  // A cold child sees our fds as its stdio entries 4, 5, … (0–2 standard, 3 the IPC channel); a warm one reopens them.
  const job: QueryJob = warm ? { files, parentFds: fds, names, sql, limit } : { files, fds: fds.map((_, i) => CHILD_FIRST_FD + i), names, sql, limit };
  try {
    return await runJob(warm, job, fds, heapMb, files, names, sql, opts, started);
  } finally {
    // A little later, and not holding the event loop: a one-query process (the CLI) exits first and starts none.
    setTimeout(refillSpare, SPARE_DELAY_MS).unref();
  }
}

async function runJob(
  warm: QueryProcess | undefined,
  job: QueryJob,
  fds: number[],
  heapMb: number,
  files: string[],
  names: string[],
  sql: string,
  opts: LogQueryOptions,
  started: number,
): Promise<LogQueryResult> {
  const answer = await new Promise<QueryAnswer>((resolve, reject) => {
    let proc: QueryProcess;
    try {
      proc = warm ?? startQueryProcess(heapMb, fds);
    } catch (err) {
      closeAll(fds);
      throw err;
    }
    const child = proc.child;
    live.add(child);
    let settled = false;
    const stop = (err: FolioError) => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
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
    child.once('message', (m: { result?: QueryAnswer; error?: { code: string; message: string; details?: Record<string, unknown> } }) => {
      done();
      if (settled) return;
      settled = true;
      child.kill('SIGKILL'); // it exits by itself once the answer is out; nothing is left for it to do
      if (m.result) resolve(m.result);
      else reject(errorOf(m.error!, files));
    });
    child.once('error', (err: Error) => {
      done();
      stop(new FolioError('io_error', `query process failed: ${err.message}`, { sql }));
    });
    child.send(job);
    // 'close', not 'exit': stderr is read to its end, so an out-of-memory death is told from another.
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      live.delete(child);
      closeAll(fds);
      done();
      stop(
        /heap out of memory|heap limit/i.test(proc.stderr())
          ? new FolioError('too_large', `the query ran out of memory (${heapMb} MiB): aggregate more, or select fewer rows`, { sql })
          : new FolioError('io_error', `query process exited without an answer (${signal ?? `exit code ${code}`}): ${proc.stderr().trim().slice(-500)}`, {
              sql,
            }),
      );
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

const WORKER_PATH = fileURLToPath(new URL('./log-query-worker.mjs', import.meta.url));
/** What tells log-query-worker.mjs it was started to answer a query (and not imported). */
const CHILD_FLAG = '--folio-query-child';
const CHILD_FIRST_FD = 4;
const live = new Set<ChildProcess>();

interface QueryProcess {
  child: ChildProcess;
  /** The end of what it wrote to stderr (V8's out-of-memory report, a crash). */
  stderr: () => string;
}

/** node running log-query-worker.mjs with an IPC channel, `fds` as its fds 4, 5, …, waiting for its job. */
function startQueryProcess(heapMb: number, fds: number[]): QueryProcess {
  const child = spawn(process.execPath, [`--max-old-space-size=${heapMb}`, WORKER_PATH, CHILD_FLAG], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc', ...fds],
    serialization: 'advanced', // structured clone: Infinity and -0 survive, as they did from a worker
    // Electron's binary is node only when asked (the desktop app starts queries too).
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  });
  let tail = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => (tail = (tail + d).slice(-4000)));
  return { child, stderr: () => tail };
}

/**
 * One query process started ahead, after a query, for the next one (Linux only:
 * it cannot be given our fds at its start, so it reopens them through
 * /proc/<ppid>/fd/N, the same open files). A node start is most of a small
 * query's time (docs/BENCHMARKS.md, "A process per query"). It holds nothing
 * open and keeps no event loop alive; it dies with us (its watchdog). Started
 * 100 ms after a query ends, by an unref'd timer: `folio query` has exited by then.
 */
let spare: QueryProcess | undefined;
/** A child's stderr pipe (a net.Socket, which the engine does not import). */
type Refable = { ref(): void; unref(): void };
const SPARE_DELAY_MS = 100;
/** Linux with /proc mounted: a process started ahead can reopen our fds. */
const canReopenFds = process.platform === 'linux' && existsSync('/proc/self/fd');

/** The spare, ready, when the query wants the default heap; else undefined (and a spare that died is dropped). */
function takeSpare(heapMb: number): QueryProcess | undefined {
  const s = spare;
  if (!s || heapMb !== WORKER_HEAP_MB) return undefined;
  spare = undefined;
  if (s.child.exitCode !== null || s.child.signalCode !== null || !s.child.connected) return undefined;
  s.child.ref();
  s.child.channel?.ref();
  (s.child.stderr as unknown as Refable).ref();
  return s;
}

function refillSpare(): void {
  if (spare || !canReopenFds) return;
  let s: QueryProcess;
  try {
    s = startQueryProcess(WORKER_HEAP_MB, []);
  } catch {
    return; // the next query starts its own
  }
  s.child.unref();
  s.child.channel?.unref();
  (s.child.stderr as unknown as Refable).unref();
  s.child.on('error', () => {}); // a spare that failed to start is dropped when it closes
  s.child.once('close', () => {
    if (spare === s) spare = undefined;
  });
  spare = s;
}

/** The waiting spare's pid (for tests). */
export const spareQueryPid = () => spare?.child.pid;

/** Query processes not yet exited (a cancelled or timed-out one counts until it is gone). */
export const liveQueryWorkers = () => live.size;

/** Their pids (for tests that watch a killed one vanish). */
export const liveQueryPids = () => [...live].map((c) => c.pid).filter((p): p is number => p !== undefined);

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
