/**
 * Bytes that are not in a local file, read through the same synchronous calls the
 * engine's pure pieces use (line index block reads, decoding windows, snapping,
 * hashlines, binary sniffing). A remote resource (engine/backend/remote.ts) mounts
 * a source under its locator for one call chain; `openForRead(locator)` then gives a virtual fd, and
 * `readAt` / `closeFd` serve it. A local path never hits a mount.
 *
 * A source answers only from bytes it already holds. For bytes it lacks it throws
 * BytesMissing; the remote layer catches that, fetches them with one ranged read
 * of the backend, and runs the (pure, synchronous) step again. So the engine's
 * read modes, page math and preconditions run unchanged over a remote value.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, readSync } from 'node:fs';
import type { LineIndex } from './line-index.ts';

export interface SyncByteSource {
  /** bytes in the resource */
  readonly size: number;
  /** Copy bytes [pos, pos + len) (clamped to size) into buf at off; returns how many. Throws BytesMissing for bytes not held. */
  readInto(buf: Uint8Array, off: number, len: number, pos: number): number;
}

/** A source was asked for bytes [start, end) that it does not hold yet. */
export class BytesMissing extends Error {
  constructor(
    readonly start: number,
    readonly end: number,
  ) {
    super(`bytes ${start}-${end} are not fetched yet`);
  }
}

/** Virtual fds start far above any real one. */
const FIRST_VIRTUAL_FD = 0x40000000;
let nextFd = FIRST_VIRTUAL_FD;
interface Mount {
  source: SyncByteSource;
  /** the complete line index of those bytes: openIndex(key) answers with it (store.ts) */
  index?: LineIndex;
}
/**
 * Mounts belong to the async call chain that made them (AsyncLocalStorage), not
 * to the process: two calls on one locator at once, each on its own version (a
 * read of the old one in flight while follow mode opens the new one), never see
 * each other's bytes.
 */
const mounts = new AsyncLocalStorage<ReadonlyMap<string, Mount>>();
const open = new Map<number, SyncByteSource>();

/** Run `fn` with `key` (a locator) served from `source` (and its index), in this call chain only. */
export function withMountedSource<T>(key: string, source: SyncByteSource, index: LineIndex | undefined, fn: () => T): T {
  const inner = new Map(mounts.getStore());
  inner.set(key, { source, ...(index ? { index } : {}) });
  return mounts.run(inner, fn);
}

export function mountedSource(key: string): SyncByteSource | undefined {
  return mounts.getStore()?.get(key)?.source;
}

/** The index mounted with `key`'s bytes, if any. */
export function mountedIndex(key: string): LineIndex | undefined {
  return mounts.getStore()?.get(key)?.index;
}

/** A virtual fd for a mounted key, or undefined for a local path. */
export function openMounted(key: string): number | undefined {
  const s = mountedSource(key);
  if (!s) return undefined;
  const fd = nextFd++;
  if (nextFd > 0x7ffffff0) nextFd = FIRST_VIRTUAL_FD;
  open.set(fd, s);
  return fd;
}

/** readSync for real and virtual fds. */
export function readAt(fd: number, buf: Uint8Array, off: number, len: number, pos: number): number {
  const s = open.get(fd);
  if (!s) return readSync(fd, buf, off, len, pos);
  return s.readInto(buf, off, len, pos);
}

/** closeSync for real and virtual fds. */
export function closeFd(fd: number): void {
  if (open.delete(fd)) return;
  closeSync(fd);
}
