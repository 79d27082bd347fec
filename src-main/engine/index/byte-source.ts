/**
 * Where a step finds a remote value's bytes by its locator. A remote resource
 * (engine/backend/remote.ts) mounts its source (source/ranged-source.ts) under its
 * locator for one call chain; then
 * - whole-value steps open it as an async ByteSource (identity.ts openSource) and
 *   await its reads: one forward pass with read-ahead (source/byte-source.ts);
 * - windowed steps (a read mode's window, snapping, hashlines, a precondition's
 *   hash) keep their synchronous calls: `openForRead(locator)` gives a virtual fd
 *   that `readAt` / `closeFd` serve from the bytes the source holds. A miss throws
 *   BytesMissing; remote.ts runOn fetches them and runs the step again, a bounded
 *   number of times (a windowed step touches a few windows, not the value).
 * A local path never hits a mount.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, readSync } from 'node:fs';
import type { LineIndex } from './line-index.ts';
import type { ByteSource } from '../source/byte-source.ts';
import type { SyncByteSource } from '../source/ranged-source.ts';

export { BytesMissing, type SyncByteSource } from '../source/ranged-source.ts';

/** A mounted value's bytes: awaited by whole-value steps, read synchronously (held bytes only) by windowed ones. */
export type MountedSource = ByteSource & SyncByteSource;

/** Virtual fds start far above any real one. */
const FIRST_VIRTUAL_FD = 0x40000000;
let nextFd = FIRST_VIRTUAL_FD;
interface Mount {
  source: MountedSource;
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
export function withMountedSource<T>(key: string, source: MountedSource, index: LineIndex | undefined, fn: () => T): T {
  const inner = new Map(mounts.getStore());
  inner.set(key, { source, ...(index ? { index } : {}) });
  return mounts.run(inner, fn);
}

export function mountedSource(key: string): MountedSource | undefined {
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
