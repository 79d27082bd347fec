/**
 * Write-ahead intents of the journal. A journaled write (apply, undo, redo) is:
 * 1. intent: `<state>/review/intents/<id>.json`, written whole and fsynced (with
 *    its directory) under the file lock, after the preconditions passed and right
 *    before the file is written (the engine's onBeforeWrite). It holds the region
 *    (start, the size before and after, the SHA-256 and length of the bytes before
 *    and after) and the bytes needed to undo (a blob), and what to commit;
 * 2. the file write (atomic rename, or an all-or-nothing append);
 * 3. the journal commit (journal-commit.ts), then the intent is dropped.
 *
 * A crash anywhere leaves the file old or new (the engine's guarantee) and maybe
 * an intent. Every locked mutation of the store starts by reconciling intents by
 * the file's actual state, read over the region only: "after" (size and region
 * match the new bytes) commits what the intent says; "before" drops it (the
 * proposal stays pending, the entry as it was). Anything else means the file was
 * changed outside the journal since: the intent is dropped and the hash guards of
 * later undo/redo/approve see the change. Under the review lock an intent's writer
 * is dead: writers hold that lock from intent to drop.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { failpoint } from '../engine/failpoint.ts';
import { statRegularFile } from '../engine/index/identity.ts';
import { readBytes } from '../engine/text/window.ts';
import { isRemoteLocator, readingAt } from './remote-values.ts';
import type { Version } from '../engine/read/file-facts.ts';
import { recoverInterruptedAppend } from '../engine/write/append-intent.ts';
import { withFileLock } from '../engine/index/file-lock.ts';
import { appliedRecordsOf, dropAppliedRecord } from './applied-log.ts';
import { sha256Of } from './blobs.ts';
import { commitApplied, commitStepped, type AppliedEdit } from './journal-commit.ts';
import { entryOf } from './records.ts';
import type { ReviewStore } from './store.ts';
import type { UpsertResult } from '../engine/write/upsert.ts';
import { dropIntent, intentsDirOf, versionNow, type IntentRegion, type ReviewIntent } from './intent-file.ts';
import { fileOpEntryFieldsOf, fileOpSideOf, fileOpVersionAfter, settleFileOp } from './file-op-intents.ts';

export { dropIntent, intentsDirOf, persistIntent, versionNow, writeIntent, type IntentRegion, type IntentWhat, type ReviewIntent } from './intent-file.ts';

/** Which side of its write the file system is on: by the region, or for a file op by the names (file-op-intents.ts). */
export function intentSideOf(store: ReviewStore, intent: ReviewIntent): 'before' | 'after' | 'neither' {
  return intent.file_op ? fileOpSideOf(store, intent.file_op) : sideOf(store.absPathOf(intent.path), intent);
}

/** The version the intent's write produced, once it is done ('after'). */
export function intentVersionAfter(store: ReviewStore, intent: ReviewIntent): Version {
  return intent.file_op ? fileOpVersionAfter(store, intent.file_op) : versionNow(store.absPathOf(intent.path));
}

/** Intents on disk (a half-written temp is not one: intents are renamed into place). */
export function intentsOf(store: ReviewStore): ReviewIntent[] {
  let names: string[];
  try {
    names = readdirSync(intentsDirOf(store)).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: ReviewIntent[] = [];
  for (const n of names) {
    try {
      out.push(JSON.parse(readFileSync(join(intentsDirOf(store), n), 'utf8')) as ReviewIntent);
    } catch {
      // dropped meanwhile
    }
  }
  return out;
}

function regionSha(path: string, start: number, length: number): string | null {
  if (isRemoteLocator(path)) {
    const buf = readBytes(path, start, start + length);
    return buf.length === length ? sha256Of(buf) : null;
  }
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, start + got);
      if (n === 0) return null;
      got += n;
    }
    return sha256Of(buf);
  } finally {
    closeSync(fd);
  }
}

/** Which side of the intent's write the file is on, from its size and the region alone. */
export function sideOf(path: string, i: IntentRegion): 'before' | 'after' | 'neither' {
  let size: number;
  try {
    size = isRemoteLocator(path) ? statRegularFile(path).size : statSync(path).size;
  } catch {
    return 'neither';
  }
  if (size === i.size_after && regionSha(path, i.start_byte, i.inserted_bytes) === i.inserted_sha256) return 'after';
  if (size === i.size_before && regionSha(path, i.start_byte, i.removed.bytes) === i.removed.sha256) return 'before';
  return 'neither';
}

