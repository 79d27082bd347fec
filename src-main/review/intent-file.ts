/**
 * A journal intent as a file (intents.ts has the protocol): its shape, and writing
 * and dropping it. Apart from intents.ts so that a writer that does not load the
 * review document (applied-log.ts) writes intents the same way.
 */
import { mkdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { failpoint } from '../engine/failpoint.ts';
import type { Version } from '../engine/read/file-facts.ts';
import { etagOf, statRegularFile } from '../engine/index/identity.ts';
import { writeFileAtomic } from '../engine/write/atomic-write.ts';
import { fsyncDir } from '../engine/write/fsync-dir.ts';
import type { WritePiece, WritePlan } from '../engine/write/upsert.ts';
import { sha256Of, storeBytes } from './blobs.ts';
import type { FileOpIntent } from './file-op-intents.ts';
import type { BatchMember } from './rebase.ts';
import type { ReviewStore } from './store.ts';
import type { GroupTag, ReviewActor, StoredBytes } from './types.ts';

/** What writing an intent needs of the store: where the state lives and how it names paths. */
export type IntentStore = Pick<ReviewStore, 'dir' | 'blobsDir' | 'storedPathOf'>;

export interface IntentRegion {
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

/** An approval's write: which proposal (or batch) and hunks it applies, by whom. */
interface ApplyWhat {
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

interface UndoWhat {
  action: 'undo' | 'redo';
  entry_id: string;
  by: ReviewActor;
}

export type ReviewIntent = IntentRegion & {
  id: string;
  pid: number;
  path: string;
  /** a whole-file delete, move or restore instead of a region write (file-op-intents.ts) */
  file_op?: FileOpIntent;
} & ((ApplyWhat & { plan: Pick<WritePlan, 'version_before' | 'range_before' | 'range_after' | 'created'> }) | (UndoWhat & { version_before: Version }));

export type IntentWhat = ApplyWhat | UndoWhat;

export function intentsDirOf(store: IntentStore): string {
  return join(store.dir, 'intents');
}

/** Write the intent of `plan` durably (call from onBeforeWrite); returns it. */
export function writeIntent(store: IntentStore, what: IntentWhat, plan: WritePlan): ReviewIntent {
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
      ? {
          ...base,
          ...what,
          plan: {
            version_before: plan.version_before,
            range_before: plan.range_before,
            range_after: plan.range_after,
            ...(plan.created ? { created: true } : {}),
          },
        }
      : { ...base, ...what, version_before: plan.version_before };
  return persistIntent(store, intent);
}

/** Write `intent` whole and durably (its file and the folder's entry). */
export function persistIntent(store: IntentStore, intent: ReviewIntent): ReviewIntent {
  const dir = intentsDirOf(store);
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(join(dir, `${intent.id}.json`), Buffer.from(JSON.stringify(intent)));
  fsyncDir(dir);
  failpoint('review.intent-written');
  return intent;
}

export function dropIntent(store: IntentStore, intent: { id: string }): void {
  try {
    unlinkSync(join(intentsDirOf(store), `${intent.id}.json`));
  } catch {
    // already gone
  }
}

/** The version of the file at `path` as it is on disk now. */
export function versionNow(path: string): Version {
  const id = statRegularFile(path);
  return { etag: etagOf(id), size: id.size, mtimeMs: id.mtimeMs };
}
