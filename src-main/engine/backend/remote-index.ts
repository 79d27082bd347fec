/**
 * The line index of a remote value, and the bytes the engine reads of it.
 *
 * Built once per version by streaming the value (Backend.stream) through the same
 * WASM kernels and 64 KiB BlockTable as a local file's index (scanSteps of
 * index-worker.mjs, fed from the stream instead of pread), then kept beside the
 * value (Backend.sidecar, keyed by the version token), so another process opening
 * the same version reads the index instead of the value.
 *
 * sourceOfVersion gives the ByteSource (source/ranged-source.ts) of one version:
 * ranged reads of exactly that version (Backend.read(…, token)), read-ahead, and a
 * bounded block cache.
 */
import { CHUNK_SIZE } from '../kernels/kernels.mjs';
import { localKernels } from '../kernels/local-kernels.ts';
import { scanSteps } from '../index/index-worker.mjs';
import { BlockTable, blockCount } from '../index/block-table.ts';
import { LineIndex } from '../index/line-index.ts';
import type { FileIdentity } from '../index/identity.ts';
import { layoutOf, LAYOUT_SAMPLE_BYTES } from '../index/layout.ts';
import { indexFromBytes, indexToBytes } from '../index/cache.ts';
import { RangedSource } from '../source/ranged-source.ts';
import { createHash } from 'node:crypto';
import { FolioError } from '../errors.ts';
import { EDGE_BYTES } from '../index/identity.ts';
import type { Backend, BackendVersion } from './types.ts';

export const INDEX_SIDECAR = 'line-index';

const sha256Hex = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export interface RemoteIndexProgress {
  bytesDone: number;
  totalBytes: number;
}

/** What a remote version looks like as a file identity: the token stands where the ctime would (etagOf hashes it). */
export function remoteIdentity(locator: string, v: BackendVersion): FileIdentity {
  return {
    path: locator,
    dev: 0,
    ino: 0,
    size: v.size,
    mtimeMs: v.modifiedMs ?? 0,
    mtimeNs: '0',
    ctimeNs: v.token,
    mode: 0o100644,
    uid: 0,
    gid: 0,
  };
}

/** Pulls exactly the bytes asked for out of an async stream of chunks of any size. */
class StreamReader {
  private it: AsyncIterator<Uint8Array>;
  private rest: Uint8Array = new Uint8Array(0);
  private ended = false;
  constructor(stream: AsyncIterable<Uint8Array>) {
    this.it = stream[Symbol.asyncIterator]();
  }
  /** Fill `into` as far as the stream goes; returns the bytes put there. */
  async fill(into: Uint8Array): Promise<number> {
    let got = 0;
    while (got < into.length) {
      if (this.rest.length === 0) {
        if (this.ended) break;
        const n = await this.it.next();
        if (n.done) {
          this.ended = true;
          break;
        }
        this.rest = n.value;
        continue;
      }
      const take = Math.min(this.rest.length, into.length - got);
      into.set(this.rest.subarray(0, take), got);
      this.rest = this.rest.subarray(take);
      got += take;
    }
    return got;
  }
  async close(): Promise<void> {
    await this.it.return?.();
  }
}

/**
 * Index version `v` of the value by streaming it once. UTF-16 values are refused
 * (encoding_mismatch): their scan is the worker's pread path, not streamed yet.
 */
