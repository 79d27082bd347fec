/**
 * Agent reads that a race cannot steer out of the root.
 *
 * checkAccess decides on a path (realpath, roots, globs). A process that swaps a
 * directory of that path for a symlink between the check and the engine's open
 * would have the engine open a file outside the root (an adversarial run reached
 * outside in 91 of 4,000 reads). So the guard opens the file itself (O_NOFOLLOW:
 * no final symlink; O_NONBLOCK: a FIFO swapped in cannot block), asks the kernel
 * where that open landed (`/proc/self/fd/N`), requires it to be the path it
 * checked, and hands the engine `/proc/self/fd/N`. Every open the engine then
 * makes of it (facts, index workers, windows, search workers) reopens that same
 * file, whatever happens to the path meanwhile.
 *
 * Pins are kept per file (device and inode) and reused while that file is there,
 * so the engine's per-path caches (line index, outline, token maps) still hit
 * across calls; a pin in use is never closed (its fd number could be reused for
 * another file). Where /proc/self/fd does not exist (not Linux), the checked path
 * is used as before, and the race stays open there (docs/API.md says so).
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readlinkSync } from 'node:fs';
import { FolioError, fromFsError } from '../../engine/errors.ts';

const PROC_FD = '/proc/self/fd';
const HAS_PROC_FD = existsSync(PROC_FD);
/** Unused pins kept open at most (each holds one fd). */
const MAX_IDLE_PINS = 32;

interface Pin {
  fd: number;
  key: string;
  refs: number;
  lastUsed: number;
}

const pins = new Map<string, Pin>();

function evictIdle(): void {
  const idle = [...pins.values()].filter((p) => p.refs === 0).sort((a, b) => a.lastUsed - b.lastUsed);
  for (const p of idle.slice(0, Math.max(0, idle.length - MAX_IDLE_PINS))) {
    pins.delete(p.key);
    closeSync(p.fd);
  }
}

/** Open `real` as the guard checked it, or permission_denied if the open landed anywhere else. */
function openChecked(real: string): { fd: number; key: string } {
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new FolioError('permission_denied', `${real} became a symbolic link after it was checked`, { path: real });
    }
    throw fromFsError(err, real);
  }
  try {
    const landed = readlinkSync(`${PROC_FD}/${fd}`);
    const st = fstatSync(fd);
    if (landed !== real || !st.isFile()) {
      throw new FolioError('permission_denied', `${real} changed while it was opened (it led to ${landed}); nothing was read`, {
        path: real,
        resolved: landed,
      });
    }
    if (st.nlink > 1) {
      throw new FolioError('permission_denied', `${real} gained hard links after it was checked`, { path: real, links: st.nlink });
    }
    return { fd, key: `${st.dev}:${st.ino}` };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** `text` with the engine's path `from` (not a longer fd number) named `to`. */
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

/** An error as the agent should see it: the engine's path named as the agent asked. */
function renamedError(err: unknown, from: string, to: string): unknown {
  if (!(err instanceof FolioError)) return err;
  const walk = (v: unknown): unknown =>
    typeof v === 'string'
      ? renamedText(v, from, to)
      : Array.isArray(v)
        ? v.map(walk)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
          : v;
  return new FolioError(err.code, renamedText(err.message, from, to), walk(err.details) as Record<string, unknown>);
}

/**
 * Run `use` with a path to exactly the file `real` names now (checked by the
 * caller with checkAccess); what it answers or throws names `real` again.
 */
export async function withPinnedFile<T>(real: string, use: (enginePath: string) => Promise<T>): Promise<T> {
  if (!HAS_PROC_FD) return use(real);
  const opened = openChecked(real);
  let pin = pins.get(opened.key);
  if (pin) closeSync(opened.fd);
  else pins.set(opened.key, (pin = { fd: opened.fd, key: opened.key, refs: 0, lastUsed: 0 }));
  pin.refs++;
  const enginePath = `${PROC_FD}/${pin.fd}`;
  try {
    return renamedPaths(await use(enginePath), enginePath, real);
  } catch (err) {
    throw renamedError(err, enginePath, real);
  } finally {
    pin.refs--;
    pin.lastUsed = Date.now();
    evictIdle();
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
