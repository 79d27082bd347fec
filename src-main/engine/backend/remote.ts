/**
 * The layer every non-local backend goes through: open a remote value (stat, its
 * line index from the sidecar or built by streaming), then run the engine's own
 * read modes, file info and search over it, and map upserts onto one conditional
 * Backend.replace. Nothing here knows which backend it talks to.
 *
 * How the engine's steps read remote bytes: the version's ByteSource
 * (source/ranged-source.ts: ranged reads of that version, read-ahead, a bounded
 * cache) is mounted under the locator (index/byte-source.ts) for the call chain.
 * - Whole-value steps (outline, token maps, JSON, quote scans, search and its
 *   workers) await the source: one forward pass, never re-run.
 * - Windowed steps (a read mode's window, snapping, hashlines, a precondition's
 *   hash) stay synchronous over the bytes the source holds; one that needs bytes
 *   not held throws BytesMissing, runOn fetches them (twice as many each time a
 *   miss follows on from the last fetch) and runs the step again. Those steps are
 *   pure until they answer, so a rerun is only compute (a window of a big value
 *   costs 1-3 ranged reads). The reruns are bounded (MAX_STEP_RUNS, and half the
 *   cache: past it a step would evict its own bytes): past either the step fails
 *   with too_large instead of looping.
 *
 * A value that changed between its index and a read (the ranged read of the
 * indexed version fails with precondition_failed) is opened again (new stat, new
 * index) and the read retried once; a second change in a row is the error.
 */
import { isUtf8 } from 'node:buffer';
import { FolioError } from '../errors.ts';
import { BytesMissing, withMountedSource } from '../index/byte-source.ts';
import { factsOfIndex, type FileFacts } from '../read/file-facts.ts';
import { readFrom, type ReadOptions, type ReadRequest, type ReadResult } from '../read/read.ts';
import { fileInfoOf, type FileInfoResult } from '../read/file-info.ts';
import { searchFile, type SearchOptions, type SearchResult } from '../search/search.ts';
import { backendFor } from './registry.ts';
import { buildRemoteIndex, loadRemoteIndex, remoteIdentity, saveRemoteIndex, sourceOfVersion, type RemoteIndexProgress } from './remote-index.ts';
import type { RangedSource } from '../source/ranged-source.ts';
import { indexFromBytes, indexToBytes } from '../index/cache.ts';
import { EDGE_BYTES } from '../index/identity.ts';
import { BLOCK_SIZE } from '../kernels/kernels.mjs';
import { LineIndex } from '../index/line-index.ts';
import { BlockTable, blockCount } from '../index/block-table.ts';
import { layoutOf, LAYOUT_SAMPLE_BYTES } from '../index/layout.ts';
import type { Backend, BackendVersion } from './types.ts';

export { isRemoteLocator } from './locator.ts';

/** One version of a remote value, opened: its backend, index and fetched bytes. */
export interface RemoteValue {
  backend: Backend;
  version: BackendVersion;
  index: LineIndex;
  /** its bytes: what every step reads them through */
  source: RangedSource;
  /** how the index came: read from the sidecar, or built by streaming now */
  indexFrom: 'sidecar' | 'stream' | 'memory' | 'extended';
}

const opened = new Map<string, RemoteValue>();

export interface OpenRemoteOptions {
  onProgress?: (p: RemoteIndexProgress) => void;
}

/** Open `locator` at its current version (index from memory, the sidecar, or a stream). */
export async function openRemote(locator: string, opts: OpenRemoteOptions = {}): Promise<RemoteValue> {
  const backend = backendFor(locator);
  const version = await backend.stat();
  return openVersion(backend, version, opts);
}

/**
 * Versions being indexed now, by locator and token: calls that open one at once (the
 * app's file_info and first window, the page's own first window) share its one
 * stream instead of each streaming the value.
 */
const opening = new Map<string, Promise<RemoteValue>>();
/** How far the streams of `opening` are, by the same key: what a head read reports while the index builds. */
const streamed = new Map<string, RemoteIndexProgress>();
/**
 * The first bytes head reads fetched, by the same key, until the index is built: the
 * app asks the head again for the build's progress, and that costs a stat, not a
 * second ranged read.
 */
const heads = new Map<string, RangedSource>();

