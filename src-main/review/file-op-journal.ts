/**
 * Whole-file deletes and moves in the journal: applied (an agent's auto edit, a
 * person's own, an approved proposal), undone and redone like region edits, each
 * written ahead as an intent (file-op-intents.ts) and committed with the same
 * journal commits (journal-commit.ts).
 *
 * - undo of a delete puts the file back with its bytes and mode, only where
 *   nothing is at its name now (else conflict); redo deletes it again if it still
 *   holds those bytes (expected_sha256);
 * - undo of a move moves it back if `to` still holds what was moved (its SHA-256)
 *   and nothing is at the old name; redo moves it again under the same guards;
 * - an edit that created its file (an approved create) steps the same way while
 *   the file is just what it created: undo removes the file (guarded by the
 *   created bytes' SHA-256) instead of leaving it empty, and redo puts it back,
 *   with the mode it had, only where nothing is (createStepsAsFileOp).
 * Every step runs on the journal's own paths, which must still lead to themselves.
 */
import { lstatSync } from 'node:fs';
import { FolioError } from '../engine/errors.ts';
import { deleteFile, moveFile, restoreFile, type FileOp, type FileOpPlan, type FileOpPreconditions, type FileOpResult } from '../engine/write/file-ops.ts';
import { loadBytes } from './blobs.ts';
import { writeFileOpIntent } from './file-op-intents.ts';
import { commitIntent, dropIntent, type IntentWhat, type ReviewIntent } from './intents.ts';
import { currentStartOf } from './journal-commit.ts';
import { entryOf } from './records.ts';
import { isRemoteLocator } from './remote-values.ts';
import type { ReviewStore } from './store.ts';
import type { JournalEntry } from './types.ts';

export interface FileOpCall {
  op: FileOp;
  /** absolute paths */
  path: string;
  to?: string;
  preconditions: FileOpPreconditions;
  checked?: { allowHardlinks: boolean };
  createParents?: boolean;
}

/** The mode a create gives a file (engine/write/upsert.ts), for a redo whose undo recorded none. */
const CREATED_MODE = 0o644;

/** Run `call` (or a step's engine call) with its intent written ahead; commit it. Under the review lock. */
async function journaled(
  store: ReviewStore,
  what: IntentWhat,
  run: (onBeforeWrite: (plan: FileOpPlan) => void) => Promise<FileOpResult>,
): Promise<{ entry: JournalEntry; result: FileOpResult }> {
  let intent: ReviewIntent | null = null;
  const result = await run((plan) => void (intent = writeFileOpIntent(store, what, plan)));
  // Assigned in the callback: TypeScript cannot see it.
  const written = intent as ReviewIntent | null;
  if (!written) throw new Error(`journaled ${result.op} of ${result.path} wrote no intent`);
  commitIntent(store, written, result.version_after ?? { etag: 'absent', size: 0, mtimeMs: 0 });
  dropIntent(store, written);
  return { entry: entryOf(store, written.entry_id)!, result };
}

/** Apply a delete or move journaled (under the review lock; `what` is an apply). */
export function runFileOpJournaled(store: ReviewStore, what: IntentWhat & { action: 'apply' }, call: FileOpCall) {
  const req = {
    preconditions: call.preconditions,
    ...(call.checked ? { checked: call.checked } : {}),
    ...(call.createParents ? { createParents: true } : {}),
  };
  return journaled(store, what, (onBeforeWrite) =>
    call.op === 'delete' ? deleteFile(call.path, { ...req, captureContent: true, onBeforeWrite }) : moveFile(call.path, call.to!, { ...req, onBeforeWrite }),
  );
}

/** The engine's dry run of `call`: throws what applying it would (a stale precondition, a taken destination). */
export async function dryRunFileOp(call: FileOpCall): Promise<FileOpResult> {
  const req = {
    preconditions: call.preconditions,
    dryRun: true,
    ...(call.checked ? { checked: call.checked } : {}),
    ...(call.createParents ? { createParents: true } : {}),
  };
  return call.op === 'delete' ? deleteFile(call.path, req) : moveFile(call.path, call.to!, req);
}

/**
 * Whether the file-op entry `e` can be undone or redone now: the engine's dry run
 * of the step (a restore: nothing at the name), throwing what the step would.
 * A group's step (group.ts) checks every file op before it writes anything.
 */
