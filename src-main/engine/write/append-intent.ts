/**
 * All-or-nothing appends. O_APPEND + fsync does not make a write atomic: the
 * kernel copies a write page by page and checks for a fatal signal between pages
 * (generic_perform_write), so a SIGKILL mid-append leaves part of the new text,
 * cut mid-line. So an append that spans more than one page first records the
 * file's size durably in an intent file beside it (`.NAME.folio-append`: pid and
 * size), then appends and fsyncs, then drops the intent. Any Folio process
 * that finds a dead writer's intent, readers included, settles it under the file
 * lock by truncating the file back to the recorded size (index/append-limit.ts
 * says why it rolls back): under the lock the intent's writer is dead (the lock is
 * only broken for a dead holder, and a live writer drops its intent before
 * releasing), so truncating cannot cut a live append.
 *
 * An append that stays within one page is copied in one step and is never cut by a
 * signal: it keeps the fast path (no intent file, no extra fsync).
 *
 * Until it is settled, readers take the file as ending at the recorded size.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { appendIntentPathOf } from '../index/append-limit.ts';
import { fsyncDir } from './fsync-dir.ts';

export { dropAppendIntent, recoverInterruptedAppend } from '../index/append-limit.ts';

/** The kernel copies appends page by page; a write inside one page is never cut. */
const PAGE_BYTES = 4096;

/** True if appending `length` bytes at `sizeBefore` may be cut by a signal (it touches more than one page). */
export function appendMayTear(sizeBefore: number, length: number): boolean {
  return (sizeBefore % PAGE_BYTES) + length > PAGE_BYTES;
}

/**
 * Record `sizeBefore` and the length of `content` durably before an append. The
 * intent is written whole (a few bytes, one page).
 */
export function writeAppendIntent(path: string, sizeBefore: number, content: Uint8Array): void {
  const fd = openSync(appendIntentPathOf(path), 'w', 0o644);
  try {
    const bytes = Buffer.from(`${process.pid}\n${sizeBefore}\n${content.length}\n`);
    writeSync(fd, bytes, 0, bytes.length);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncDir(dirname(path));
}
