/**
 * Exclusive per-file lock across processes: a lock file beside the target
 * (`.NAME.folio-lock`) holding the owner's pid and a nonce.
 *
 * - Acquire: the content is written to a private temp file first and then
 *   link()ed to the lock name, which fails if the lock exists: a lock file is never
 *   seen half-written.
 * - Stale: a lock whose owner process is gone is broken at once, so a writer
 *   killed mid-upsert (SIGKILL) never blocks the next one (mtime-based lock
 *   libraries would wait out a stale period). Breakers are serialized by a second
 *   owned file (`.NAME.folio-lock.break`, made the same way); under it the breaker
 *   re-reads the lock and deletes it only if it still names the same dead owner and
 *   nonce. A breaker file whose owner died (or that is older than a few seconds)
 *   is removed at once.
 * - Release: only if the lock still holds our nonce.
 *
 * Within one process, callers for the same file are also queued in memory, so
 * concurrent async upserts in one server never spin on the lock file.
 *
 * It sits in index/ (not write/) because readers take it too, without waiting:
 * one that finds a dead append's intent settles it on its way
 * (append-limit.ts, tryFileLockSync).
 */
import { failpoint } from '../failpoint.ts';
import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { FolioError, fromFsError } from '../errors.ts';

export interface LockOptions {
  /** Give up after this long (ms) with a `conflict` error naming the holder. */
  timeoutMs?: number;
  /** The in-process queue's key when `path` is one call's own name of the file (a path inside an opened directory). */
  queueKey?: string;
}

const BREAKER_STALE_MS = 5000;

export function lockPathOf(path: string): string {
  return join(dirname(path), `.${basename(path)}.folio-lock`);
}

/** Whether process `pid` runs (EPERM: it does, as another user). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface Holder {
  pid: number;
  nonce: string;
}

function holderOf(lockPath: string): Holder | null {
  try {
    const [pid, nonce] = readFileSync(lockPath, 'utf8').split('\n');
    const n = Number(pid);
    return Number.isInteger(n) && n > 0 && nonce ? { pid: n, nonce } : null;
  } catch {
    return null;
  }
}

/**
 * Create `path` holding our pid and `nonce`, whole or not at all: the content goes
 * to a private file first, which is then link()ed to `path` (fails if it exists).
 */
function createOwned(path: string, nonce: string): boolean {
  const tmp = `${path}.${process.pid}-${nonce}`;
  try {
    writeFileSync(tmp, `${process.pid}\n${nonce}\n`, { mode: 0o644 });
  } catch (err) {
    throw fromFsError(err, tmp);
  }
  failpoint('lock.private-written');
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw fromFsError(err, path);
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // removed by a cleanup already
    }
  }
}

/** The breaker file of a lock: whoever holds it may break the lock. */
export function breakerPathOf(lockPath: string): string {
  return `${lockPath}.break`;
}

/** True if the owned file at `path` (a lock or a breaker) names a process that is gone. */
export function ownerDead(path: string): boolean {
  const h = holderOf(path);
  return h !== null && !pidAlive(h.pid);
}

/** Break the lock if its owner is dead; breakers take turns. */
function breakIfStale(lockPath: string, nonce: string): void {
  const seen = holderOf(lockPath);
  if (!seen || pidAlive(seen.pid)) return;
  const breaker = breakerPathOf(lockPath);
  if (!createOwned(breaker, nonce)) {
    // Another breaker is at work, or one died: a dead one's file goes at once, an old one's too.
    try {
      if (ownerDead(breaker) || Date.now() - statSync(breaker).mtimeMs > BREAKER_STALE_MS) unlinkSync(breaker);
    } catch {
      // gone already
    }
    return;
  }
  failpoint('lock.breaker-taken');
  try {
    const now = holderOf(lockPath);
    if (now && now.pid === seen.pid && now.nonce === seen.nonce) unlinkSync(lockPath);
  } finally {
    release(breaker, nonce);
  }
}

function release(path: string, nonce: string): void {
  if (holderOf(path)?.nonce !== nonce) return; // not ours any more: never remove another's
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

const queues = new Map<string, Promise<unknown>>();

/** Run `fn` holding the exclusive lock of `path` (an absolute path). */
export async function withFileLock<T>(path: string, fn: () => Promise<T> | T, opts: LockOptions = {}): Promise<T> {
  const key = opts.queueKey ?? path;
  const prev = queues.get(key) ?? Promise.resolve();
  const run = prev.catch(() => undefined).then(() => lockedRun(path, fn, opts));
  queues.set(key, run);
  try {
    return await run;
  } finally {
    if (queues.get(key) === run) queues.delete(key);
  }
}

async function lockedRun<T>(path: string, fn: () => Promise<T> | T, opts: LockOptions): Promise<T> {
  const lockPath = lockPathOf(path);
  const nonce = Math.random().toString(36).slice(2, 12);
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  let wait = 2;
  while (!createOwned(lockPath, nonce)) {
    breakIfStale(lockPath, nonce);
    if (Date.now() > deadline) {
      throw new FolioError('conflict', `${path} is locked by another writer (pid ${holderOf(lockPath)?.pid ?? 'unknown'})`, {
        path,
        holder_pid: holderOf(lockPath)?.pid ?? null,
        lock: lockPath,
      });
    }
    await new Promise((r) => setTimeout(r, wait + Math.random() * wait));
    wait = Math.min(50, wait * 2);
  }
  failpoint('lock.taken');
  try {
    return await fn();
  } finally {
    release(lockPath, nonce);
  }
}

/**
 * Run `fn` holding the lock of `path` if it can be had at once (a dead holder's
 * lock is broken first), else return undefined without waiting: a reader settling
 * a dead append on its way (append-limit.ts) must never block on a live writer,
 * who settles it itself. Within this process a caller of withFileLock holding the
 * lock makes it busy too (the lock file names this pid and another nonce).
 */
export function tryFileLockSync<T>(path: string, fn: () => T): T | undefined {
  const lockPath = lockPathOf(path);
  const nonce = Math.random().toString(36).slice(2, 12);
  if (!createOwned(lockPath, nonce)) {
    breakIfStale(lockPath, nonce);
    if (!createOwned(lockPath, nonce)) return undefined;
  }
  try {
    return fn();
  } finally {
    release(lockPath, nonce);
  }
}
