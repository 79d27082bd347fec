/**
 * Where a write goes, decided once. A write touches several names in the file's
 * directory: the lock, the append intent, the temp file and the rename over the
 * file. Made by path, each of them could land in another directory if a process
 * swaps a directory of the path for a symlink in between (an adversarial run had
 * appends and temp files land outside the root). So the directory is opened
 * (O_DIRECTORY | O_NOFOLLOW), the kernel is asked where that open landed
 * (`/proc/self/fd/D`), the answer must be the directory the caller means, and
 * every name is then made through `/proc/self/fd/D/NAME`: inside that very
 * directory, whatever happens to its path meanwhile. The file itself is pinned
 * the same way under the lock (index/pinned-file.ts), so what is read, copied and
 * appended to is the file that was checked.
 *
 * Where /proc/self/fd does not exist (not Linux) names go by path, and the race
 * stays open there (docs/API.md says so).
 */
import { closeSync, constants, openSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { FolioError, fromFsError } from '../errors.ts';
import { HAS_PROC_FD, PROC_FD } from '../index/pinned-file.ts';

export interface WriteTarget {
  /** the file as callers name it: absolute, every symbolic link resolved */
  path: string;
  /** the directory to lock, create and rename in: `/proc/self/fd/D` of the opened directory (or the path where there is no /proc) */
  dir: string;
  /** the file's name inside `dir` */
  io: string;
  close(): void;
}

/**
 * Open the directory of `path` (with `create`, `path` may not exist yet). With `checked` the caller resolved and checked
 * `path` itself (the agent guard): it must still lead to itself, or the write is
 * refused with permission_denied. Without it (a person's own edit), a symbolic
 * link is followed once, here, and the file it leads to is written.
 */
export function openWriteTarget(path: string, checked: boolean, opts: { create?: boolean } = {}): WriteTarget {
  const abs = resolve(path);
  let real: string;
  try {
    real = realpathSync.native(abs); // one realpath(3): the JS walk fails oddly (EINVAL) when a component is swapped mid-walk
  } catch (err) {
    if (!opts.create || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw fromFsError(err, abs);
    // A file to create: its folder must exist (and is resolved the same way).
    try {
      real = join(realpathSync.native(dirname(abs)), basename(abs));
    } catch (e) {
      throw fromFsError(e, dirname(abs));
    }
  }
  if (checked && real !== abs) {
    throw new FolioError('permission_denied', `${abs} changed after it was checked: it now leads to ${real}; nothing was written`, {
      path: abs,
      resolved: real,
    });
  }
  const dir = dirname(real);
  if (!HAS_PROC_FD) return { path: real, dir, io: real, close() {} };
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') {
      throw new FolioError('permission_denied', `${dir} became a symbolic link while it was opened; nothing was written`, { path: real });
    }
    throw fromFsError(err, dir);
  }
  const pinned = `${PROC_FD}/${fd}`;
  const landed = readlinkSync(pinned);
  if (landed !== dir) {
    closeSync(fd);
    throw new FolioError('permission_denied', `${dir} changed while it was opened (it led to ${landed}); nothing was written`, {
      path: real,
      resolved: landed,
    });
  }
  return { path: real, dir: pinned, io: `${pinned}/${basename(real)}`, close: () => closeSync(fd) };
}
