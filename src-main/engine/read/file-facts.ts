/**
 * What every read answer carries about its file: the live (possibly still
 * building) line index, the version, encoding, BOM, newline style, total lines or
 * indexing progress, and the SHA-256 when known.
 *
 * SHA-256 never blocks a read of a big file: files up to 1 MiB are hashed inline;
 * bigger ones are hashed once in a background worker and the digest appears in
 * answers from then on (keyed by version, so it is never stale).
 */
import { compressionOf } from './compression.ts';
import { createHash } from 'node:crypto';
import { readBytes } from '../text/window.ts';
import { mountedSource } from '../index/byte-source.ts';
import { Worker } from 'node:worker_threads';
import { sniffBinary, type BinaryVerdict } from '../text/binary-sniff.ts';
import { FolioError } from '../errors.ts';
import { etagOf, type FileIdentity } from '../index/identity.ts';
import { encodingOf, type Encoding } from '../text/encoding-detect.ts';
import type { IndexProgress } from '../index/builder.ts';
import { startIndex, type OpenOptions } from '../index/store.ts';
import { foregroundScans } from '../index/worker-pool.ts';
import type { LineIndex, NewlineStyle } from '../index/line-index.ts';

export interface Version {
  etag: string;
  size: number;
  mtimeMs: number;
  sha256?: string;
}

export type { Encoding };

export interface FileFacts {
  index: LineIndex;
  identity: FileIdentity;
  version: Version;
  verdict: BinaryVerdict;
  encoding: Encoding;
  /** confidence (0..1) of a detected legacy encoding */
  encodingConfidence?: number;
  bom: boolean;
  newlineStyle: NewlineStyle | null;
  totalLines: number | null;
  indexing: IndexProgress | null;
}

const INLINE_HASH_BYTES = 1024 * 1024;
/** How long a read waits for a running index build before answering from the partial index. */
let waitForIndexMs = 30;

/** Files up to this size usually finish indexing within waitForIndexMs (the pool does about 1.5 GB/s); bigger ones never make a read wait. */
const WAIT_FOR_INDEX_MAX_BYTES = 32 * 1024 * 1024;

/** Tune how long reads wait for a running index build (0: answer from the partial index at once). */
export function setIndexWaitMs(ms: number): void {
  waitForIndexMs = ms;
}
const verdicts = new Map<string, BinaryVerdict>();
const digests = new Map<string, string>();
const hashing = new Map<string, { etag: string; cancel: () => void }>();
/** A big file's version must hold this long before it is hashed in the background. */
const HASH_SETTLE_MS = 1000;

/**
 * The background hash of a big file: background work, so on Linux at nice 10 (as the
 * app's index threads, index-worker.mjs), and paused while a search or histogram runs
 * (worker-pool.ts's foregroundScans) and for QUIET_MS after the last one started: on
 * 2 cores a whole-file hash (~1 s of CPU a GiB) took a core from the first filter or
 * histogram of the file just opened. Read in 1 MiB steps, checking between steps.
 */
const HASH_WORKER = `
  const { createHash } = require('node:crypto');
  const { closeSync, openSync, readSync, readlinkSync } = require('node:fs');
  const { setPriority } = require('node:os');
  const { parentPort, workerData } = require('node:worker_threads');
  const QUIET_MS = 300;
  if (process.platform === 'linux') {
    try {
      const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
      if (Number.isInteger(tid) && tid !== process.pid) setPriority(tid, 10);
    } catch {}
  }
  const scans = new Int32Array(workerData.scans);
  let seen = Atomics.load(scans, 1);
  const yieldToScans = () => {
    for (;;) {
      const running = Atomics.load(scans, 0);
      if (running !== 0) { Atomics.wait(scans, 0, running, 1000); continue; }
      const started = Atomics.load(scans, 1);
      if (started === seen) return;
      seen = started;
      Atomics.wait(scans, 1, started, QUIET_MS);
    }
  };
  try {
    const h = createHash('sha256');
    const buf = Buffer.allocUnsafe(1 << 20);
    const fd = openSync(workerData.path, 'r');
    try {
      for (let pos = 0; pos < workerData.size; ) {
        yieldToScans();
        const n = readSync(fd, buf, 0, Math.min(buf.length, workerData.size - pos), pos);
        if (n <= 0) throw new Error('the file shrank while it was hashed');
        h.update(buf.subarray(0, n));
        pos += n;
      }
    } finally {
      closeSync(fd);
    }
    parentPort.postMessage(h.digest('hex'));
  } catch (e) {
    parentPort.postMessage({ error: e.message });
  }
`;

async function verdictOf(id: FileIdentity, etag: string): Promise<BinaryVerdict> {
  let v = verdicts.get(etag);
  if (!v) {
    v = await sniffBinary(id.path, id.size);
    if (verdicts.size > 1000) verdicts.clear();
    verdicts.set(etag, v);
  }
  return v;
}