export async function buildRemoteIndex(backend: Backend, v: BackendVersion, onProgress?: (p: RemoteIndexProgress) => void): Promise<LineIndex> {
  const k = localKernels();
  const size = v.size;
  const counts = new Uint32Array(blockCount(size));
  const reader = new StreamReader(backend.stream(0, v.token));
  const head = new Uint8Array(Math.min(LAYOUT_SAMPLE_BYTES, size));
  // The first and last 64 KiB, hashed as a file's index keeps them (identity.ts
  // edgeHashes): LineIndex.extend() compares them to tell an append from a rewrite.
  const edgeHead = new Uint8Array(Math.min(EDGE_BYTES, size));
  let edgeTail = new Uint8Array(0);
  let lastUnit = -1;
  let done = 0;
  try {
    // The kernels' input window is shared with every other synchronous scan of this
    // thread, so a chunk is fetched into a buffer of our own and copied in just before
    // its step runs (no await between the copy and the scan).
    const chunk = new Uint8Array(CHUNK_SIZE);
    const steps = scanSteps({ kernels: k, start: 0, end: size, isLast: true, counts });
    let step = steps.next();
    let first = true;
    while (!step.done) {
      const got = await reader.fill(chunk.subarray(0, step.value.want));
      if (first && got > 0) {
        head.set(chunk.subarray(0, head.length));
        const layout = layoutOf(head);
        if (layout !== 'utf-8') {
          throw new FolioError('encoding_mismatch', `${backend.locator} is ${layout}; remote values are indexed as bytes (UTF-8 or binary) only`, {
            path: backend.locator,
            encoding: layout,
          });
        }
        first = false;
      }
      if (got > 0) lastUnit = chunk[got - 1]!;
      if (done < edgeHead.length) edgeHead.set(chunk.subarray(0, Math.min(got, edgeHead.length - done)), done);
      const joined = got >= EDGE_BYTES ? chunk.subarray(got - EDGE_BYTES, got) : Buffer.concat([edgeTail, chunk.subarray(0, got)]);
      edgeTail = joined.slice(Math.max(0, joined.length - EDGE_BYTES));
      k.input.set(chunk.subarray(0, got));
      done += got;
      onProgress?.({ bytesDone: done, totalBytes: size });
      step = steps.next(got);
    }
    const r = step.value;
    if (done !== size) {
      throw new FolioError('conflict', `${backend.locator} changed while it was indexed (${done} of ${size} bytes)`, { path: backend.locator });
    }
    return new LineIndex({
      identity: remoteIdentity(backend.locator, v),
      head: sha256Hex(edgeHead),
      tail: sha256Hex(edgeTail),
      table: BlockTable.fromCounts(counts, blockCount(size)),
      indexedBytes: size,
      newlines: r.newlines,
      facts: {
        cr: r.cr,
        crlf: r.crlf,
        firstInvalid: r.firstInvalid >= 0 ? r.firstInvalid : null,
        pendingUtf8: 0,
        utf8: { invalid: r.invalid, multibyte: r.multibyte },
      },
      lastUnit,
      firstBytes: [...head.subarray(0, 3)],
      layout: 'utf-8',
    });
  } finally {
    await reader.close();
  }
}

/** The index kept beside version `v`, if any. */
export async function loadRemoteIndex(backend: Backend, v: BackendVersion): Promise<LineIndex | undefined> {
  const bytes = await backend.sidecar.get(INDEX_SIDECAR, v.token).catch(() => null);
  if (!bytes) return undefined;
  return indexFromBytes(bytes, backend.locator, backend.locator, (id) => id.ctimeNs === v.token && id.size === v.size);
}

export async function saveRemoteIndex(backend: Backend, index: LineIndex): Promise<void> {
  await backend.sidecar.put(INDEX_SIDECAR, index.identity.ctimeNs, indexToBytes(index, backend.locator));
}

/** How every remote value's source caches and reads ahead (tests lower them; defaults: 64 MiB, 8 MiB). */
export interface RemoteSourceOptions {
  maxCachedBytes?: number;
  maxReadAheadBytes?: number;
}
let sourceOptions: RemoteSourceOptions = {};

/** Set the cache and read-ahead of the sources made from now on (tests; {} for the defaults). */
export function setRemoteSourceOptions(o: RemoteSourceOptions): void {
  sourceOptions = { ...o };
}

/** The bytes of one version of a remote value, as a ByteSource. */
export function sourceOfVersion(backend: Backend, v: BackendVersion): RangedSource {
  return new RangedSource({ label: backend.locator, size: v.size, version: v.token, fetch: (s, e) => backend.read(s, e, v.token), ...sourceOptions });
}
