/**
 * Where callers get a LineIndex: the in-memory map of this process, then the
 * persisted cache, then a fresh build. An index handed out is always fresh: a file
 * that grew is extended (only new bytes scanned), one that shrank or changed is
 * rebuilt. Concurrent callers for the same file share one build.
 */

import { startBuild, type BuildOptions, type IndexBuild } from './builder.ts';
import { dropIndex, loadIndex, saveIndex } from './cache.ts';
import { appendIntentOf } from './append-limit.ts';
import { edgeHashes, statRegularFile, type FileIdentity } from './identity.ts';
import { mountedIndex } from './byte-source.ts';
import { LineIndex } from './line-index.ts';
import { FolioError } from '../errors.ts';

/** Files at least this big get their index persisted (smaller ones rebuild in a few ms). */
const PERSIST_MIN_BYTES = 1024 * 1024;

interface Entry {
  index: LineIndex;
  build?: IndexBuild;
}

const entries = new Map<string, Entry>();

/** An index handed out at least this big counts as a big file opened (onBigIndex). */
const BIG_INDEX_BYTES = 64 * 1024 * 1024;
let bigIndexListener: ((index: LineIndex, justBuilt: boolean) => void) | null = null;

/**
 * Hear of every complete index of a big file handed out (at once when fresh, when
 * its build is done otherwise: `justBuilt`): search/warm-workers.ts warms the scan
 * workers of the app's doors with it. Called often (every read of the file): it
 * must be cheap.
 */
export function onBigIndex(listener: ((index: LineIndex, justBuilt: boolean) => void) | null): void {
  bigIndexListener = listener;
}

function heardBig(index: LineIndex, justBuilt: boolean): void {
  if (bigIndexListener && index.complete && index.size >= BIG_INDEX_BYTES) bigIndexListener(index, justBuilt);
}

export interface OpenOptions extends BuildOptions {
  /** Skip the persisted cache (benchmarks, tests). */
  noCache?: boolean;
}

/** extend(), with an index found to disagree with its file (a typed conflict) taken as stale. */
function extended(index: LineIndex, now: FileIdentity): ReturnType<LineIndex['extend']> {
  try {
    return index.extend(now);
  } catch (err) {
    if (err instanceof FolioError && err.code === 'conflict') return 'rebuild';
    throw err;
  }
}

function freshFromMemoryOrDisk(path: string, opts: OpenOptions): LineIndex | undefined {
  const now = statRegularFile(path);
  const mem = entries.get(now.path);
  if (mem && !mem.build) {
    const was = mem.index.size;
    const how = extended(mem.index, now);
    if (how === 'extended') persistGrown(mem.index, was);
    if (how !== 'rebuild') return mem.index;
    entries.delete(now.path);
  }
  if (opts.noCache || mem?.build) return undefined;
  const started = performance.now();
  const cached = loadIndex(now.path, now);
  // Never trusted past what it covers: a file shorter than the entry is another version.
  if (!cached || now.size < cached.size) return undefined;
  if (now.size === cached.size) {
    // Same size: everything must match, including the edges, or it is stale.
    if (now.mtimeNs !== cached.identity.mtimeNs) return undefined;
    const edges = edgeHashes(now.path, now.size);
    if (edges.head !== cached.head || edges.tail !== cached.tail) return undefined;
    cached.identity = now; // the ctime of now, as extend() keeps it
  } else {
    const was = cached.size;
    if (extended(cached, now) === 'rebuild') return undefined;
    persistGrown(cached, was);
  }
  cached.fromCache = true;
  cached.buildMs = performance.now() - started;
  entries.set(now.path, { index: cached });
  return cached;
}

/**
 * Start (or join) indexing of `path`. The returned build's `index` answers queries
 * at once (partial, scanning on demand) and `done` settles with the complete index.
 */
