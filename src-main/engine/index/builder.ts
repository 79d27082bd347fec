/**
 * Builds a LineIndex with a worker_threads pool (one worker per core). The file is
 * split at 64 KiB block boundaries into one piece per worker; each worker scans its
 * piece with the WASM kernels, writing per-block newline counts straight into a
 * SharedArrayBuffer and its progress into a shared counter. The main thread:
 *  - polls progress (bytes done / total) for the caller,
 *  - feeds the contiguous finished prefix into the live index, so queries on the
 *    start of a 4 GiB file are answered before the build ends (and queries past the
 *    prefix scan on demand, see LineIndex),
 *  - stitches UTF-8 validation across splits: a piece that starts inside a multi-byte
 *    sequence skips its (at most 3) leading continuation bytes; the previous piece
 *    reports its incomplete tail; the few bytes at the junction are validated (and
 *    counted: ill-formed sequences, multi-byte characters) here.
 * Cancellation sets a shared flag every worker checks once per 256 KiB chunk.
 */
import { closeSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { BlockTable, blockCount } from './block-table.ts';
import { FolioError, fromFsError } from '../errors.ts';
import { edgeHashes, openForRead, statRegularFile, type FileIdentity } from './identity.ts';
import { BLOCK_SIZE, kernelModule } from '../kernels/kernels.mjs';
import { scanRange, type ScanResult } from './index-worker.mjs';
import { firstBytesOf, lastUnitOf, LineIndex, type IndexFacts } from './line-index.ts';
import { localKernels } from '../kernels/local-kernels.ts';
import { layoutOf, LAYOUT_SAMPLE_BYTES, type TextLayout } from './layout.ts';
import { poolRegistry } from './worker-pool.ts';

export interface IndexProgress {
  bytesDone: number;
  totalBytes: number;
}

export interface BuildOptions {
  /** Worker threads; 0 scans in the calling thread. Default: one per core. */
  threads?: number;
  /** Files smaller than this are scanned in the calling thread (worker start-up costs more). */
  smallFileBytes?: number;
  signal?: AbortSignal;
  onProgress?: (p: IndexProgress) => void;
  /** How often progress is polled, ms. */
  progressIntervalMs?: number;
  /**
   * Background work (the app indexing the file it is painting): worker threads at
   * nice 10, so the first lines and requests get the cores first. Default: the
   * process's setting (indexInBackground), normal priority unless a door changed it:
   * a command someone waits for (the CLI, an agent's call) must not starve when the
   * machine is busy.
   */
  background?: boolean;
}

export interface IndexBuild {
  /** The live index: partial until `done` settles, then complete. */
  index: LineIndex;
  done: Promise<LineIndex>;
  progress(): IndexProgress;
  cancel(): void;
}

const SMALL_FILE_BYTES = 8 * 1024 * 1024;

export function defaultThreads(): number {
  return Math.max(1, availableParallelism());
}

/** What the build knows of the file before scanning it: who it is, its edges, its text layout. */
interface FileStart {
  identity: FileIdentity;
  head: string;
  tail: string;
  layout: TextLayout;
  lastUnit: number;
  firstBytes: number[];
}

/** One build's shared state: the file, its split into pieces, and the counters the scanners fill. */
interface BuildPlan {
  file: FileStart;
  started: number;
  blocks: number;
  pieces: number;
  /** piece i scans [bounds[i], bounds[i + 1]) */
  bounds: number[];
  counts: Uint32Array;
  progressArr: Int32Array;
  cancelFlag: Int32Array;
  /** the live index: partial until the build finishes */
  live: LineIndex;
}

/** Start indexing `path`. Typed errors (not_found, permission_denied, is_directory, not_regular_file) throw here. */
export function startBuild(path: string, opts: BuildOptions = {}): IndexBuild {
  const started = performance.now();
  const file = fileStartOf(path);
  const { identity, layout } = file;
  const blocks = blockCount(identity.size);
  const live = new LineIndex({
    ...file,
    table: new BlockTable(blocks),
    indexedBytes: 0,
    newlines: 0,
    facts: { cr: 0, crlf: 0, firstInvalid: null, pendingUtf8: 0, utf8: layout === 'utf-8' ? { invalid: 0, multibyte: 0 } : null },
  });
  const threads = opts.threads ?? defaultThreads();
  const inThread = threads === 0 || identity.size < (opts.smallFileBytes ?? SMALL_FILE_BYTES);
  const pieces = inThread ? 1 : Math.min(threads, blocks);
  const plan: BuildPlan = {
    file,
    started,
    blocks,
    pieces,
    bounds: Array.from({ length: pieces + 1 }, (_, i) => Math.min(identity.size, Math.floor((i * blocks) / pieces) * BLOCK_SIZE)),
    counts: new Uint32Array(new SharedArrayBuffer(blocks * 4)),
    progressArr: new Int32Array(new SharedArrayBuffer(4 * pieces)),
    cancelFlag: new Int32Array(new SharedArrayBuffer(4)),
    live,
  };
  return inThread ? buildInThread(plan, opts) : buildInWorkers(plan, threads, opts);
}

function fileStartOf(path: string): FileStart {
  const identity = statRegularFile(path);
  const { head, tail } = edgeHashes(identity.path, identity.size);
  const fd = openForRead(identity.path);
  try {
    const sample = Buffer.alloc(Math.min(identity.size, LAYOUT_SAMPLE_BYTES));
    const layout = layoutOf(sample.subarray(0, readSync(fd, sample, 0, sample.length, 0)));
    return { identity, head, tail, layout, lastUnit: lastUnitOf(fd, identity.size, layout), firstBytes: firstBytesOf(fd, identity.size) };
  } finally {
    closeSync(fd);
  }
}

function progressOf({ pieces, progressArr, bounds, file }: BuildPlan): IndexProgress {
  let bytesDone = 0;
  for (let i = 0; i < pieces; i++) {
    bytesDone += Math.min(Atomics.load(progressArr, i) * BLOCK_SIZE, bounds[i + 1]! - bounds[i]!);
  }
  return { bytesDone, totalBytes: file.identity.size };
}

/** Blocks done contiguously from the start of the file. */
function contiguousBlocksOf({ pieces, progressArr, bounds }: BuildPlan): number {
  let done = 0;
  for (let i = 0; i < pieces; i++) {
    const pieceBlocks = Math.ceil((bounds[i + 1]! - bounds[i]!) / BLOCK_SIZE);
    const p = Math.min(Atomics.load(progressArr, i), pieceBlocks);
    done += p;
    if (p < pieceBlocks) break;
  }
  return done;
}

/** The scanners' results as the complete index, adopted by the live one. */
function finishedIndex(plan: BuildPlan, results: ScanResult[]): LineIndex {
  const { file, bounds, live } = plan;
  const { identity, layout } = file;
  if (results.some((r) => r.cancelled)) throw new FolioError('cancelled', `indexing cancelled: ${identity.path}`, { path: identity.path });
  const facts: IndexFacts = { cr: 0, crlf: 0, firstInvalid: null, pendingUtf8: 0, utf8: null };
  let newlines = 0;
  for (const r of results) {
    newlines += r.newlines;
    facts.cr += r.cr;
    facts.crlf += r.crlf;
  }
  if (layout === 'utf-8') {
    const across = utf8Across(identity.path, bounds, results);
    facts.firstInvalid = across.firstInvalid;
    facts.utf8 = { invalid: across.invalid, multibyte: across.multibyte };
  } else {
    facts.firstInvalid = firstOf(results);
  }
  const done = new LineIndex({
    ...file,
    table: BlockTable.fromCounts(plan.counts, plan.blocks),
    indexedBytes: identity.size,
    newlines,
    facts,
  });
  done.buildMs = performance.now() - plan.started;
  live.adopt(done);
  live.buildMs = done.buildMs;
  return live;
}

/** A small file (or threads: 0): one scan on this thread, still answered asynchronously. */
function buildInThread(plan: BuildPlan, opts: BuildOptions): IndexBuild {
  const { file, counts, progressArr, cancelFlag } = plan;
  const { identity, layout } = file;
  const done = new Promise<LineIndex>((resolve, reject) => {
    // Still async for the caller: a synchronous scan of < 8 MiB takes a few ms.
    setImmediate(() => {
      try {
        if (opts.signal?.aborted) Atomics.store(cancelFlag, 0, 1);
        const kfd = openForRead(identity.path);
        try {
          const r = scanRange({
            kernels: localKernels(),
            layout,
            fd: kfd,
            start: 0,
            end: identity.size,
            isLast: true,
            counts,
            progress: progressArr,
            cancel: cancelFlag,
          });
          resolve(finishedIndex(plan, [r]));
          opts.onProgress?.(progressOf(plan));
        } finally {
          closeSync(kfd);
        }
      } catch (err) {
        reject(fromFsError(err, identity.path));
      }
    });
  });
  return { index: plan.live, done, progress: () => progressOf(plan), cancel: () => Atomics.store(cancelFlag, 0, 1) };
}

/** One piece per worker of the pool; the live index absorbs the counts done so far every progressIntervalMs. */
function buildInWorkers(plan: BuildPlan, threads: number, opts: BuildOptions): IndexBuild {
  const { file, bounds, counts, progressArr, cancelFlag, pieces, live } = plan;
  const { identity, layout } = file;
  const onAbort = () => Atomics.store(cancelFlag, 0, 1);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  const timer = setInterval(() => {
    live.absorbCounts(counts, contiguousBlocksOf(plan));
    opts.onProgress?.(progressOf(plan));
  }, opts.progressIntervalMs ?? 50);
  const jobs = Array.from(
    { length: pieces },
    (_, i) =>
      pool(threads, opts.background ?? backgroundByDefault).run({
        path: identity.path,
        layout,
        start: bounds[i]!,
        end: bounds[i + 1]!,
        isLast: i === pieces - 1,
        counts: counts.buffer as SharedArrayBuffer,
        progress: progressArr.buffer as SharedArrayBuffer,
        slot: i,
        cancel: cancelFlag.buffer as SharedArrayBuffer,
      }).done,
  );
  const done = Promise.all(jobs)
    .then((results) => {
      const index = finishedIndex(plan, results);
      opts.onProgress?.(progressOf(plan));
      return index;
    })
    .catch((err: unknown) => {
      throw err instanceof FolioError ? err : fromFsError(err, identity.path);
    })
    .finally(() => {
      clearInterval(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    });
  return { index: live, done, progress: () => progressOf(plan), cancel: onAbort };
}

/** Build and wait. */
export async function buildIndex(path: string, opts: BuildOptions = {}): Promise<LineIndex> {
  return startBuild(path, opts).done;
}

/**
 * UTF-8 facts of the whole file from per-piece results: the counts of every piece
 * and junction, and the first invalid offset in file order: the junction before
 * piece i (previous piece's incomplete tail + this piece's skipped continuation
 * bytes, which must form exactly one whole character), then piece i's own first error.
 */
function utf8Across(path: string, bounds: number[], results: ScanResult[]): { firstInvalid: number | null; invalid: number; multibyte: number } {
  const k = localKernels();
  let firstInvalid: number | null = null;
  let invalid = 0;
  let multibyte = 0;
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    if (i > 0) {
      const pending = results[i - 1]!.pending;
      if (pending > 0 || r.skipped > 0) {
        const from = bounds[i]! - pending;
        const len = pending + r.skipped;
        const fd = openForRead(path);
        try {
          readSync(fd, k.input, 0, len, from);
        } finally {
          closeSync(fd);
        }
        const s = k.utf8Stream();
        s.feed(len);
        const bad = s.finish();
        if (bad >= 0 && firstInvalid === null) firstInvalid = from + bad;
        invalid += s.counts().invalid;
        multibyte += s.counts().multibyte;
      }
    }
    if (r.firstInvalid >= 0 && firstInvalid === null) firstInvalid = r.firstInvalid;
    invalid += r.invalid;
    multibyte += r.multibyte;
  }
  return { firstInvalid, invalid, multibyte };
}

/** UTF-16 pieces check their own junctions (see scanRange16): the first error is the smallest. */
function firstOf(results: ScanResult[]): number | null {
  const found = results.map((r) => r.firstInvalid).filter((o) => o >= 0);
  return found.length ? Math.min(...found) : null;
}

// ---------------------------------------------------------------------------

interface Job {
  path: string;
  layout: TextLayout;
  start: number;
  end: number;
  isLast: boolean;
  counts: SharedArrayBuffer;
  progress: SharedArrayBuffer;
  slot: number;
  cancel: SharedArrayBuffer;
}

/*
 * Two kinds of pool: a thread cannot raise its priority back once lowered (Linux
 * needs CAP_SYS_NICE for that), so background threads are their own pool.
 */
const pools = poolRegistry<Job, ScanResult>(
  new URL('./index-worker.mjs', import.meta.url),
  () => ({ folioIndexWorker: true, module: kernelModule() }),
  'index',
);
const backgroundPools = poolRegistry<Job, ScanResult>(
  new URL('./index-worker.mjs', import.meta.url),
  () => ({ folioIndexWorker: true, module: kernelModule(), background: true }),
  'index',
);

let backgroundByDefault = false;

/** Whether index builds of this process are background work by default (the app's doors: true; see BuildOptions.background). */
export function indexInBackground(on: boolean): void {
  backgroundByDefault = on;
}

/** Start this process's default index workers now, so the first build does not wait for their boot. */
export function startIndexWorkers(): void {
  defaultIndexPool().spawnAll();
}

/** The pool a build with default options uses. */
export function defaultIndexPool() {
  return pool(defaultThreads(), backgroundByDefault);
}

function pool(size: number, background: boolean) {
  return (background ? backgroundPools : pools).get(size);
}

/** Stop all index workers (tests, shutdown). */
export async function closeIndexPools(): Promise<void> {
  await Promise.all([pools.closeAll(), backgroundPools.closeAll()]);
}