async function openVersion(backend: Backend, version: BackendVersion, opts: OpenRemoteOptions): Promise<RemoteValue> {
  const known = opened.get(backend.locator);
  if (known && known.version.token === version.token) return { ...known, indexFrom: 'memory' };
  const key = `${backend.locator}\n${version.token}`;
  const pending = opening.get(key);
  if (pending) return pending;
  streamed.set(key, { bytesDone: 0, totalBytes: version.size });
  const onProgress = (p: RemoteIndexProgress) => {
    streamed.set(key, p);
    opts.onProgress?.(p);
  };
  const indexing = indexVersion(backend, version, known, { onProgress }).finally(() => {
    opening.delete(key);
    streamed.delete(key);
    heads.delete(key);
  });
  opening.set(key, indexing);
  return indexing;
}

async function indexVersion(backend: Backend, version: BackendVersion, known: RemoteValue | undefined, opts: OpenRemoteOptions): Promise<RemoteValue> {
  const t0 = performance.now();
  let index = await loadRemoteIndex(backend, version);
  let indexFrom: RemoteValue['indexFrom'] = 'sidecar';
  if (!index && known && version.size > known.version.size) {
    index = await extendedIndex(known, backend, version);
    if (index) {
      indexFrom = 'extended';
      await saveRemoteIndex(backend, index).catch(() => undefined);
    }
  }
  if (!index) {
    index = await buildRemoteIndex(backend, version, opts.onProgress);
    indexFrom = 'stream';
    // Another process opening this version reads the index instead of the value; a
    // backend that cannot keep it (no rights) only costs the next process a stream.
    await saveRemoteIndex(backend, index).catch(() => undefined);
  }
  index.buildMs = performance.now() - t0;
  index.fromCache = indexFrom === 'sidecar';
  const value: RemoteValue = { backend, version, index, source: sourceOfVersion(backend, version), indexFrom };
  opened.set(backend.locator, value);
  return value;
}

/** Appends up to this size extend the index of the version before; bigger ones stream the value again. */
const MAX_EXTEND_BYTES = 32 * 1024 * 1024;

/**
 * The index of `version` made from `known`'s (an older version of the same value)
 * when the value only grew: LineIndex.extend(), as for a growing file, over the
 * new version's bytes (its first and last 64 KiB of the old size must be as they
 * were; then only the bytes after the last whole block are scanned). Undefined if
 * it was rewritten (or grew too much): then the value is streamed again.
 */
async function extendedIndex(known: RemoteValue, backend: Backend, version: BackendVersion): Promise<LineIndex | undefined> {
  const old = known.index;
  if (version.size - old.size > MAX_EXTEND_BYTES || !old.head || old.layout !== 'utf-8') return undefined;
  // A copy: calls on the old version may still be using its index.
  const copy = indexFromBytes(indexToBytes(old, backend.locator), backend.locator, backend.locator, () => true);
  if (!copy) return undefined;
  const source = sourceOfVersion(backend, version);
  try {
    // What extend() reads, in two ranged reads: the head edge, and from the old tail edge on.
    await source.fetch(0, Math.min(EDGE_BYTES, old.size));
    await source.fetch(Math.max(0, Math.floor(old.size / BLOCK_SIZE) * BLOCK_SIZE - EDGE_BYTES), version.size);
    const now = remoteIdentity(backend.locator, version);
    const verdict = await runOn({ ...known, version, source, index: copy }, () => copy.extend(now));
    return verdict === 'extended' ? copy : undefined;
  } catch (err) {
    if (err instanceof FolioError && err.code === 'precondition_failed') throw err;
    return undefined;
  }
}

/** Forget what this process knows of remote values (tests; a server dropping state). */
export function forgetRemote(locator?: string): void {
  if (locator === undefined) opened.clear();
  else opened.delete(locator);
}

/** Smallest ranged read a miss sends: a window usually needs its block and the next. */
const MIN_FETCH_BYTES = 128 * 1024;
/**
 * Runs a windowed step may take at most. A window misses once or twice; a read of
 * many scattered line ranges once per range. A step that misses more reads like a
 * whole-value step, which must await the source instead (source/byte-source.ts).
 */
export const MAX_STEP_RUNS = 64;

/**
 * Run `step` (the engine's pure synchronous pieces, maybe behind an await) over the
 * value's bytes, fetching what it lacks and running it again: a bounded number of
 * times (see the header).
 */
