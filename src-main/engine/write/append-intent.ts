/**
 * All-or-nothing appends. O_APPEND + fsync does not make a write atomic: the
 * kernel copies a write page by page and checks for a fatal signal between pages
 * (generic_perform_write), so a SIGKILL mid-append leaves part of the new text,
 * cut mid-line. So an append that spans more than one page first records the
 * file's size durably in an intent file beside it (`.NAME.folio-append`: pid and
 * size), then appends and fsyncs, then drops the intent. The next holder of the
 * file lock that finds an intent truncates the file back to the recorded size
 * before it does anything else: under the lock the intent's writer is dead (the
 * lock is only broken for a dead holder, and a live writer drops its intent before
 * releasing), so truncating cannot cut a live append.
 *
 * An append that stays within one page is copied in one step and is never cut by a
 * signal: it keeps the fast path (no intent file, no extra fsync).
 *
 * Readers do not truncate (index/append-limit.ts): while an intent exists they
 * take the file as ending at the recorded size.
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { appendIntentOf, appendIntentPathOf } from '../index/append-limit.ts';
import { fsyncDir } from './fsync-dir.ts';

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
