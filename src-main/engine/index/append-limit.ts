/**
 * What readers see of a file an append is (or was, when killed) writing. An
 * append that spans pages records the size before it in `.NAME.folio-append`
 * (write/append-intent.ts) and drops that intent once the bytes are fsynced. While
 * an intent exists, readers take the file as ending at the recorded size: the old
 * version, whole. They never truncate: without the file lock a reader cannot know
 * that no writer has since recovered the file and appended good bytes (those are
 * then only hidden, until the intent is gone, never lost). The next writer, under
 * the lock, truncates a dead append away and drops the intent.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const PINNED = /^\/proc\/self\/fd\/\d+$/;

/**
 * Where the append intent of `path` is: beside it. A pinned file (`/proc/self/fd/N`)
 * has its intent beside the file it leads to. (A write names the file inside its
 * opened directory, `/proc/self/fd/D/NAME`: that path is used as it is.)
 */
export function appendIntentPathOf(path: string): string {
  let named = path;
  if (PINNED.test(path)) {
    try {
      named = readlinkSync(path);
    } catch {
      // closed meanwhile: no intent to find
    }
  }
  return join(dirname(named), `.${basename(named)}.folio-append`);
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
 * The size readers should take `path` as having, given its size on disk: the size
 * before the append while its bytes may be incomplete. Bytes past the append's
 * end were written by someone else after it (another program appending to its
 * log): they are shown, since hiding them would hide that program's lines too.
 */
export function visibleSizeOf(path: string, size: number): number {
  const intent = appendIntentOf(path);
  if (!intent || intent.sizeBefore >= size) return size;
  if (intent.length !== undefined && size > intent.sizeBefore + intent.length) return size;
  return intent.sizeBefore;
}
