/**
 * Compressed logs as plain files: each version of a compressed file is decompressed
 * once, streaming (inflate.ts), into Folio's cache, and every step (line index,
 * reads, search workers, histogram, time_seek, merge, query, follow) runs unchanged
 * on that plain file. Whole-file steps need the whole stream anyway; a zran-style
 * checkpoint index would re-inflate it single-threaded on each pass and in each
 * worker, where the cache gives every later step page-cache speed.
 *
 * Layout: <cache>/decompressed/ ($FOLIO_CACHE_DIR/decompressed, else
 * ~/.cache/folio/decompressed beside the line indexes), one entry per version named
 * by a hash of the compressed file's identity (device, inode, size, mtime, ctime),
 * with `<key>.used` (its mtime: when last handed out, for LRU eviction) and, while
 * the job runs, `<key>.head` (the first bytes, for the app's first page; kept
 * with the entry, as a head read in flight may still open it).
 *
 * Crash safety: the job writes `<key>.<pid>.<rand>.tmp`, fsyncs, renames: a kill -9
 * mid-way never leaves an entry that is trusted; a temp of a dead process is
 * removed by the next job. One job per key in a process (callers join it); two
 * processes at once each write their own temp and the last rename wins, with the
 * same bytes.
 *
 * Bounded: after each job, entries are evicted least recently used first until they
 * total at most $FOLIO_DECOMPRESS_CACHE_BYTES (default 8 GiB); the entry being
 * handed out is never evicted (a single bigger one is kept alone).
 */
import { randomBytes, createHash } from 'node:crypto';
import {
  close,
  closeSync,
  fsyncSync,
  mkdirSync,
  open,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  write,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { dropIndex } from '../index/cache.ts';
import { statRegularFile, type FileIdentity } from '../index/identity.ts';
import { FolioError } from '../errors.ts';
import { failpoint } from '../failpoint.ts';
import type { Compression } from './compression.ts';
import { inflateTo } from './inflate.ts';

export interface DecompressProgress {
  /** Compressed bytes read so far. */
  bytesDone: number;
  /** The compressed file's size. */
  totalBytes: number;
}

export interface Decompressed {
  /** The plain file in the cache. */
  path: string;
  format: Compression;
  compressedBytes: number;
}

export interface DecompressOptions {
  onProgress?: (p: DecompressProgress) => void;
  /** Cancels this caller's wait; the job stops (its temp removed) when no caller waits any more. */
  signal?: AbortSignal;
}

export const DEFAULT_CACHE_BYTES = 8 * 1024 ** 3;

interface Job {
  progress: DecompressProgress;
  listeners: Set<(p: DecompressProgress) => void>;
  /** Callers that may still abort; a job started for the head read has one that never does. */
  waiters: number;
  stop: AbortController;
  promise: Promise<Decompressed>;
}

const jobs = new Map<string, Job>();

export function decompressDir(): string {
  if (process.env.FOLIO_CACHE_DIR) return join(process.env.FOLIO_CACHE_DIR, 'decompressed');
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'folio', 'decompressed');
}

/** The cap on the entries' total size: $FOLIO_DECOMPRESS_CACHE_BYTES, else 8 GiB. */
export function cacheCapBytes(): number {
  const set = Number(process.env.FOLIO_DECOMPRESS_CACHE_BYTES);
  return Number.isFinite(set) && set >= 0 && process.env.FOLIO_DECOMPRESS_CACHE_BYTES !== '' ? set : DEFAULT_CACHE_BYTES;
}

function keyOf(id: FileIdentity): string {
  return createHash('sha256').update(`${id.dev}:${id.ino}:${id.size}:${id.mtimeNs}:${id.ctimeNs}`).digest('hex').slice(0, 32);
}

interface Version {
  key: string;
  entry: string;
  id: FileIdentity;
}