export function runOn<T>(v: RemoteValue, step: () => T | Promise<T>): Promise<T> {
  return runMounted(v.backend.locator, v.source, () => v.index, step);
}

/** runOn's loop: `indexOf` gives the index each run starts from. */
async function runMounted<T>(locator: string, source: RangedSource, indexOf: () => LineIndex, step: () => T | Promise<T>): Promise<T> {
  let fetchBytes = MIN_FETCH_BYTES;
  let fetchedEnd = -1;
  /** bytes the step's misses asked for (not what was read ahead with them) */
  let needed = 0;
  for (let run = 1; run <= MAX_STEP_RUNS; run++) {
    try {
      return await withMountedSource(locator, source, indexOf(), step);
    } catch (err) {
      if (!(err instanceof BytesMissing)) throw err;
      needed += err.end - err.start;
      // Past half the cache the step's own first bytes may be dropped before its next run.
      if (needed > source.maxCachedBytes / 2) throw stepTooBig(locator, run, needed, source.maxCachedBytes);
      // A miss just past the last fetch is a long window read on: fetch twice as much (log runs, not one per 128 KiB).
      fetchBytes = err.start === fetchedEnd ? fetchBytes * 2 : MIN_FETCH_BYTES;
      const want = Math.max(err.end - err.start, Math.min(fetchBytes, source.maxCachedBytes / 4));
      await source.fetch(err.start, err.end, want);
      fetchedEnd = Math.min(source.size, Math.ceil((err.start + want) / BLOCK_SIZE) * BLOCK_SIZE);
    }
  }
  throw stepTooBig(locator, MAX_STEP_RUNS, needed, source.maxCachedBytes);
}

function stepTooBig(locator: string, runs: number, neededBytes: number, cacheBytes: number): FolioError {
  return new FolioError('too_large', `${locator}: one call needed bytes from too many places of the value (${runs} ranged reads, ${neededBytes} bytes)`, {
    path: locator,
    runs,
    neededBytes,
    maxRuns: MAX_STEP_RUNS,
    cacheBytes,
    hint: 'ask for fewer or smaller ranges per call',
  });
}

/**
 * Open `locator` and run `use` on it; if the value changed since its index was made
 * (a ranged read of that version failed), open it again and run once more.
 */
export async function withRemote<T>(locator: string, use: (v: RemoteValue) => Promise<T>, opts: OpenRemoteOptions = {}): Promise<T> {
  const v = await openRemote(locator, opts);
  try {
    return await use(v);
  } catch (err) {
    // Only the backend's own check (the value is no longer the indexed version), not a
    // caller's precondition that failed on the version it named.
    const failed = err instanceof FolioError && err.code === 'precondition_failed' ? err.details.failed : undefined;
    if (!Array.isArray(failed) || !failed.includes('version')) throw err;
    forgetRemote(v.backend.locator);
    return use(await openRemote(locator, opts));
  }
}

export function remoteFacts(v: RemoteValue): Promise<FileFacts> {
  return runOn(v, () => factsOfIndex(v.index));
}

export function readRemote(locator: string, req: ReadRequest, opts: ReadOptions = {}): Promise<ReadResult> {
  return withRemote(locator, (v) => runOn(v, async () => readFrom(await factsOfIndex(v.index), req, opts)));
}

export interface RemoteInfo extends FileInfoResult {
  backend: { scheme: string; version: string; indexFrom: RemoteValue['indexFrom'] };
}

export function remoteInfo(locator: string, opts: OpenRemoteOptions = {}): Promise<RemoteInfo> {
  return withRemote(
    locator,
    async (v) => ({
      ...(await runOn(v, () => fileInfoOf(v.index))),
      backend: { scheme: v.backend.scheme, version: v.version.token, indexFrom: v.indexFrom },
    }),
    opts,
  );
}

/** A head read fetches at most this much of a value that has no index yet; a bigger window waits for the index. */
export const HEAD_READ_MAX_BYTES = 1024 * 1024;
/** ... and at least this much: one ranged read covers the window asked for and the line it ends in. */
const HEAD_READ_MIN_BYTES = 256 * 1024;

/**
 * Are the first `bytes` valid UTF-8 (up to their last newline)? Only then is the
 * head read as UTF-8 before the index: invalid bytes may make the whole value's
 * encoding a legacy one (encoding-detect.ts), which only the index can tell.
 */
