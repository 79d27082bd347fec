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
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { etagOf, statRegularFile } from '../engine/index/identity.ts';
import { readBytes } from '../engine/text/window.ts';
import { isRemoteLocator, readingAt } from './remote-values.ts';
import type { Version } from '../engine/read/file-facts.ts';
import { recoverInterruptedAppend } from '../engine/write/append-intent.ts';
import { writeFileAtomic } from '../engine/write/atomic-write.ts';
import { withFileLock } from '../engine/write/file-lock.ts';
import type { WritePiece, WritePlan } from '../engine/write/upsert.ts';
import type { BatchMember } from './rebase.ts';
import { sha256Of, storeBytes } from './blobs.ts';
import { commitApplied, commitStepped, type AppliedEdit } from './journal-commit.ts';
import { entryOf } from './records.ts';
import type { ReviewStore } from './store.ts';
import type { GroupTag, ReviewActor, StoredBytes } from './types.ts';
import { fsyncDir } from '../engine/write/fsync-dir.ts';
import { fileOpEntryFieldsOf, fileOpSideOf, fileOpVersionAfter, settleFileOp, type FileOpIntent } from './file-op-intents.ts';

interface IntentRegion {
  start_byte: number;
  size_before: number;
  size_after: number;
  /** the bytes the write replaces (also what undoing it puts back) */
  removed: StoredBytes;
  inserted_bytes: number;
  inserted_sha256: string;
  /** each edit's region (WritePlan.pieces): what pending proposals of the file move by */
  pieces?: WritePiece[];
}

export type ReviewIntent = IntentRegion & {
  id: string;
  pid: number;
  path: string;
  /** a whole-file delete, move or restore instead of a region write (file-op-intents.ts) */
  file_op?: FileOpIntent;
} & (
    | {
        action: 'apply';
        entry_id: string;
        proposal_id: string | null;
        actor: ReviewActor;
        decided_by: ReviewActor;
        edited_content: StoredBytes | null;
        group?: GroupTag;
        proposal_hunks?: number[];
        batch?: BatchMember[];
        plan: Pick<WritePlan, 'version_before' | 'range_before' | 'range_after'>;
      }
    | { action: 'undo' | 'redo'; entry_id: string; by: ReviewActor; version_before: Version }
  );

export type IntentWhat =
  | {
      action: 'apply';
      entry_id: string;
      proposal_id: string | null;
      actor: ReviewActor;
      decided_by: ReviewActor;
      edited_content: StoredBytes | null;
      group?: GroupTag;
      /** the proposal's edits (0-based) this write applies, when it has several */
      proposal_hunks?: number[];
      /** a batch approval (batch.ts): the proposals this write applies (proposal_id is null) */
      batch?: BatchMember[];
    }
  | { action: 'undo' | 'redo'; entry_id: string; by: ReviewActor };

export function intentsDirOf(store: ReviewStore): string {
  return join(store.dir, 'intents');
}

/** Write the intent of `plan` durably (call from onBeforeWrite); returns it. */
export function writeIntent(store: ReviewStore, what: IntentWhat, plan: WritePlan): ReviewIntent {
  const dir = intentsDirOf(store);
  mkdirSync(dir, { recursive: true });
  const region: IntentRegion = {
    start_byte: plan.startByte,
    size_before: plan.sizeBefore,
    size_after: plan.sizeAfter,
    removed: storeBytes(store.blobsDir, plan.removed),
    inserted_bytes: plan.inserted.length,
    inserted_sha256: sha256Of(plan.inserted),
    pieces: plan.pieces,
  };
  const base = { ...region, id: `${what.entry_id}-${what.action}-${Date.now()}`, pid: process.pid, path: store.storedPathOf(plan.path) };
  const intent: ReviewIntent =
    what.action === 'apply'
      ? { ...base, ...what, plan: { version_before: plan.version_before, range_before: plan.range_before, range_after: plan.range_after } }
      : { ...base, ...what, version_before: plan.version_before };
  return persistIntent(store, intent);
}

/** Write `intent` whole and durably (its file and the folder's entry). */
export function persistIntent(store: ReviewStore, intent: ReviewIntent): ReviewIntent {
  const dir = intentsDirOf(store);
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(join(dir, `${intent.id}.json`), Buffer.from(JSON.stringify(intent)));
  fsyncDir(dir);
  return intent;
}

/** Which side of its write the file system is on: by the region, or for a file op by the names (file-op-intents.ts). */
export function intentSideOf(store: ReviewStore, intent: ReviewIntent): 'before' | 'after' | 'neither' {
  return intent.file_op ? fileOpSideOf(store, intent.file_op) : sideOf(store.absPathOf(intent.path), intent);
}

/** The version the intent's write produced, once it is done ('after'). */
export function intentVersionAfter(store: ReviewStore, intent: ReviewIntent): Version {
  return intent.file_op ? fileOpVersionAfter(store, intent.file_op) : versionNow(store.absPathOf(intent.path));
}

export function dropIntent(store: ReviewStore, intent: { id: string }): void {
  try {
    unlinkSync(join(intentsDirOf(store), `${intent.id}.json`));
  } catch {
    // already gone
  }
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

export function versionNow(path: string): Version {
  const id = statRegularFile(path);
  return { etag: etagOf(id), size: id.size, mtimeMs: id.mtimeMs };
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
    });
  }
}

export interface Reconciled {
  committed: number;
  dropped: number;
}

/**
 * Under the review lock: settle every intent a dead writer left, by its file's
 * state (under the file lock, after undoing an interrupted append).
 */
export async function reconcileIntents(store: ReviewStore): Promise<Reconciled> {
  const done: Reconciled = { committed: 0, dropped: 0 };
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