function versionOf(path: string): Version {
  const id = statRegularFile(path);
  const key = keyOf(id);
  return { key, entry: join(decompressDir(), key), id };
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** The cache entry of the current version of `path` if it is there (no job started). */
export function cachedEntryOf(path: string): string | null {
  const { entry } = versionOf(path);
  return statOrNull(entry) ? entry : null;
}

/** Progress of the job decompressing the current version of `path` in this process, or null. */
export function decompressingNow(path: string): DecompressProgress | null {
  const job = jobs.get(versionOf(path).key);
  return job ? { ...job.progress } : null;
}

/**
 * The plain file of the compressed file `path` (format `format`): the cache entry of
 * its current version, decompressed first if it is not there (joining a job in flight).
 */
export async function decompressed(path: string, format: Compression, opts: DecompressOptions = {}): Promise<Decompressed> {
  const v = versionOf(path);
  if (statOrNull(v.entry)) {
    markUsed(v.key);
    return { path: v.entry, format, compressedBytes: v.id.size };
  }
  return join_(jobs.get(v.key) ?? startJob(path, format, v), opts);
}

/** Start (or keep) the job of the current version of `path` without waiting for it; its progress. */
export function startDecompressing(path: string, format: Compression): DecompressProgress {
  const v = versionOf(path);
  const job = jobs.get(v.key) ?? startJob(path, format, v);
  if (job.waiters === 0) job.waiters = 1; // nobody to abort it: it runs to the end
  job.promise.catch(() => undefined); // its failure is for the reads that wait on it
  return { ...job.progress };
}

function join_(job: Job, opts: DecompressOptions): Promise<Decompressed> {
  const { signal, onProgress } = opts;
  job.waiters++;
  if (onProgress) {
    job.listeners.add(onProgress);
    onProgress({ ...job.progress });
  }
  return new Promise((resolve, reject) => {
    const leave = () => {
      signal?.removeEventListener('abort', onAbort);
      if (onProgress) job.listeners.delete(onProgress);
    };
    const onAbort = () => {
      leave();
      reject(new FolioError('cancelled', 'decompressing cancelled', {}));
      if (--job.waiters === 0) job.stop.abort();
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    job.promise.then(
      (d) => {
        leave();
        resolve(d);
      },
      (err: unknown) => {
        leave();
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

function startJob(path: string, format: Compression, v: Version): Job {
  const job: Job = {
    progress: { bytesDone: 0, totalBytes: v.id.size },
    listeners: new Set(),
    waiters: 0,
    stop: new AbortController(),
    promise: Promise.resolve(undefined as never),
  };
  job.promise = (async () => {
    const dir = decompressDir();
    const tmp = join(dir, `${v.key}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      mkdirSync(dir, { recursive: true });
      removeDeadTemps(dir);
      await inflateTo(path, format, tempSink(tmp), {
        signal: job.stop.signal,
        onBytes: (bytesDone) => {
          job.progress.bytesDone = bytesDone;
          for (const l of job.listeners) l({ ...job.progress });
        },
      });
      // The file changed while it was read: these bytes are no version's.
      const now = statRegularFile(path);
      if (keyOf(now) !== v.key) throw new FolioError('conflict', `${path} changed while it was decompressed; read it again`, { path });
      syncFile(tmp);
      failpoint('decompress.temp-synced');
      renameSync(tmp, v.entry);
      syncFile(dir);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    } finally {
      jobs.delete(v.key);
    }
    markUsed(v.key);
    evictBeyondCap(v.key);
    return { path: v.entry, format, compressedBytes: v.id.size };
  })();
  jobs.set(v.key, job);
  return job;
}

/**
 * A new temp file at `path` as the sink: one stream that owns its descriptor (opened
 * `wx`, written in order, closed once: at the end, or on destroy once a write in
 * flight is back, so its fd number is never reused under it), reaching a fault point
 * of the crash tests once its first bytes are written.
 */
function tempSink(path: string): Writable {
  let fd: number | undefined;
  let wrote = false;
  let writing = false;
  /** A destroy that came while a write was in flight: runs when it is back. */
  let afterWrite: (() => void) | null = null;
  const closeFd = (done: (err: Error | null) => void, err: Error | null) => {
    if (fd === undefined) return done(err);
    const f = fd;
    fd = undefined;
    close(f, (closeErr) => done(err ?? closeErr ?? null));
  };
  return new Writable({
    construct(done) {
      open(path, 'wx', (err, f) => {
        fd = f;
        done(err);
      });
    },
    write(chunk: Buffer, _enc, done) {
      writing = true;
      const back = (err: Error | null) => {
        writing = false;
        if (afterWrite) return afterWrite(); // destroyed meanwhile: nobody waits for this write
        if (!err && !wrote) {
          wrote = true;
          failpoint('decompress.temp-partial');
        }
        done(err);
      };
      const from = (at: number): void =>
        write(fd!, chunk, at, chunk.length - at, null, (err, n) => {
          if (err) return back(err);
          if (at + n < chunk.length && !afterWrite) return from(at + n);
          back(null);
        });
      from(0);
    },
    final: (done) => closeFd(done, null),
    destroy(err, done) {
      if (writing) afterWrite = () => closeFd(done, err);
      else closeFd(done, err);
    },
  });
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function markUsed(key: string): void {
  const used = join(decompressDir(), `${key}.used`);
  try {
    const now = new Date();
    utimesSync(used, now, now);
  } catch {
    try {
      writeFileSync(used, '');
    } catch {
      // LRU order is a hint: an entry without it counts by its own time
    }
  }
}

const TEMP_NAME = /^[0-9a-f]{32}(?:\.head)?\.(\d+)\.[0-9a-f]+\.tmp$/;
/** A temp of a live process this old is taken as left behind anyway (its pid reused). */
const TEMP_MAX_AGE_MS = 24 * 3600 * 1000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Temps of processes that died mid-way (kill -9, power loss): never renamed, never trusted. */
function removeDeadTemps(dir: string): void {
  for (const name of readdirSync(dir)) {
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid) continue;
    const st = statOrNull(join(dir, name));
    if (st && (!alive(pid) || Date.now() - st.mtimeMs > TEMP_MAX_AGE_MS)) rmSync(join(dir, name), { force: true });
  }
}

/**
 * Evict least recently used entries until they total at most the cap; never `keep`,
 * nor one whose job runs. An entry's bytes count its head (`<key>.head`) too; a
 * head without its entry (the job that was to make it stopped: killed, failed,
 * aborted) is evicted on its own, by its mtime.
 */
export function evictBeyondCap(keep: string): void {
  const dir = decompressDir();
  const names = readdirSync(dir);
  const present = new Set(names);
  const headBytes = (name: string) => (present.has(`${name}.head`) ? (statOrNull(join(dir, `${name}.head`))?.size ?? 0) : 0);
  const entries = names
    .flatMap((file) => {
      const name = /^([0-9a-f]{32})(\.head)?$/.exec(file);
      if (!name) return [];
      const key = name[1]!;
      // A head counts with its entry when there is one.
      if (name[2] && present.has(key)) return [];
      const st = statOrNull(join(dir, file));
      if (!st) return [];
      if (name[2]) return [{ name: key, bytes: st.size, usedMs: st.mtimeMs }];
      const used = statOrNull(join(dir, `${key}.used`));
      return [{ name: key, bytes: st.size + headBytes(key), usedMs: used?.mtimeMs ?? st.mtimeMs }];
    })
    .sort((a, b) => a.usedMs - b.usedMs);
  let total = entries.reduce((sum, e) => sum + e.bytes, 0);
  const cap = cacheCapBytes();
  for (const e of entries) {
    if (total <= cap) break;
    if (e.name === keep || jobs.has(e.name)) continue;
    const entry = join(dir, e.name);
    rmSync(entry, { force: true });
    rmSync(`${entry}.used`, { force: true });
    rmSync(`${entry}.head`, { force: true });
    dropIndex(entry);
    total -= e.bytes;
  }
}

/**
 * A plain file with the first `wantBytes` decompressed bytes of `path` (or all of
 * them, if fewer): the app's first page while the job runs. Evicted with the entry.
 */
export async function headFileOf(path: string, format: Compression, wantBytes: number): Promise<string> {
  const v = versionOf(path);
  const head = `${v.entry}.head`;
  const known = statOrNull(head);
  if (known && known.size >= wantBytes) return head;
  const chunks: Buffer[] = [];
  let got = 0;
  const enough = new AbortController();
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (got < wantBytes) chunks.push(chunk);
      got += chunk.length;
      if (got >= wantBytes) enough.abort();
      done();
    },
  });
  try {
    await inflateTo(path, format, sink, { signal: enough.signal });
  } catch (err) {
    if (!enough.signal.aborted) throw err;
  }
  const dir = decompressDir();
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `${v.key}.head.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  writeFileSync(tmp, Buffer.concat(chunks).subarray(0, Math.max(wantBytes, 0)));
  renameSync(tmp, head);
  return head;
}
