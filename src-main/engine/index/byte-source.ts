/**
 * Bytes that are not in a local file, read through the same synchronous calls the
 * engine's pure pieces use (line index block reads, decoding windows, snapping,
 * hashlines, binary sniffing). A remote resource (engine/backend/remote.ts) mounts
 * a source under its locator; `openForRead(locator)` then gives a virtual fd, and
 * `readAt` / `closeFd` serve it. A local path never hits a mount.
 *
 * A source answers only from bytes it already holds. For bytes it lacks it throws
 * BytesMissing; the remote layer catches that, fetches them with one ranged read
 * of the backend, and runs the (pure, synchronous) step again. So the engine's
 * read modes, page math and preconditions run unchanged over a remote value.
 */
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
  /** callers running on it now: the last one out unmounts */
  users: number;
}
const mounts = new Map<string, Mount>();
const open = new Map<number, SyncByteSource>();

/**
 * Serve `key` (a locator) from `source` (and its index) until the returned function
 * is called. Mounts of one source nest (two reads of one value at once); mounting
 * another source (a newer version) replaces it, and the older one's release leaves
 * the newer one in place.
 */
export function mountSource(key: string, source: SyncByteSource, index?: LineIndex): () => void {
  let m = mounts.get(key);
  if (m?.source === source) m.users++;
  else mounts.set(key, (m = { source, ...(index ? { index } : {}), users: 1 }));
  const mine = m;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--mine.users === 0 && mounts.get(key) === mine) mounts.delete(key);
  };
}

export function mountedSource(key: string): SyncByteSource | undefined {
  return mounts.get(key)?.source;
}

/** The index mounted with `key`'s bytes, if any. */
export function mountedIndex(key: string): LineIndex | undefined {
  return mounts.get(key)?.index;
}

/** A virtual fd for a mounted key, or undefined for a local path. */
export function openMounted(key: string): number | undefined {
  const s = mounts.get(key)?.source;
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
