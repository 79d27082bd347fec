/**
 * Warm the search and histogram workers of the app's doors when a big file is
 * opened, so that the first filter or histogram runs at full speed. A fresh worker
 * thread scans its first tens of MiB of a log up to 10x slower than later ones (V8
 * compiling the scan loops; the first 128 MiB histogram slice took 485-1,346 ms
 * on fresh workers, ~100-200 ms warm, load 8), and spawning it costs tens of ms
 * more; the pools keep their workers for the process's life, so this is paid once,
 * right after the index of the first big file is complete (a filter or histogram
 * waits for that index anyway).
 *
 * Each warm-up job counts part of the opened file itself (its own time format and
 * line shapes, which is what the compiled code is specialized on): the histogram
 * with the file's buckets, the search with the level filter the app offers first.
 * A warm-up never delays a real scan: its jobs stop as soon as a search or histogram
 * starts (their cancel flag is foregroundScans' count of running scans), and the
 * real job then runs on code as warm as the warm-up got it; the workers left cold
 * are warmed once no scan has run for a moment (a filter's search stops the
 * histogram's warm-up too, and the histogram may be the next thing asked).
 */
import { closeSync } from 'node:fs';
import { defaultThreads } from '../index/builder.ts';
import { openForRead } from '../index/identity.ts';
import type { LineIndex } from '../index/line-index.ts';
import { onBigIndex } from '../index/store.ts';
import { foregroundScans } from '../index/worker-pool.ts';

/**
 * Bytes each warm-up job counts (per worker, each its own part of the file's start).
 * A fresh thread scans its first tens of MiB up to 10x slower than later ones (V8
 * optimizing and re-optimizing the scan loops, measured in 4 MiB steps on a loaded
 * 2-core machine); after 32 MiB in four jobs the first real 128 MiB slice took
 * 105-201 ms (64 MiB: 70-92 ms, 16 MiB: 207-309 ms, none: 485-1,346 ms, load 8), and
 * a smaller warm-up is more often done before the first click.
 */
const WARM_BYTES = 32 * 1024 * 1024;
/**
 * In this many jobs: the first real job after a single warm-up job deopted ("wrong
 * call target": each job makes new closures, and code compiled in one job inlined
 * that job's), so each worker sees a few.
 */
const WARM_STEPS = 4;
/** The regex the filter view's ERROR chip sends (filter-query.ts: a lookahead per term, so the scan's line mode). */
const WARM_PATTERN = '^(?=.*?(?:\\b(?:ERROR|ERR)\\b))';
/** An index handed out as the page loads is not warmed on before this (the first paint goes first). */
const AFTER_OPEN_MS = 300;

/** A warm-up cut short by a real scan is tried again once no scan has started for this long. */
const QUIET_MS = 300;
/** Tries per file opened, at most. */
const WARM_TRIES = 10;

let enabled = false;
let warming: Promise<void> | null = null;
/** Every worker was warm after a warm-up: the pools keep them (one that dies is replaced, and warms up on its own jobs). */
let allWarm = false;

/** Whether this process warms its scan workers on the first big file opened (the app's doors: yes). */
export function warmScanWorkersOnOpen(on: boolean): void {
  enabled = on;
  allWarm = false;
  onBigIndex(on ? heard : null);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Until no search or histogram has run or started for QUIET_MS. */
async function quiet(): Promise<void> {
  for (;;) {
    const started = Atomics.load(foregroundScans, 1);
    await sleep(QUIET_MS);
    if (Atomics.load(foregroundScans, 0) === 0 && Atomics.load(foregroundScans, 1) === started) return;
  }
}

function heard(index: LineIndex, justBuilt: boolean): void {
  if (warming || allWarm) return;
  warming = (async () => {
    // An index at hand at once is handed out as the page loads; a build took longer than the first paint.
    if (!justBuilt) await sleep(AFTER_OPEN_MS);
    for (let i = 0; i < WARM_TRIES && enabled; i++) {
      if (i > 0) await quiet(); // the last try gave way to a scan
      if (enabled && (allWarm = await warmScanWorkers(index))) return;
    }
  })()
    .catch(() => undefined) // a warm-up that fails only costs speed
    .finally(() => (warming = null));
}

/**
 * Spawn the default-sized search and histogram pools and run warm-up jobs on each
 * cold worker; true when every worker is warm after them (or the file has no
 * timestamps for the histogram's), false when a real scan cut them short.
 */
export async function warmScanWorkers(index: LineIndex, threads = defaultThreads()): Promise<boolean> {
  const [{ histogramPool, warmHistogramJobs }, { pool: searchPool, warmSearchJobs }] = await Promise.all([import('./histogram.ts'), import('./search.ts')]);
  const hp = histogramPool(threads);
  const sp = searchPool(threads);
  const ranges = warmRanges(index, threads * WARM_STEPS);
  let histogramJobs: ReturnType<typeof warmHistogramJobs> = [];
  if (hp.cold) {
    const fd = openForRead(index.path);
    try {
      histogramJobs = warmHistogramJobs(index, fd, ranges);
    } catch {
      // no timestamps (or not an ASCII-compatible encoding): no histogram to warm for
    } finally {
      closeSync(fd);
    }
  }
  const searchJobs = sp.cold ? warmSearchJobs(index, ranges, WARM_PATTERN) : [];
  // Worker i: its own WARM_STEPS ranges, one after another.
  const mine =
    <J>(jobs: J[]) =>
    (i: number) =>
      jobs.slice(i * WARM_STEPS, (i + 1) * WARM_STEPS);
  const stopped = (r: { cancelled: boolean }) => r.cancelled;
  // One pool after the other (and one worker at a time, worker-pool.ts): the warm-up
  // takes one core, the other stays for the browser and the server's main thread.
  // The filter first (the view people reach for first); the histogram's follow.
  if (searchJobs.length > 0) await sp.warm(mine(searchJobs), stopped);
  if (histogramJobs.length > 0) await hp.warm(mine(histogramJobs), stopped);
  return (histogramJobs.length === 0 || !hp.cold) && !sp.cold;
}

/** `count` ranges of whole lines from the file's start, each about WARM_BYTES / WARM_STEPS. */
function warmRanges(index: LineIndex, count: number): { start: number; end: number }[] {
  const ranges: { start: number; end: number }[] = [];
  let start = 0;
  for (let i = 0; i < count && start < index.size; i++) {
    const next = index.lineStart(index.lineAt(Math.min(index.size - 1, start + WARM_BYTES / WARM_STEPS)) + 1);
    const end = next < 0 ? index.size : next;
    if (end <= start) break;
    ranges.push({ start, end });
    start = end;
  }
  return ranges;
}

/** Settles once no warm-up is under way (one started on open may still be waiting for quiet): tests wait on it. */
export function warmUpSettled(): Promise<void> {
  return warming ?? Promise.resolve();
}