export function startIndex(path: string, opts: OpenOptions = {}): IndexBuild {
  const mounted = mountedIndex(path);
  const ready = mounted ?? freshFromMemoryOrDisk(path, opts);
  if (ready && !mounted) heardBig(ready, false); // a remote value's bytes are not in a file the workers can read
  if (ready) return { index: ready, done: Promise.resolve(ready), progress: () => ({ bytesDone: ready.size, totalBytes: ready.size }), cancel: () => {} };
  const id = statRegularFile(path);
  const running = entries.get(id.path)?.build;
  if (running) return running;
  const build = startBuild(id.path, opts);
  const entry: Entry = { index: build.index, build };
  entries.set(id.path, entry);
  build.done.then(
    (index) => {
      delete entry.build;
      heardBig(index, true);
      if (!opts.noCache) persist(index);
    },
    () => {
      if (entries.get(id.path) === entry) entries.delete(id.path);
    },
  );
  return build;
}

/** Install an index built elsewhere (an atomic rewrite builds the new file's index while writing it). */
export function rememberIndex(index: LineIndex): void {
  entries.set(index.path, { index });
  persist(index);
}

/**
 * Save `index` for the next process, only if it describes the file as it is now,
 * at rest: the same version (size, mtime, ctime) and no append intent beside it.
 * An index taken during an append, or from a stat that raced a settle, would name
 * bytes the file may not keep; the next process would trust it (cache.ts checks
 * only the edges) and read lines off the wrong offsets.
 */
function persist(index: LineIndex): void {
  if (index.size < PERSIST_MIN_BYTES || !index.complete) return;
  try {
    if (appendIntentOf(index.path)) return;
    const now = statRegularFile(index.path);
    const id = index.identity;
    if (now.dev !== id.dev || now.ino !== id.ino || now.size !== id.size || now.mtimeNs !== id.mtimeNs || now.ctimeNs !== id.ctimeNs) return;
    saveIndex(index);
  } catch {
    // A cache that cannot be written only costs speed next time.
  }
}

/**
 * Save an index extended over at least PERSIST_MIN_BYTES of new bytes: the next
 * process then scans only what comes after (a log that grows by big appends would
 * otherwise be rescanned from its last full build by every process).
 */
function persistGrown(index: LineIndex, sizeBefore: number): void {
  if (index.size - sizeBefore >= PERSIST_MIN_BYTES) persist(index);
}

/** Forget the index of `path`, in memory and on disk: it disagreed with the file. */
export function dropStaleIndex(path: string): void {
  for (const [key, e] of entries) if (e.index.path === path && !e.build) entries.delete(key);
  try {
    dropIndex(path);
  } catch {
    // nothing cached
  }
}

LineIndex.onStale = (index) => dropStaleIndex(index.path);

/** The complete, fresh index of `path`. */
export async function openIndex(path: string, opts: OpenOptions = {}): Promise<LineIndex> {
  return startIndex(path, opts).done;
}

/** Forget every in-memory index (tests) and optionally the persisted one of `path`. */
export function forgetIndexes(path?: string): void {
  entries.clear();
  if (path) dropIndex(statRegularFile(path).path);
}

/**
 * The line count of `path` when a fresh, complete index of it is already at hand
 * (in memory, or in the persisted cache), else null: never starts a build, so a
 * listing of many files stays as cheap as a stat of each.
 */
export function knownLineCount(path: string): number | null {
  try {
    const index = freshFromMemoryOrDisk(path, {});
    if (index?.complete) return index.lineCount;
    // Opened under another name (an agent's pinned /proc/self/fd path): the same file, unchanged.
    const now = statRegularFile(path);
    for (const { index: other, build } of entries.values()) {
      const id = other.identity;
      if (!build && other.complete && id.dev === now.dev && id.ino === now.ino && id.size === now.size && id.mtimeNs === now.mtimeNs) return other.lineCount;
    }
    return null;
  } catch {
    return null;
  }
}
