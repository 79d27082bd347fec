/**
 * Write-ahead intents of whole-file deletes and moves (and of the restore that
 * undoes a delete), beside the region intents of intents.ts. The intent is written
 * under the file lock(s) right before the first visible change (the engine's
 * onBeforeWrite, engine/write/file-ops.ts) and settled by which names exist:
 *
 * - delete: after = the name is gone; before = it holds the same bytes (size, SHA-256);
 * - restore: after = the name holds those bytes again; before = it is gone;
 * - move from → to: after = `to` is the moved inode and `from` is gone, or is that
 *   same inode (a crash between link and unlink: recovery removes `from`);
 *   before = `from` is the inode and `to` is absent.
 * Anything else means the names were changed outside the journal: the intent is
 * dropped and the guards of later undo/redo see the change.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Version } from '../engine/read/file-facts.ts';
import { ABSENT_VERSION, type FileOp, type FileOpPlan } from '../engine/write/file-ops.ts';
import { withFileLock } from '../engine/index/file-lock.ts';
import { fsyncDir } from '../engine/write/fsync-dir.ts';
import { sha256Of, storeBytes } from './blobs.ts';
import { persistIntent, versionNow, type IntentWhat, type ReviewIntent } from './intent-file.ts';
import type { ReviewStore } from './store.ts';
import type { JournalEntry } from './types.ts';

export interface FileOpIntent {
  op: FileOp | 'restore';
  /** stored paths: the file goes from `from` to `to` (null: it goes away, or, restore, comes back at `from`) */
  from: string;
  to: string | null;
  /** the file's size, SHA-256 and mode; dev:ino of the inode being moved */
  bytes: number;
  sha256: string;
  mode: number;
  dev: number;
  ino: number;
}

const EMPTY_SHA256 = sha256Of(new Uint8Array(0));

/** Write the intent of a file op (call from onBeforeWrite); returns it. */
export function writeFileOpIntent(store: ReviewStore, what: IntentWhat, plan: FileOpPlan): ReviewIntent {
  const file_op: FileOpIntent = {
    op: plan.op,
    from: store.storedPathOf(plan.path),
    to: plan.to === null ? null : store.storedPathOf(plan.to),
    bytes: plan.size,
    sha256: plan.sha256,
    mode: plan.mode,
    dev: plan.dev,
    ino: plan.ino,
  };
  // The deleted bytes are what undo puts back; a move or restore keeps none.
  const removed = storeBytes(store.blobsDir, plan.op === 'delete' && plan.content ? plan.content : new Uint8Array(0));
  const region = {
    start_byte: 0,
    size_before: plan.op === 'restore' ? 0 : plan.size,
    size_after: plan.op === 'delete' ? 0 : plan.size,
    removed,
    inserted_bytes: 0,
    inserted_sha256: EMPTY_SHA256,
  };
  const base = { ...region, id: `${what.entry_id}-${what.action}-${Date.now()}`, pid: process.pid, path: file_op.from, file_op };
  const zero = { start_line: 0, end_line: 0, start_byte: 0, end_byte: 0 };
  const intent: ReviewIntent =
    what.action === 'apply'
      ? { ...base, ...what, plan: { version_before: plan.version_before, range_before: { ...zero, end_byte: plan.size }, range_after: zero } }
      : { ...base, ...what, version_before: plan.version_before };
  return persistIntent(store, intent);
}

/** The journal entry's file-op fields of an apply intent. */
export function fileOpEntryFieldsOf(f: FileOpIntent): Pick<JournalEntry, 'file_op' | 'to' | 'file'> {
  return {
    file_op: f.op === 'move' ? 'move' : 'delete',
    ...(f.to !== null ? { to: f.to } : {}),
    file: { bytes: f.bytes, sha256: f.sha256, mode: f.mode },
  };
}

/** dev:ino of what `path` names (not following a final symlink), or null if nothing is there. */
function inodeOf(path: string): string | null {
  try {
    const st = lstatSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/** The name holds exactly the file's bytes. */
function holdsBytes(path: string, f: FileOpIntent): boolean {
  try {
    const st = lstatSync(path);
    if (!st.isFile() || st.size !== f.bytes) return false;
    return createHash('sha256').update(readFileSync(path)).digest('hex') === f.sha256;
  } catch {
    return false;
  }
}

export function fileOpSideOf(store: ReviewStore, f: FileOpIntent): 'before' | 'after' | 'neither' {
  const from = store.absPathOf(f.from);
  if (f.op === 'delete') return inodeOf(from) === null ? 'after' : holdsBytes(from, f) ? 'before' : 'neither';
  if (f.op === 'restore') return inodeOf(from) === null ? 'before' : holdsBytes(from, f) ? 'after' : 'neither';
  const moved = `${f.dev}:${f.ino}`;
  const src = inodeOf(from);
  const dst = inodeOf(store.absPathOf(f.to!));
  if (dst === moved && (src === null || src === moved)) return 'after';
  if (src === moved && dst === null) return 'before';
  return 'neither';
}

/** The version the file op left: none after a delete, else the file's at its name. */
export function fileOpVersionAfter(store: ReviewStore, f: FileOpIntent): Version {
  if (f.op === 'delete') return ABSENT_VERSION;
  return versionNow(store.absPathOf(f.op === 'move' ? f.to! : f.from));
}

/**
 * Under the review lock (the intent's writer is dead): which side the file op is
 * on, finishing a move a crash left between link and unlink (both names, one
 * inode) by removing the source name under its lock.
 */
export async function settleFileOp(store: ReviewStore, f: FileOpIntent): Promise<'before' | 'after' | 'neither'> {
  const side = fileOpSideOf(store, f);
  if (side !== 'after' || f.op !== 'move') return side;
  const from = store.absPathOf(f.from);
  if (inodeOf(from) === null) return side;
  await withFileLock(
    from,
    () => {
      if (inodeOf(from) !== `${f.dev}:${f.ino}`) return;
      unlinkSync(from);
      fsyncDir(dirname(from));
    },
    { timeoutMs: 5000 },
  );
  return statSync(store.absPathOf(f.to!), { throwIfNoEntry: false }) ? 'after' : 'neither';
}
