/**
 * Exclusive per-file lock across processes: an O_EXCL lock file beside the target
 * (`.NAME.folio-lock`) holding the owner's pid. A lock whose owner process is gone
 * is stale and is broken at once — so a writer killed mid-upsert (SIGKILL) never
 * blocks the next one; mtime-based lock libraries would wait out a stale period.
 *
 * Breaking a stale lock is itself race-free for the lock's identity: the breaker
 * renames the lock file to a name of its own (atomic: one breaker wins), checks it
 * still names the dead pid, then deletes it.
 *
 * Within one process, callers for the same file are also queued in memory, so
 * concurrent async upserts in one server never spin on the lock file.
 */
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { FolioError, fromFsError } from './errors.ts';

export interface LockOptions {
  /** Give up after this long (ms) with a `conflict` error naming the holder. */
  timeoutMs?: number;
}

export function lockPathOf(path: string): string {
  return join(dirname(path), `.${basename(path)}.folio-lock`);
}

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(lockPath: string): number | null {
  try {
    return Number(readFileSync(lockPath, 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
}

function tryAcquire(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw fromFsError(err, lockPath);
  }
  try {
    writeSync(fd, `${process.pid}\n${Date.now()}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Break the lock if its owner is dead. */
function breakIfStale(lockPath: string): void {
  const pid = holderOf(lockPath);
  if (pid === null || pidAlive(pid)) return;
  const mine = `${lockPath}.breaking-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(lockPath, mine);
  } catch {
    return; // someone else broke it first
  }
  if (holderOf(mine) === pid) {
    unlinkSync(mine);
  } else {
    // Not the stale lock any more: give it back to its owner.
    try {
      renameSync(mine, lockPath);
    } catch {
      unlinkSync(mine);
    }
  }
}

const queues = new Map<string, Promise<unknown>>();

/** Run `fn` holding the exclusive lock of `path` (an absolute path). */
export async function withFileLock<T>(path: string, fn: () => Promise<T> | T, opts: LockOptions = {}): Promise<T> {
  const prev = queues.get(path) ?? Promise.resolve();
  const run = prev.catch(() => undefined).then(() => lockedRun(path, fn, opts));
  queues.set(path, run);
  try {
    return await run;
  } finally {
    if (queues.get(path) === run) queues.delete(path);
  }
}

async function lockedRun<T>(path: string, fn: () => Promise<T> | T, opts: LockOptions): Promise<T> {
  const lockPath = lockPathOf(path);
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  let wait = 2;
  while (!tryAcquire(lockPath)) {
    breakIfStale(lockPath);
    if (Date.now() > deadline) {
      throw new FolioError('conflict', `${path} is locked by another writer (pid ${holderOf(lockPath) ?? 'unknown'})`, {
        path,
        holder_pid: holderOf(lockPath),
        lock: lockPath,
      });
    }
    await new Promise((r) => setTimeout(r, wait + Math.random() * wait));
    wait = Math.min(50, wait * 2);
  }
  try {
    return await fn();
  } finally {
    try {
      unlinkSync(lockPath);
    } catch {
      // already gone: nothing to release
    }
  }
}
