/**
 * Deleting and moving a whole file, under the same guards as an upsert: a version
 * precondition (if_match or expected_sha256; precondition_required otherwise), the
 * file lock of every name touched, and every name made or removed through the
 * opened folder (write-target.ts) with the file pinned (pinned-file.ts), so a
 * path swapped for a link meanwhile cannot redirect the delete or the move.
 *
 * - delete: unlink the name the pin was opened through (if it is still that file),
 *   then fsync the folder. A journaled delete captures the whole content first
 *   (what undo puts back): files over MAX_JOURNALED_DELETE_BYTES are too_large.
 * - move: link(from, to) then unlink(from), each through its opened folder. link
 *   never replaces: a name at `to` fails it (precondition_failed, failed:
 *   ['destination_exists']). A crash between the two leaves both names of one
 *   inode; the review journal's recovery removes the source name then
 *   (review/file-op-intents.ts). Different file systems (EXDEV) are refused.
 * - restore: what undo of a delete does: the content goes to a private temp file
 *   beside the name, fsynced with its mode, and is then link()ed to the name, which
 *   fails if anything is there: the file appears whole or not at all.
 *
 * onBeforeWrite runs under the locks after every check, right before the first
 * visible change: the journal writes its intent there (review/intents.ts).
 */
import { createHash } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createPatch } from 'diff';
import { FolioError, fromFsError } from '../errors.ts';
import { failpoint } from '../failpoint.ts';
import { etagOf, statRegularFile } from '../index/identity.ts';
import { pinFile, renamedError, type PinnedFile } from '../index/pinned-file.ts';
import type { Version } from '../read/file-facts.ts';
import { removeStaleTemps, tempPathFor } from './atomic-write.ts';
import { withFileLock } from '../index/file-lock.ts';
import { fsyncDir } from './fsync-dir.ts';
import { fileSha256 } from './preconditions.ts';
import { openWriteTarget, type WriteTarget } from './write-target.ts';

/** The most a journaled delete keeps to undo it (the whole file goes into the journal). */
export const MAX_JOURNALED_DELETE_BYTES = 64 * 1024 * 1024;
/** Deleted files up to this size show their lines in the preview; bigger ones a summary. */
const PREVIEW_MAX_BYTES = 64 * 1024;

export type FileOp = 'delete' | 'move';

/** The whole-file preconditions a delete or a move takes (one at least). */
export interface FileOpPreconditions {
  ifMatch?: string;
  expectedSha256?: string;
}

export interface FileOpRequest {
  preconditions: FileOpPreconditions;
  dryRun?: boolean;
  /** As UpsertRequest.checked: the caller checked the path(s); they must still lead to themselves. */
  checked?: { allowHardlinks: boolean };
  /** move: create the missing folders of `to` */
  createParents?: boolean;
  /** delete: read the whole content under the lock into the plan (journaled deletes; too_large past MAX_JOURNALED_DELETE_BYTES) */
  captureContent?: boolean;
  /** Internal (the journal): called under the locks after every check, right before the first visible change. Throwing stops it. */
  onBeforeWrite?: (plan: FileOpPlan) => void | Promise<void>;
}

/** What a delete, move or restore is about to do. */
export interface FileOpPlan {
  op: FileOp | 'restore';
  /** the file's name before (restore: the name it comes back at) */
  path: string;
  /** move: the new name */
  to: string | null;
  /** of the file being deleted or moved, with its SHA-256 (restore: absent) */
  version_before: Version;
  sha256: string;
  size: number;
  mode: number;
  dev: number;
  ino: number;
  /** delete with captureContent, and restore: the whole content */
  content: Buffer | null;
}

export interface FileOpResult {
  op: FileOp | 'restore';
  path: string;
  /** move: where the file went */
  to?: string;
  applied: boolean;
  dry_run: boolean;
  version_before: Version;
  /** move and restore: the file's version at its (new) name; delete: null */
  version_after: Version | null;
  preconditions: { checked: string[] };
  /** delete: a unified diff to nothing (a summary for big or binary files); move: rename lines */
  preview: string;
  notes: string[];
  elapsed_ms: number;
}

/** What the version of a name that holds nothing is called. */
export const ABSENT_VERSION: Version = { etag: 'absent', size: 0, mtimeMs: 0 };

