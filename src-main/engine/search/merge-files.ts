/**
 * The files a merge of logs (merge.ts) takes from what a person types: a file as
 * it is; a directory, for the regular files directly in it whose lines are
 * stamped, by name; a glob (picomatch: `logs/*.log`, `logs/**\/*.log`), for the
 * regular files it matches whose lines are stamped, by path. "Stamped" is what
 * merge asks of a file: a time format found in its first lines (time-probe.ts),
 * so a README or an empty file in the folder is left out instead of failing.
 */
import { closeSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import picomatch from 'picomatch';
import { FolioError, fromFsError } from '../errors.ts';
import { openForRead } from '../index/identity.ts';
import { timeSchemeOf } from './time-probe.ts';

/** `args` with each directory and glob replaced by its stamped files; invalid_input when one of them gives none. */
export function mergeFilesOf(args: readonly string[]): string[] {
  return args.flatMap((arg) => {
    const files = filesOf(arg);
    if (files === null) return [arg];
    const stamped = files.filter(isStamped);
    if (stamped.length === 0) {
      throw new FolioError('invalid_input', `no stamped log ${files.length === 0 ? 'in' : 'among the files of'} ${arg}`, {
        field: 'paths',
        path: arg,
        files: files.length,
      });
    }
    return stamped;
  });
}

/** A directory's or a glob's regular files, in order; null for a path that is neither (a file, or nothing: merge says which). */
function filesOf(arg: string): string[] | null {
  let isDir: boolean | null = null;
  try {
    isDir = statSync(arg).isDirectory();
  } catch (err) {
    if (!picomatch.scan(arg).isGlob) return null;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw fromFsError(err, arg);
  }
  if (isDir === false) return null;
  if (isDir) {
    const names = readdirSync(arg, { withFileTypes: true }).filter((d) => d.isFile() || (d.isSymbolicLink() && isFile(join(arg, d.name))));
    return names.map((d) => join(arg, d.name)).sort(byName);
  }
  const { base, glob } = picomatch.scan(arg);
  if (!glob) return null;
  const root = base || '.';
  const matches = picomatch(glob);
  let entries: string[];
  try {
    // Only as deep as the glob can reach: one level unless it has a slash (or **).
    entries = glob.includes('/') ? readdirSync(root, { recursive: true, encoding: 'utf8' }) : readdirSync(root, { encoding: 'utf8' });
  } catch (err) {
    throw fromFsError(err, root);
  }
  return entries
    .filter((rel) => matches(rel.split('\\').join('/')))
    .map((rel) => join(root, rel))
    .filter(isFile)
    .sort((a, b) => byName(relative(root, a), relative(root, b)));
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Whether merge can read the file's stamps (a non-empty ASCII-compatible file with a time format in its first lines). */
function isStamped(path: string): boolean {
  let fd: number;
  try {
    fd = openForRead(path);
  } catch {
    return false;
  }
  try {
    const size = statSync(path).size;
    if (size === 0) return false;
    timeSchemeOf(fd, path, size, 'utf-8');
    return true;
  } catch (err) {
    if (err instanceof FolioError) return false;
    throw err;
  } finally {
    closeSync(fd);
  }
}