export async function fileOpStepCheck(store: ReviewStore, e: JournalEntry, action: 'undo' | 'redo'): Promise<void> {
  const path = store.absPathOf(e.path);
  const checked = { allowHardlinks: true };
  if (!e.file_op) {
    // A create stepping as a file op: undo deletes what it created, redo restores where nothing is.
    if (action === 'undo') await deleteFile(path, { preconditions: { expectedSha256: e.inserted_sha256 }, checked, dryRun: true });
    else if (existsAt(path)) throw existsAgain(path, 'created');
    return;
  }
  if (!e.file) throw new Error(`journal entry ${e.id} is a file op without its file`);
  const guard = { expectedSha256: e.file.sha256 };
  if (e.file_op === 'delete') {
    if (action === 'redo') {
      await deleteFile(path, { preconditions: guard, checked, dryRun: true });
      return;
    }
    if (existsAt(path)) throw existsAgain(path, 'deleted');
    return;
  }
  if (!e.to) throw new FolioError('invalid_input', `journal entry ${e.id} is a move without its destination`, { journal_id: e.id });
  const to = store.absPathOf(e.to);
  const [from, dest] = action === 'undo' ? [to, path] : [path, to];
  await moveFile(from, dest, { preconditions: guard, checked, createParents: true, dryRun: true });
}

function existsAgain(path: string, was: 'deleted' | 'created'): FolioError {
  return new FolioError('precondition_failed', `${path} exists again: the ${was} file cannot come back over it; nothing was written`, {
    path,
    failed: ['absent'],
  });
}

/**
 * Whether entry `e`, an edit, created its file and steps now as a file op: undo
 * while the file holds just the created bytes (at their place; the SHA-256 is the
 * delete's guard), redo while nothing is at the name. Otherwise (an edit after the
 * create still applied, a file put there since) it steps as a region edit.
 */
export function createStepsAsFileOp(store: ReviewStore, e: JournalEntry, action: 'undo' | 'redo'): boolean {
  if (e.file_op || !e.created) return false;
  const path = store.absPathOf(e.path);
  if (isRemoteLocator(path)) return false;
  if (action === 'redo') return e.undone && e.redo_payload !== null && !existsAt(path);
  if (currentStartOf(e) !== 0) return false;
  const st = lstatSync(path, { throwIfNoEntry: false });
  return st !== undefined && st.isFile() && st.size === e.inserted_bytes;
}

/** Whether anything (a file, a folder, a dangling link) is at `path`. */
function existsAt(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Undo or redo the file-op entry `e` (under the review lock); the engine's errors as they come (the caller maps stale ones to conflict). */
export function stepFileOp(store: ReviewStore, e: JournalEntry, what: IntentWhat & { action: 'undo' | 'redo' }) {
  const path = store.absPathOf(e.path);
  // The journal's own names: written only if they still lead to themselves.
  const checked = { allowHardlinks: true };
  const undo = what.action === 'undo';
  if (!e.file_op) {
    // A create (createStepsAsFileOp): its undo is a delete of the created bytes, its redo their restore.
    return journaled(store, what, (onBeforeWrite) =>
      undo
        ? deleteFile(path, { preconditions: { expectedSha256: e.inserted_sha256 }, captureContent: true, checked, onBeforeWrite })
        : restoreFile(path, loadBytes(store.blobsDir, e.redo_payload!), e.file?.mode ?? CREATED_MODE, { checked, onBeforeWrite }),
    );
  }
  if (!e.file) throw new Error(`journal entry ${e.id} is a file op without its file`);
  const guard = { expectedSha256: e.file.sha256 };
  return journaled(store, what, (onBeforeWrite) => {
    if (e.file_op === 'delete') {
      return undo
        ? restoreFile(path, loadBytes(store.blobsDir, e.removed), e.file!.mode, { checked, onBeforeWrite })
        : deleteFile(path, { preconditions: guard, captureContent: true, checked, onBeforeWrite });
    }
    if (!e.to) throw new FolioError('invalid_input', `journal entry ${e.id} is a move without its destination`, { journal_id: e.id });
    const to = store.absPathOf(e.to);
    const [from, dest] = undo ? [to, path] : [path, to];
    return moveFile(from, dest, { preconditions: guard, checked, createParents: true, onBeforeWrite });
  });
}