/** The applied edit an apply intent describes, once the write is done. */
export function appliedOf(intent: ReviewIntent & { action: 'apply' }, versionAfter: Version, rangeAfter = intent.plan.range_after): AppliedEdit {
  return {
    entryId: intent.entry_id,
    proposalId: intent.proposal_id,
    actor: intent.actor,
    decidedBy: intent.decided_by,
    path: intent.path,
    versionBefore: intent.plan.version_before,
    versionAfter,
    rangeBefore: intent.plan.range_before,
    rangeAfter,
    removed: intent.removed,
    insertedBytes: intent.inserted_bytes,
    insertedSha256: intent.inserted_sha256,
    editedContent: intent.edited_content,
    ...(intent.group ? { group: intent.group } : {}),
    ...(intent.pieces ? { pieces: intent.pieces } : {}),
    ...(intent.proposal_hunks ? { proposalHunks: intent.proposal_hunks } : {}),
    ...(intent.batch ? { batch: intent.batch } : {}),
    ...(intent.file_op ? { fileOp: fileOpEntryFieldsOf(intent.file_op) } : {}),
    ...(intent.plan.created ? { created: true } : {}),
  };
}

/** Commit an intent whose write is done (the normal path and recovery alike), unless it was committed already. */
export function commitIntent(store: ReviewStore, intent: ReviewIntent, versionAfter: Version, rangeAfter?: AppliedEdit['rangeAfter']): void {
  const e = entryOf(store, intent.entry_id);
  if (intent.action === 'apply') {
    if (!e) commitApplied(store, appliedOf(intent, versionAfter, rangeAfter));
  } else if (e && e.undone === (intent.action === 'redo')) {
    commitStepped(store, {
      action: intent.action,
      entryId: intent.entry_id,
      by: intent.by,
      versionBefore: intent.version_before,
      versionAfter,
      removed: intent.removed,
      // A create undone by deleting its file: its mode, for the redo that restores it.
      ...(intent.file_op ? { file: { bytes: intent.file_op.bytes, sha256: intent.file_op.sha256, mode: intent.file_op.mode } } : {}),
    });
  }
}

export interface Reconciled {
  committed: number;
  dropped: number;
}

/**
 * Under the review lock: fold in the records of writes journaled without the
 * document (applied-log.ts), then settle every intent a dead writer left, by its
 * file's state (under the file lock, after undoing an interrupted append).
 */
export async function reconcileIntents(store: ReviewStore): Promise<Reconciled> {
  const done: Reconciled = { committed: 0, dropped: 0 };
  // Writes that journaled a record instead of committing (applied-log.ts), oldest first: all older than any intent.
  for (const { name, record } of appliedRecordsOf(store.dir)) {
    commitIntent(store, record, record.version_after, record.range_after);
    dropAppliedRecord(store.dir, name);
    done.committed++;
  }
  for (const intent of intentsOf(store)) {
    if (intent.file_op) {
      // Settled by which names exist: the file may be gone on either side.
      const side = await settleFileOp(store, intent.file_op);
      if (side === 'after') commitIntent(store, intent, fileOpVersionAfter(store, intent.file_op));
      done[side === 'after' ? 'committed' : 'dropped']++;
      dropIntent(store, intent);
      continue;
    }
    const abs = store.absPathOf(intent.path);
    if (isRemoteLocator(abs)) {
      // A remote value: settled the same way, over its bytes now (no file lock: its version is the lock).
      const side = await readingAt(abs, (path) => ({ side: sideOf(path, intent), version: versionNow(path) })).catch(() => ({
        side: 'neither' as const,
        version: null,
      }));
      if (side.side === 'after') commitIntent(store, intent, side.version!);
      done[side.side === 'after' ? 'committed' : 'dropped']++;
      dropIntent(store, intent);
      continue;
    }
    if (!existsSync(abs)) {
      // The file is gone since: neither side can be told, and its lock has no directory.
      dropIntent(store, intent);
      done.dropped++;
      continue;
    }
    await withFileLock(abs, () => {
      try {
        recoverInterruptedAppend(abs);
      } catch {
        // the file is gone or unreadable: sideOf says neither
      }
      if (sideOf(abs, intent) === 'after') {
        commitIntent(store, intent, versionNow(abs));
        done.committed++;
      } else {
        done.dropped++;
      }
      dropIntent(store, intent);
    });
  }
  return done;
}

/**
 * After a journaled upsert: commit its intent (written by onBeforeWrite) and drop
 * it. Returns the entry's id. (The engine calls onBeforeWrite for every applied
 * upsert, an empty insert too, so a journaled upsert always has an intent.)
 */
export function commitJournaled(store: ReviewStore, intent: ReviewIntent | null, r: UpsertResult): string {
  if (!intent) throw new Error(`journaled upsert of ${r.path} wrote no intent`);
  failpoint('review.before-commit');
  commitIntent(store, intent, r.version_after!, r.range_after);
  failpoint('review.committed');
  dropIntent(store, intent);
  return intent.entry_id;
}