/**
 * The SHA-256 of this version if known; starts computing it in the background if
 * not. One hash per path at a time: a newer version cancels the older one's hash
 * (a log appended to every second never piles up hashes; it gets one when it rests).
 */
function sha256Of(id: FileIdentity, etag: string): string | undefined {
  const known = digests.get(etag);
  if (known) return known;
  if (id.size <= INLINE_HASH_BYTES) {
    const digest = createHash('sha256')
      .update(readBytes(id.path, 0, id.size))
      .digest('hex');
    digests.set(etag, digest);
    return digest;
  }
  // A remote value's digest comes from its backend (factsOfIndex), never from a worker reading a path.
  if (mountedSource(id.path)) return undefined;
  const running = hashing.get(id.path);
  if (running?.etag === etag) return undefined;
  running?.cancel();
  // Start once this version has held for a moment: a log appended to many times a
  // second would otherwise start (and cancel) a whole-file hash per append.
  let worker: Worker | undefined;
  const timer = setTimeout(() => {
    worker = new Worker(HASH_WORKER, { eval: true, workerData: { path: id.path, size: id.size, scans: foregroundScans.buffer } });
    const w = worker;
    const done = () => {
      if (hashing.get(id.path)?.etag === etag) hashing.delete(id.path);
    };
    w.once('message', (msg: unknown) => {
      if (typeof msg === 'string') digests.set(etag, msg);
      done();
      void w.terminate();
    });
    w.once('error', done);
    w.once('exit', done);
    // After the listeners: adding a 'message' listener refs the worker again, and a
    // background hash must never keep a CLI process alive.
    w.unref();
  }, HASH_SETTLE_MS);
  timer.unref();
  hashing.set(id.path, {
    etag,
    cancel: () => {
      clearTimeout(timer);
      if (worker) void worker.terminate();
    },
  });
  return undefined;
}

/** The binary_file error for this file: its detected type and why it counts as binary. */
export function binaryFileError(facts: FileFacts, note?: string): FolioError {
  const { type, ext, reason } = facts.verdict;
  // A compressed log reaches the engine as binary only to be written (reads take its plain file: api/compressed-paths.ts).
  const compressed = compressionOf(facts.identity.path);
  if (compressed) {
    return new FolioError('binary_file', `${facts.identity.path} is ${compressed}-compressed: Folio reads it decompressed but does not write it`, {
      path: facts.identity.path,
      type,
      ext,
      reason,
      compressed,
    });
  }
  return new FolioError('binary_file', `${facts.identity.path} is binary (${type ?? 'unknown type'}: ${reason})${note ? `: ${note}` : ''}`, {
    path: facts.identity.path,
    type,
    ext,
    reason,
  });
}

/**
 * Facts of a resource whose complete index is in hand (a remote value, indexed by
 * engine/backend/remote-index.ts): no build to wait for, no background hash (a
 * backend that knows the digest passes it).
 */
export async function factsOfIndex(index: LineIndex, sha256?: string): Promise<FileFacts> {
  const identity = index.identity;
  const etag = etagOf(identity);
  if (sha256) digests.set(etag, sha256);
  const verdict = await verdictOf(identity, etag);
  const enc = encodingOf(verdict, index, etag);
  const known = digests.get(etag);
  return {
    index,
    identity,
    version: { etag, size: identity.size, mtimeMs: identity.mtimeMs, ...(known ? { sha256: known } : {}) },
    verdict,
    encoding: enc.encoding,
    ...(enc.confidence !== undefined ? { encodingConfidence: enc.confidence } : {}),
    bom: index.bom,
    newlineStyle: index.newlineStyle,
    totalLines: index.lineCount,
    indexing: null,
  };
}

/** Facts of `path` now, without waiting for a big file's index to finish. */
export async function factsOf(path: string, opts: OpenOptions & { hash?: boolean } = {}): Promise<FileFacts> {
  const build = startIndex(path, opts);
  if (!build.index.complete && build.index.identity.size <= WAIT_FOR_INDEX_MAX_BYTES) {
    // Most files index in a few ms: wait briefly so their answers carry total lines;
    // a bigger file answers from the live index at once and reports progress.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([build.done.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, waitForIndexMs)))]);
    clearTimeout(timer);
  }
  const index = build.index;
  const identity = index.identity;
  const etag = etagOf(identity);
  const verdict = await verdictOf(identity, etag);
  const sha256 = opts.hash === false ? digests.get(etag) : sha256Of(identity, etag);
  const enc = encodingOf(verdict, index, etag);
  return {
    index,
    identity,
    version: { etag, size: identity.size, mtimeMs: identity.mtimeMs, ...(sha256 ? { sha256 } : {}) },
    verdict,
    encoding: enc.encoding,
    ...(enc.confidence !== undefined ? { encodingConfidence: enc.confidence } : {}),
    bom: index.bom,
    newlineStyle: index.complete ? index.newlineStyle : null,
    totalLines: index.complete ? index.lineCount : null,
    indexing: index.complete ? null : build.progress(),
  };
}
