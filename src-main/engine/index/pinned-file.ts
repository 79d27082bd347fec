/**
 * Files a race cannot swap: the path to an open descriptor.
 *
 * A caller that checked a path (the agent guard: realpath, roots, globs) and then
 * opens it again by name can be steered elsewhere by a process that swaps a
 * directory of that path, or the file itself, for a symlink or a hard link in
 * between (an adversarial run reached outside the root in 91 of 4,000 reads). So
 * the file is opened once (O_NOFOLLOW: no final symlink; O_NONBLOCK: a FIFO swapped
 * in cannot block), the kernel is asked where that open landed
 * (`/proc/self/fd/N`), the answer must be the path that was checked, and callers
 * get `/proc/self/fd/N`: every later open of it (facts, index workers, windows,
 * search workers, an append's reopen for writing) reaches that same file, whatever
 * happens to the path meanwhile.
 *
 * Pins are kept per file (device and inode) and reused while that file is there,
 * so the engine's per-path caches (line index, outline, token maps) still hit
 * across calls; a pin in use is never closed (its fd number could be reused for
 * another file). Where /proc/self/fd does not exist (not Linux), the checked path
 * is used as before, and the race stays open there (docs/API.md says so).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FolioError, fromFsError } from '../errors.ts';
import { refuseIrregular } from './identity.ts';

export const PROC_FD = '/proc/self/fd';
export const HAS_PROC_FD = existsSync(PROC_FD);
/** Unused pins kept open at most (each holds one fd). */
const MAX_IDLE_PINS = 32;

interface Pin {
  fd: number;
  key: string;
  refs: number;
  lastUsed: number;
}

const pins = new Map<string, Pin>();

export interface PinOptions {
  /**
   * Open this path rather than `real` itself: the file's name inside a directory
   * that was opened and checked already (write/write-target.ts). The open must
   * still land on `real`.
   */
  via?: string;
  /** Refuse a file with more than one link: another name of it may be outside the root or denied (default true). */
  refuseLinks?: boolean;
}

/** A pinned file: read (or reopen) it through `path`; call release() when done. */
export interface PinnedFile {
  /** `/proc/self/fd/N` (or the checked path where there is no /proc) */
  path: string;
  dev: number;
  ino: number;
  release(): void;
}

function evictIdle(): void {
  const idle = [...pins.values()].filter((p) => p.refs === 0).sort((a, b) => a.lastUsed - b.lastUsed);
  for (const p of idle.slice(0, Math.max(0, idle.length - MAX_IDLE_PINS))) {
    pins.delete(p.key);
    closeSync(p.fd);
  }
}

/**
 * Wait until no rename or unlink is under way in the folder that holds `path`.
 *
 * Removing a name (unlink, or a rename over it) drops the file's link count before
 * the name leaves the kernel's name cache, and /proc/self/fd reads that cache. So
 * between the two, an fd opened through a hard link that is being swapped out shows
 * one link and the checked path: a raw open/fstat/readlink loop beside a CPU hog saw
 * that in 432 of 1,032,682 checks (test/engine/pinned-file.test.ts hammers the pin).
 * The kernel holds the folder's lock for the whole removal, and looking up a name
 * that is not cached takes that lock, so one lookup of a fresh random name, between
 * the fstat and the readlink, waits for any removal the fstat saw to finish; the
 * readlink then shows the name gone. The cost is one failed lstat, and one negative
 * entry in the kernel's name cache (reclaimed under memory pressure). A write's
 * `via` goes through its folder's own fd, so the lookup reaches that very folder.
 */
function waitForNameChanges(path: string): void {
  try {
    lstatSync(join(dirname(path), `.folio-pin-${randomBytes(8).toString('hex')}`), { throwIfNoEntry: false });
  } catch {
    // only the wait matters: a folder that cannot be searched is refused by the open's own checks
  }
}

