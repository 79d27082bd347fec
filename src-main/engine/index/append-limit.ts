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
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export function appendIntentPathOf(path: string): string {
  return join(dirname(path), `.${basename(path)}.folio-append`);
}

export interface AppendIntent {
  pid: number;
  sizeBefore: number;
}

/** The intent an append in flight or an interrupted one left for `path`, or null. */
export function appendIntentOf(path: string): AppendIntent | null {
  let text: string;
  try {
    text = readFileSync(appendIntentPathOf(path), 'utf8');
  } catch {
    return null;
  }
  const [pid, size] = text.split('\n');
  const sizeBefore = Number(size);
  return size && Number.isSafeInteger(sizeBefore) && sizeBefore >= 0 ? { pid: Number(pid), sizeBefore } : null;
}

/** The size readers should take `path` as having, given its size on disk. */
export function visibleSizeOf(path: string, size: number): number {
  const intent = appendIntentOf(path);
  return intent && intent.sizeBefore < size ? intent.sizeBefore : size;
}