function isUtf8Head(cache: RangedSource, bytes: number): boolean {
  const buf = new Uint8Array(bytes);
  const got = cache.readInto(buf, 0, bytes, 0);
  const end = buf.subarray(0, got).lastIndexOf(10) + 1;
  return isUtf8(buf.subarray(0, end));
}

/**
 * Run `fn` over the head of `locator` before its line index exists: the first
 * window the app paints (a byte window at offset 0) comes from one ranged read of
 * the first bytes of the current version, not after streaming the whole value.
 * The index build starts (or goes on) in the background; `fn` runs over a partial
 * index of that version (as a local file's first window does while its build runs:
 * lines counted on demand, total lines unknown), so its answer is the indexed
 * answer's content. Undefined when the value is indexed already, small, not UTF-8,
 * or changed under the read: the caller then takes the indexed path.
 */
export async function onRemoteHead<T>(
  locator: string,
  maxBytes: number,
  fn: (v: RemoteValue, indexing: RemoteIndexProgress) => Promise<T>,
): Promise<T | undefined> {
  const backend = backendFor(locator);
  const version = await backend.stat();
  const known = opened.get(backend.locator);
  if (known && known.version.token === version.token) return undefined;
  const want = Math.max(HEAD_READ_MIN_BYTES, Math.ceil((maxBytes + 2 * BLOCK_SIZE) / BLOCK_SIZE) * BLOCK_SIZE);
  if (want > HEAD_READ_MAX_BYTES || want >= version.size) return undefined;
  const key = `${backend.locator}\n${version.token}`;
  // The build every other read mode waits for; its failure is theirs to report.
  void openVersion(backend, version, {}).catch(() => undefined);
  let cache = heads.get(key);
  if (!cache?.hasBlock(want / BLOCK_SIZE - 1)) {
    cache = sourceOfVersion(backend, version);
    try {
      await cache.fetch(0, want);
    } catch (err) {
      if (err instanceof FolioError && err.code === 'precondition_failed') return undefined;
      throw err;
    }
    // Kept while the build runs (it may have ended already: then it is not kept).
    if (opening.has(key)) heads.set(key, cache);
  }
  const head = new Uint8Array(Math.min(LAYOUT_SAMPLE_BYTES, version.size));
  cache.readInto(head, 0, head.length, 0);
  if (layoutOf(head) !== 'utf-8' || !isUtf8Head(cache, want)) return undefined;
  // A fresh partial index for every run of the step: one that met a missing block
  // mid-scan may have counted some of its blocks (LineIndex.scanForward assumes reads
  // never fail), so a rerun must not start from it.
  const partialIndex = () =>
    new LineIndex({
      identity: remoteIdentity(backend.locator, version),
      // Edge hashes and the last byte are the build's: this index is never kept, extended, or asked past its window.
      head: '',
      tail: '',
      table: new BlockTable(blockCount(version.size)),
      indexedBytes: 0,
      newlines: 0,
      facts: { cr: 0, crlf: 0, firstInvalid: null, pendingUtf8: 0, utf8: { invalid: 0, multibyte: 0 } },
      lastUnit: -1,
      firstBytes: [...head.subarray(0, 3)],
      layout: 'utf-8',
    });
  const indexing = streamed.get(key) ?? { bytesDone: 0, totalBytes: version.size };
  const v: RemoteValue = { backend, version, index: partialIndex(), source: cache, indexFrom: 'stream' };
  return runMounted(
    backend.locator,
    cache,
    () => (v.index = partialIndex()),
    () => fn(v, indexing),
  );
}

/** Search the value: its workers get the bytes this thread reads through its source (search.ts). */
export function searchRemote(locator: string, opts: SearchOptions): Promise<SearchResult> {
  return withRemote(locator, (v) =>
    runOn(v, async () => {
      const facts = await factsOfIndex(v.index);
      return searchFile(v.index, { ...opts, encoding: facts.encoding });
    }),
  );
}

/**
 * Run `fn` over the value `locator` names, its bytes and index mounted: any engine
 * function given `v.backend.locator` (the canonical locator) as its path reads the
 * value (read, sections, JSON paths, tokens, outline, search).
 */
export function onRemote<T>(locator: string, fn: (v: RemoteValue) => Promise<T>, opts: OpenRemoteOptions = {}): Promise<T> {
  return withRemote(locator, (v) => runOn(v, () => fn(v)), opts);
}
