/**
 * What readers see of a file an append is (or was, when killed) writing. An
 * append that spans pages records the size before it in `.NAME.folio-append`
 * (write/append-intent.ts) and drops that intent once the bytes are fsynced.
 *
 * A killed append is all or nothing, and it is nothing: its intent stays, and
 * whoever finds it settles it the way SQLite settles a hot journal on the next
 * open, by rolling back: the file is truncated to the size the intent recorded.
 * Rolling forward is not possible (the bytes not copied are gone with the
 * process), and readers were shown the old version all along, so a whole copy
 * whose writer died before dropping the intent is taken back too: the writer
 * never answered, and an agent that retries then appends it once.
 *
 * Settling takes the file lock without waiting (file-lock.ts, tryFileLockSync),
 * so every Folio process settles, readers included: whoever holds the lock knows
 * the intent's writer is dead (a live writer drops its intent before releasing).
 * A reader that cannot take the lock (a live writer has it and will settle first)
 * or cannot write the file (a read-only folder) takes the file as ending at the
 * recorded size: the old version, whole. Bytes another program appended after
 * the dead append are kept and shown (truncating would cut its lines).
 */
import { pidAlive, tryFileLockSync } from './file-lock.ts';
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, readlinkSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const PINNED = /^\/proc\/self\/fd\/\d+$/;

/**
 * Where the append intent of `path` is: beside it. A pinned file (`/proc/self/fd/N`)
 * has its intent beside the file it leads to. (A write names the file inside its
 * opened directory, `/proc/self/fd/D/NAME`: that path is used as it is.)
 */
export function appendIntentPathOf(path: string): string {
  const named = PINNED.test(path) ? (namedPathOf(path) ?? path) : path; // closed meanwhile: no intent to find
  return join(dirname(named), `.${basename(named)}.folio-append`);
}

/** The name a pinned file (`/proc/self/fd/N`) leads to, or null if it is closed. */
function namedPathOf(pinned: string): string | null {
  try {
    return readlinkSync(pinned);
  } catch {
    return null;
  }
}

export interface AppendIntent {
  pid: number;
  sizeBefore: number;
  /** bytes the append writes; absent in an intent of an older Folio */
  length?: number;
}

/** The intent an append in flight or an interrupted one left for `path`, or null. */
export function appendIntentOf(path: string): AppendIntent | null {
  let text: string;
  try {
    text = readFileSync(appendIntentPathOf(path), 'utf8');
  } catch {
    return null;
  }
  const [pid, size, length] = text.split('\n');
  const sizeBefore = Number(size);
  if (!size || !Number.isSafeInteger(sizeBefore) || sizeBefore < 0) return null;
  const n = Number(length);
  return { pid: Number(pid), sizeBefore, ...(length && Number.isSafeInteger(n) && n > 0 ? { length: n } : {}) };
}

/**
 * The size readers should take a file as having, given its size on disk and its
 * intent: the size before the append while its bytes may be incomplete. Bytes
 * past the append's end were written by someone else after it (another program
 * appending to its log): they are shown, since hiding them would hide that
 * program's lines too.
 */
export function visibleSize(intent: AppendIntent | null, size: number): number {
  if (!intent || intent.sizeBefore >= size) return size;
  if (intent.length !== undefined && size > intent.sizeBefore + intent.length) return size;
  return intent.sizeBefore;
}

/** visibleSize of `path` as its intent (if any) says now. */
export function visibleSizeOf(path: string, size: number): number {
  return visibleSize(appendIntentOf(path), size);
}

export function dropAppendIntent(path: string): void {
  try {
    unlinkSync(appendIntentPathOf(path));
  } catch {
    // already gone
  }
}

/**
 * Under the file lock: settle an append a dead writer left, and drop its intent.
 * - Its bytes, whole or in part, and nothing after: the file is truncated back to
 *   the size before it (the old version, which readers were shown meanwhile).
 * - Part of them, then bytes another program appended after it (its log went on
 *   growing): kept as they are, since truncating would cut that program's lines.
 *   The cut append stays in the file.
 * `path` is the file's name in its (opened) directory, where the intent is;
 * `file` is what is truncated (its pin). Returns the bytes cut (0 when kept), or
 * null if there was no intent.
 */
export function recoverInterruptedAppend(path: string, file: string = path): number | null {
  const intent = appendIntentOf(path);
  if (!intent) {
    dropAppendIntent(path); // an unreadable (empty) intent: the writer died before recording, so before appending
    return null;
  }
  const fd = openSync(file, 'r+');
  let cut = 0;
  try {
    const size = fstatSync(fd).size;
    const end = intent.length === undefined ? size : intent.sizeBefore + intent.length;
    if (size > intent.sizeBefore && size <= end) {
      ftruncateSync(fd, intent.sizeBefore);
      fsyncSync(fd);
      cut = size - intent.sizeBefore;
    }
  } finally {
    closeSync(fd);
  }
  dropAppendIntent(path);
  return cut;
}

/**
 * A reader's part: if `intent` is a dead writer's and the lock can be had at once,
 * settle it (recoverInterruptedAppend) and return true: the caller stats the file
 * again. `seen` is the file the caller stat()ed: a name that now leads to another
 * file is left alone. False when the writer may be alive, the lock is busy, or the
 * file or its folder cannot be written: the caller hides the append instead.
 */
export function settleDeadAppend(path: string, intent: AppendIntent, seen: { dev: number; ino: number }): boolean {
  // An intent without a valid pid is not settled here: it was not written by a Folio writer.
  if (!Number.isInteger(intent.pid) || intent.pid <= 0 || pidAlive(intent.pid)) return false;
  const named = PINNED.test(path) ? namedPathOf(path) : path;
  if (named === null) return false;
  try {
    return (
      tryFileLockSync(named, () => {
        const st = statSync(named);
        if (st.dev !== seen.dev || st.ino !== seen.ino) return false;
        return recoverInterruptedAppend(named) !== null;
      }) ?? false
    );
  } catch {
    return false; // read-only: readers hide the dead append, the next writer settles it
  }
}
