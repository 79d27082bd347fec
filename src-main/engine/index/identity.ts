/**
 * Who a file is, and which version of it we saw: device, inode, size, times, and
 * hashes of its first and last 64 KiB. Used to refuse what is not a regular file
 * before anything opens it (opening a FIFO for reading would block), to key the
 * persisted index cache, and to tell growth (append) from rewrite.
 */
import { createHash } from 'node:crypto';
import { appendIntentOf, settleDeadAppend, visibleSize } from './append-limit.ts';
import { openSync, statSync, type BigIntStats, type Stats } from 'node:fs';
import { closeFd, mountedIndex, mountedSource, openMounted, readAt } from './byte-source.ts';
import { FileSource, type OpenByteSource } from '../source/byte-source.ts';
import { resolve } from 'node:path';
import { FolioError, fromFsError } from '../errors.ts';

export const EDGE_BYTES = 64 * 1024;

export interface FileIdentity {
  path: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** mtime and ctime in nanoseconds, as decimal strings (exact, unlike mtimeMs) */
  mtimeNs: string;
  ctimeNs: string;
  mode: number;
  uid: number;
  gid: number;
}

/** The identity of `path` from its bigint stat. */
export function identityOf(path: string, st: BigIntStats): FileIdentity {
  return {
    path,
    dev: Number(st.dev),
    ino: Number(st.ino),
    size: Number(st.size),
    mtimeMs: Number(st.mtimeMs),
    mtimeNs: st.mtimeNs.toString(),
    ctimeNs: st.ctimeNs.toString(),
    mode: Number(st.mode),
    uid: Number(st.uid),
    gid: Number(st.gid),
  };
}

/** is_directory or not_regular_file (FIFO, socket, device) unless `st` is a regular file. */
export function refuseIrregular(path: string, st: Stats | BigIntStats): void {
  if (st.isDirectory()) throw new FolioError('is_directory', `is a directory, not a file: ${path}`, { path });
  if (!st.isFile()) {
    const kind = st.isFIFO()
      ? 'FIFO'
      : st.isSocket()
        ? 'socket'
        : st.isCharacterDevice()
          ? 'character device'
          : st.isBlockDevice()
            ? 'block device'
            : 'special file';
    throw new FolioError('not_regular_file', `not a regular file (${kind}): ${path}`, { path, kind });
  }
}

/** Tries at a stat whose intent belongs to it (a settle or an append moving under it). */
const STAT_TRIES = 4;

/**
 * Stat `path` and make sure it is a regular file: not_found, permission_denied,
 * is_directory, not_regular_file (FIFO, socket, device) are refused here, so no
 * caller ever opens something that can block or never end.
 */
export function statRegularFile(path: string): FileIdentity {
  // A remote value being read (byte-source.ts) is the version it was mounted at.
  const mounted = mountedIndex(path);
  if (mounted) return mounted.identity;
  const abs = resolve(path);
  for (let tries = 1; ; tries++) {
    const st = statOf(abs);
    const id = identityOf(abs, st);
    // An append in flight or killed mid-way: the file ends where it did before it.
    const intent = appendIntentOf(abs);
    // A dead writer's: settled now if this process can (then stat again).
    if (intent && tries <= STAT_TRIES && settleDeadAppend(abs, intent, id)) continue;
    id.size = visibleSize(intent, id.size);
    // The intent must be the one of this very version: a settle or an append between
    // the stat and the intent's read (a size with the cut bytes, the intent gone)
    // shows as another stat. An identity that names bytes the file no longer has
    // would be indexed, cached, and trusted by the next process.
    if (tries >= STAT_TRIES || sameVersion(st, statOf(abs))) return id;
  }
}

function statOf(abs: string): BigIntStats {
  let st: BigIntStats;
  try {
    st = statSync(abs, { bigint: true });
  } catch (err) {
    throw fromFsError(err, abs);
  }
  refuseIrregular(abs, st);
  return st;
}

function sameVersion(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** Open a regular file for reading, with typed errors. */
export function openForRead(path: string): number {
  const mounted = openMounted(path); // a remote resource's bytes (byte-source.ts)
  if (mounted !== undefined) return mounted;
  try {
    return openSync(path, 'r');
  } catch (err) {
    throw fromFsError(err, path);
  }
}

/**
 * The async byte source of `path` for a step that scans it whole: a remote value's
 * mounted source (byte-source.ts), else the file, opened with typed errors.
 */
export function openSource(path: string): OpenByteSource {
  const mounted = mountedSource(path);
  if (mounted) {
    return { size: mounted.size, version: mounted.version, readAt: (offset, length) => mounted.readAt(offset, length), close: () => undefined };
  }
  return new FileSource(openForRead(path));
}

/** SHA-256 (hex) of bytes [start, end) of an open file; only for small spans (≤ a few MiB). */
export function hashSpan(fd: number, start: number, end: number): string {
  const len = Math.max(0, end - start);
  const buf = Buffer.allocUnsafe(len);
  let done = 0;
  while (done < len) {
    const n = readAt(fd, buf, done, len - done, start + done);
    if (n <= 0) break;
    done += n;
  }
  return createHash('sha256').update(buf.subarray(0, done)).digest('hex');
}

/** Hashes of the first and last 64 KiB of the first `size` bytes of a file. */
export function edgeHashes(path: string, size: number): { head: string; tail: string } {
  const fd = openForRead(path);
  try {
    return {
      head: hashSpan(fd, 0, Math.min(EDGE_BYTES, size)),
      tail: hashSpan(fd, Math.max(0, size - EDGE_BYTES), size),
    };
  } finally {
    closeFd(fd);
  }
}

/** The etag of a file version: changes whenever content could have changed. */
export function etagOf(id: Pick<FileIdentity, 'dev' | 'ino' | 'size' | 'mtimeNs' | 'ctimeNs'>): string {
  return createHash('sha256').update(`${id.dev}:${id.ino}:${id.size}:${id.mtimeNs}:${id.ctimeNs}`).digest('base64url').slice(0, 20);
}