function versionAt(path: string): Version {
  const id = statRegularFile(path);
  return { etag: etagOf(id), size: id.size, mtimeMs: id.mtimeMs };
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** precondition_required unless `p` names one; precondition_failed (with the current version) if one fails. */
async function checkFilePreconditions(path: string, file: string, version: Version, p: FileOpPreconditions): Promise<{ checked: string[]; sha256?: string }> {
  if (p.ifMatch === undefined && p.expectedSha256 === undefined) {
    throw new FolioError('precondition_required', 'deleting or moving a file needs a precondition: if_match (the etag of your read) or expected_sha256', {
      path,
      current_version: version,
      hint: 'read the file (or file_info) first and send its version.etag back as if_match',
    });
  }
  const checked: string[] = [];
  const failed: string[] = [];
  let sha256: string | undefined;
  if (p.ifMatch !== undefined) {
    checked.push('if_match');
    if (p.ifMatch !== version.etag) failed.push('if_match');
  }
  if (p.expectedSha256 !== undefined) {
    checked.push('expected_sha256');
    sha256 = await fileSha256(file);
    if (p.expectedSha256.toLowerCase() !== sha256) failed.push('expected_sha256');
  }
  if (failed.length) {
    throw new FolioError('precondition_failed', `the file changed since it was read: ${failed.join(', ')} did not match; nothing was changed`, {
      path,
      failed,
      current_version: version,
      read: { path, head: 50 },
    });
  }
  return { checked, ...(sha256 ? { sha256 } : {}) };
}

/** precondition_failed unless the name `io` (in its opened folder) is still the pinned file. */
function refuseSwapped(io: string, pin: PinnedFile, path: string): void {
  let st;
  try {
    st = statSync(io);
  } catch (err) {
    throw fromFsError(err, path);
  }
  if (pin.ino !== 0 && (st.ino !== pin.ino || st.dev !== pin.dev)) {
    throw new FolioError('precondition_failed', `${path} was replaced by another file while it was being changed; nothing was changed`, {
      path,
      failed: ['replaced'],
    });
  }
}

function destinationExists(path: string, to: string): FolioError {
  return new FolioError('precondition_failed', `${to} exists: a move never replaces a file; delete it first or choose another name`, {
    path,
    to,
    failed: ['destination_exists'],
  });
}

/** The diff of a file going (delete) or coming back (restore): its lines when small text, else a summary. */
function wholeFilePreview(path: string, content: Buffer | null, size: number, coming = false): string {
  if (content && size <= PREVIEW_MAX_BYTES && !content.includes(0)) {
    const text = content.toString('utf8');
    if (Buffer.from(text, 'utf8').equals(content))
      return coming ? createPatch(path, '', text, 'absent', 'restored') : createPatch(path, text, '', 'current', 'deleted');
  }
  return coming
    ? `--- /dev/null\n+++ ${path}\n(restored file: ${size} bytes, not shown)\n`
    : `--- ${path}\n+++ /dev/null\n(deleted file: ${size} bytes, not shown)\n`;
}

const movePreview = (path: string, to: string) => `rename from ${path}\nrename to ${to}\n`;

interface Pinned {
  pin: PinnedFile;
  version: Version;
  mode: number;
}

/** Pin the file `target` names (as upsert does) and its version; refuses what upserts refuse (links, irregular files). */
function pinTarget(target: WriteTarget, req: FileOpRequest): Pinned {
  const pin = pinFile(target.path, { via: target.io, refuseLinks: req.checked !== undefined && !req.checked.allowHardlinks });
  try {
    const id = statRegularFile(pin.path);
    return { pin, version: { etag: etagOf(id), size: id.size, mtimeMs: id.mtimeMs }, mode: id.mode & 0o7777 };
  } catch (err) {
    pin.release();
    throw err;
  }
}

/**
 * Delete the file at `path` if it is still the version the preconditions name.
 * The answer says what went (and, dry run, what would).
 */
export async function deleteFile(path: string, req: FileOpRequest): Promise<FileOpResult> {
  const t0 = performance.now();
  const target = openWriteTarget(path, req.checked !== undefined);
  try {
    return await withFileLock(target.io, () => lockedDelete(target, req, t0), { queueKey: target.path });
  } catch (err) {
    throw renamedError(err, [[target.dir, dirname(target.path)]]);
  } finally {
    target.close();
  }
}

async function lockedDelete(target: WriteTarget, req: FileOpRequest, t0: number): Promise<FileOpResult> {
  const abs = target.path;
  const { pin, version, mode } = pinTarget(target, req);
  try {
    const pre = await checkFilePreconditions(abs, pin.path, version, req.preconditions);
    if (req.captureContent && version.size > MAX_JOURNALED_DELETE_BYTES) {
      throw new FolioError(
        'too_large',
        `${abs} is ${version.size} bytes: a journaled delete keeps the whole file to undo it, at most ${MAX_JOURNALED_DELETE_BYTES >> 20} MiB`,
        { path: abs, size: version.size, max_bytes: MAX_JOURNALED_DELETE_BYTES, hint: 'a person can delete it outside Folio' },
      );
    }
    const small = version.size <= PREVIEW_MAX_BYTES;
    const content = req.captureContent || small ? readFileSync(pin.path) : null;
    const sha256 = content ? createHash('sha256').update(content).digest('hex') : (pre.sha256 ?? (req.onBeforeWrite ? await fileSha256(pin.path) : ''));
    const base = {
      op: 'delete' as const,
      path: abs,
      version_before: sha256 ? { ...version, sha256 } : version,
      version_after: null,
      preconditions: { checked: pre.checked },
      preview: wholeFilePreview(abs, content, version.size),
    };
    if (req.dryRun) return { ...base, applied: false, dry_run: true, notes: ['dry run: nothing deleted'], elapsed_ms: performance.now() - t0 };
    await req.onBeforeWrite?.({
      op: 'delete',
      path: abs,
      to: null,
      version_before: base.version_before,
      sha256,
      size: version.size,
      mode,
      dev: pin.dev,
      ino: pin.ino,
      content: req.captureContent ? content : null,
    });
    refuseSwapped(target.io, pin, abs);
    try {
      unlinkSync(target.io);
    } catch (err) {
      throw fromFsError(err, abs);
    }
    fsyncDir(target.dir);
    failpoint('fileop.unlinked');
    return { ...base, applied: true, dry_run: false, notes: ['deleted the file'], elapsed_ms: performance.now() - t0 };
  } catch (err) {
    throw renamedError(err, [[pin.path, abs]]);
  } finally {
    pin.release();
  }
}

/**
 * Move the file at `path` to the name `to` (which must not exist), if it is still
 * the version the preconditions name. Never replaces a file.
 */
export async function moveFile(path: string, to: string, req: FileOpRequest): Promise<FileOpResult> {
  const t0 = performance.now();
  const checked = req.checked !== undefined;
  const src = openWriteTarget(path, checked);
  try {
    const dest = resolve(to);
    if (dest === src.path || dest === resolve(path))
      throw new FolioError('invalid_input', `${to} is the file itself: nothing to move`, { path: src.path, to: dest });
    if (exists(dest)) throw destinationExists(src.path, dest);
    const parentMissing = !exists(dirname(dest));
    if (parentMissing && !req.createParents) {
      throw new FolioError('not_found', `${dirname(dest)} does not exist (create_parents makes it)`, { path: src.path, to: dest, missing: dirname(dest) });
    }
    // A dry run makes nothing, folders neither: the move into new folders is only checked and previewed.
    if (parentMissing && req.dryRun) return await withFileLock(src.io, () => lockedMove(src, null, dest, req, t0), { queueKey: src.path });
    if (parentMissing) {
      try {
        mkdirSync(dirname(dest), { recursive: true });
      } catch (err) {
        throw fromFsError(err, dirname(dest));
      }
    }
    const dst = openWriteTarget(dest, checked, { create: true });
    try {
      // Both locks, always in the same order: two moves between the same names cannot deadlock.
      const [first, second] = src.path < dst.path ? [src, dst] : [dst, src];
      return await withFileLock(first.io, () => withFileLock(second.io, () => lockedMove(src, dst, dest, req, t0, parentMissing), { queueKey: second.path }), {
        queueKey: first.path,
      });
    } catch (err) {
      throw renamedError(err, [[dst.dir, dirname(dst.path)]]);
    } finally {
      dst.close();
    }
  } catch (err) {
    throw renamedError(err, [[src.dir, dirname(src.path)]]);
  } finally {
    src.close();
  }
}

async function lockedMove(src: WriteTarget, dst: WriteTarget | null, dest: string, req: FileOpRequest, t0: number, madeFolders = false): Promise<FileOpResult> {
  const abs = src.path;
  const to = dst?.path ?? dest;
  const { pin, version, mode } = pinTarget(src, req);
  try {
    const pre = await checkFilePreconditions(abs, pin.path, version, req.preconditions);
    if (dst && exists(dst.io)) throw destinationExists(abs, to);
    const sha256 = pre.sha256 ?? (req.onBeforeWrite ? await fileSha256(pin.path) : '');
    const base = {
      op: 'move' as const,
      path: abs,
      to,
      version_before: sha256 ? { ...version, sha256 } : version,
      preconditions: { checked: pre.checked },
      preview: movePreview(abs, to),
    };
    if (req.dryRun || !dst) {
      const notes = ['dry run: nothing moved', ...(dst ? [] : [`would create the folder ${dirname(to)}`])];
      return { ...base, version_after: null, applied: false, dry_run: true, notes, elapsed_ms: performance.now() - t0 };
    }
    await req.onBeforeWrite?.({
      op: 'move',
      path: abs,
      to,
      version_before: base.version_before,
      sha256,
      size: version.size,
      mode,
      dev: pin.dev,
      ino: pin.ino,
      content: null,
    });
    refuseSwapped(src.io, pin, abs);
    try {
      linkSync(src.io, dst.io);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw destinationExists(abs, to);
      if (code === 'EXDEV') {
        throw new FolioError('invalid_input', `${to} is on another file system than ${abs}: Folio moves files within one file system only`, { path: abs, to });
      }
      throw fromFsError(err, to);
    }
    fsyncDir(dst.dir);
    failpoint('fileop.linked');
    unlinkSync(src.io);
    fsyncDir(src.dir);
    failpoint('fileop.moved');
    const notes = ['moved the file', ...(madeFolders ? [`created the folder ${dirname(to)}`] : [])];
    return { ...base, version_after: versionAt(dst.io), applied: true, dry_run: false, notes, elapsed_ms: performance.now() - t0 };
  } catch (err) {
    throw renamedError(err, [[pin.path, abs]]);
  } finally {
    pin.release();
  }
}

/**
 * Put `content` back at `path` with `mode` (undo of a delete): only if nothing is
 * there (precondition_failed, failed: ['absent'], otherwise). The file appears
 * whole or not at all (a private temp file, fsynced, then link()ed to the name).
 */
export async function restoreFile(
  path: string,
  content: Buffer,
  mode: number,
  req: Pick<FileOpRequest, 'checked' | 'onBeforeWrite'> = {},
): Promise<FileOpResult> {
  const t0 = performance.now();
  const target = openWriteTarget(path, req.checked !== undefined, { create: true });
  try {
    return await withFileLock(target.io, () => lockedRestore(target, content, mode, req, t0), { queueKey: target.path });
  } catch (err) {
    throw renamedError(err, [[target.dir, dirname(target.path)]]);
  } finally {
    target.close();
  }
}

async function lockedRestore(target: WriteTarget, content: Buffer, mode: number, req: Pick<FileOpRequest, 'onBeforeWrite'>, t0: number): Promise<FileOpResult> {
  const abs = target.path;
  const occupied = () =>
    new FolioError('precondition_failed', `${abs} exists again: the deleted file cannot come back over it; nothing was written`, {
      path: abs,
      failed: ['absent'],
    });
  removeStaleTemps(target.io);
  if (exists(target.io)) throw occupied();
  const tmp = tempPathFor(target.io);
  const fd = openSync(tmp, 'wx', mode & 0o7777);
  try {
    try {
      for (let at = 0; at < content.length;) at += writeSync(fd, content, at, content.length - at);
      fchmodSync(fd, mode & 0o7777); // the umask may have narrowed the open's mode
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const made = statSync(tmp);
    const sha256 = createHash('sha256').update(content).digest('hex');
    await req.onBeforeWrite?.({
      op: 'restore',
      path: abs,
      to: null,
      version_before: ABSENT_VERSION,
      sha256,
      size: content.length,
      mode,
      dev: made.dev,
      ino: made.ino,
      content,
    });
    try {
      linkSync(tmp, target.io);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw occupied();
      throw fromFsError(err, abs);
    }
    failpoint('fileop.restore-linked');
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // gone already
    }
  }
  fsyncDir(target.dir);
  failpoint('fileop.restored');
  return {
    op: 'restore',
    path: abs,
    applied: true,
    dry_run: false,
    version_before: ABSENT_VERSION,
    version_after: versionAt(target.io),
    preconditions: { checked: ['absent'] },
    preview: wholeFilePreview(abs, content, content.length, true),
    notes: ['restored the file'],
    elapsed_ms: performance.now() - t0,
  };
}