/** Open `real` as the caller checked it, or permission_denied if the open landed anywhere else. */
function openChecked(real: string, opts: PinOptions): { fd: number; key: string; dev: number; ino: number } {
  let fd: number;
  try {
    fd = openSync(opts.via ?? real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new FolioError('permission_denied', `${real} became a symbolic link after it was checked`, { path: real });
    }
    throw fromFsError(err, real);
  }
  try {
    // In this order: a link count taken while the name we opened is still there (the readlink after shows it is)
    // counts that name. The other order lets a hard link swapped out between the two pass as a single link, and
    // so does a removal under way at the fstat unless the readlink waits for it to finish.
    const st = fstatSync(fd);
    waitForNameChanges(opts.via ?? real);
    const landed = readlinkSync(`${PROC_FD}/${fd}`);
    if (landed !== real) {
      throw new FolioError('permission_denied', `${real} changed while it was opened (it led to ${landed}); nothing was read or written`, {
        path: real,
        resolved: landed,
      });
    }
    refuseIrregular(real, st);
    if (st.nlink > 1 && opts.refuseLinks !== false) {
      throw new FolioError('permission_denied', `${real} has ${st.nlink} hard links (gained after it was checked, or not allowed)`, {
        path: real,
        links: st.nlink,
      });
    }
    return adoptKey(fd, st);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function adoptKey(fd: number, st: { dev: number; ino: number }): { fd: number; key: string; dev: number; ino: number } {
  return { fd, key: `${st.dev}:${st.ino}`, dev: st.dev, ino: st.ino };
}

function held(opened: { fd: number; key: string; dev: number; ino: number }): PinnedFile {
  let pin = pins.get(opened.key);
  if (pin) closeSync(opened.fd);
  else pins.set(opened.key, (pin = { fd: opened.fd, key: opened.key, refs: 0, lastUsed: 0 }));
  pin.refs++;
  const p = pin;
  let released = false;
  return {
    path: `${PROC_FD}/${p.fd}`,
    dev: opened.dev,
    ino: opened.ino,
    release() {
      if (released) return;
      released = true;
      p.refs--;
      p.lastUsed = Date.now();
      evictIdle();
    },
  };
}

/** Pin the file `real` names now (checked by the caller); release it when done. */
export function pinFile(real: string, opts: PinOptions = {}): PinnedFile {
  if (!HAS_PROC_FD) return { path: opts.via ?? real, dev: 0, ino: 0, release() {} };
  return held(openChecked(real, opts));
}

/**
 * Make an fd this process opened (a file it just created) the pin of its file; the
 * fd then belongs to the pin table. Null where there is no /proc (the fd is closed).
 */
export function adoptPin(fd: number): PinnedFile | null {
  if (!HAS_PROC_FD) {
    closeSync(fd);
    return null;
  }
  return held(adoptKey(fd, fstatSync(fd)));
}

/** `text` with the path `from` (not a longer fd number) named `to`. */
function renamedText(text: string, from: string, to: string): string {
  return text.includes(from) ? text.replace(new RegExp(`${from.replace(/[/.]/g, '\\$&')}(?!\\d)`, 'g'), to) : text;
}

/**
 * `value` with every `path` field that names the engine's path `from` naming `to`.
 * Only path fields: file text in an answer may hold anything and stays as it is.
 */
function renamedPaths<T>(value: T, from: string, to: string): T {
  if (Array.isArray(value)) return value.map((v) => renamedPaths(v, from, to)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === 'path' && typeof v === 'string' ? renamedText(v, from, to) : renamedPaths(v, from, to)]),
    ) as T;
  }
  return value;
}

/** An error as its caller should see it: each pinned path `from` named as the caller asked (`to`). */
export function renamedError(err: unknown, renames: [from: string, to: string][]): unknown {
  if (!(err instanceof FolioError)) return err;
  const text = (s: string) => renames.reduce((t, [from, to]) => renamedText(t, from, to), s);
  const walk = (v: unknown): unknown =>
    typeof v === 'string'
      ? text(v)
      : Array.isArray(v)
        ? v.map(walk)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
          : v;
  return new FolioError(err.code, text(err.message), walk(err.details) as Record<string, unknown>);
}

/**
 * Run `use` with a path to exactly the file `real` names now (checked by the
 * caller); what it answers or throws names `real` again.
 */
export async function withPinnedFile<T>(real: string, use: (enginePath: string) => Promise<T>, opts: PinOptions = {}): Promise<T> {
  if (!HAS_PROC_FD) return use(real);
  const pin = pinFile(real, opts);
  try {
    return renamedPaths(await use(pin.path), pin.path, real);
  } catch (err) {
    throw renamedError(err, [[pin.path, real]]);
  } finally {
    pin.release();
  }
}

/** Close every idle pin (tests, shutdown). */
export function releasePins(): void {
  for (const p of [...pins.values()]) {
    if (p.refs === 0) {
      pins.delete(p.key);
      closeSync(p.fd);
    }
  }
}
