/**
 * Several files edited by one call, all or nothing (engine/write/upsert-group.ts),
 * journaled as one entry per file, each tagged with the group (id, index, size).
 *
 * Each file's write-ahead intent is written after every file passed its checks and
 * right before that file is written, so a crash between the files' writes leaves
 * each file old or new, and the intents (reconciled like any other) commit the
 * entries of exactly the files that were written: the group's entries then say
 * which files of it are applied (`group.of` against the entries present).
 */
import { upsertGroup } from '../engine/write/upsert-group.ts';
import type { UpsertRequest, UpsertResult } from '../engine/write/upsert.ts';
import type { FileOpResult } from '../engine/write/file-ops.ts';
import { FolioError, isFolioError } from '../engine/errors.ts';
import { createStepsAsFileOp, dryRunFileOp, fileOpStepCheck, runFileOpJournaled, stepFileOp, type FileOpCall } from './file-op-journal.ts';
import { commitJournaled, writeIntent, type ReviewIntent } from './intents.ts';
import type { BatchMember } from './rebase.ts';
import { allEntries, entryOf, newId } from './records.ts';
import { storeOf, type ReviewStore } from './store.ts';
import type { GroupTag, JournalEntry, ReviewActor } from './types.ts';

export interface GroupFile {
  path: string;
  request: Omit<UpsertRequest, 'dryRun' | 'captureBytes'>;
  /** the proposal this file's edit applies (an approval), else null */
  proposalId?: string | null;
  /** who wrote the edit (the agent of a proposal); default: who decided */
  actor?: ReviewActor;
  /** a batch approval (batch.ts): the proposals this file's one write applies */
  batch?: BatchMember[];
}

export interface AppliedGroup {
  group: string;
  entries: JournalEntry[];
  upserts: UpsertResult[];
}

/** The write-ahead "what" of one change of a journal group: a new entry applying `proposalId` (or the decider's own change). */
export function groupApplyOf(proposalId: string | null, actor: ReviewActor, decidedBy: ReviewActor, group: GroupTag) {
  return { action: 'apply' as const, entry_id: newId('j'), proposal_id: proposalId, actor, decided_by: decidedBy, edited_content: null, group };
}

/** Apply every file's edit, all or none, and journal each under `actor` (an agent's auto edit, a person's own edit). */
export async function applyGroupJournaled(root: string, actor: ReviewActor, files: GroupFile[]): Promise<AppliedGroup> {
  const store = storeOf(root);
  return store.locked(() => applyGroupLocked(store, files, actor));
}

/**
 * Under the review lock: apply every file's edit, all or none (upsert-group.ts),
 * each file's intent written right before its write, then commit each entry tagged
 * with the group (`groupId`: a proposal group keeps its id; `of`: the group's size
 * when more writes join it after these, a batch's deletes and moves).
 */
export async function applyGroupLocked(
  store: ReviewStore,
  files: GroupFile[],
  decidedBy: ReviewActor,
  groupId = newId('g'),
  of = files.length,
): Promise<AppliedGroup> {
  const whats = files.map((f, index) => ({
    ...groupApplyOf(f.proposalId ?? null, f.actor ?? decidedBy, decidedBy, { id: groupId, index, of }),
    ...(f.batch ? { batch: f.batch } : {}),
  }));
  const intents: (ReviewIntent | null)[] = files.map(() => null);
  const upserts = await upsertGroup(
    files.map((f) => ({ path: store.absPathOf(f.path), request: f.request })),
    { onBeforeWrite: (i, plan) => void (intents[i] = writeIntent(store, whats[i]!, plan)) },
  );
  const entries = upserts.map((r, i) => entryOf(store, commitJournaled(store, intents[i]!, r))!);
  return { group: groupId, entries, upserts };
}

/** A delete or move joining a group's region writes (a patch's Delete File, Move to). */
export interface GroupFileOp {
  call: FileOpCall;
  /** the proposal it applies (an approval), else null */
  proposalId?: string | null;
  actor?: ReviewActor;
  /** the index (in the group's files) of the write of the same file it follows: a move after an update, guarded by that write's version */
  after?: number;
}

export interface AppliedMixedGroup extends AppliedGroup {
  fileOps: FileOpResult[];
}

/** Apply a group of region writes and whole-file deletes and moves, all or none (applyMixedGroupLocked), under the review lock. */
export async function applyMixedGroupJournaled(root: string, actor: ReviewActor, files: GroupFile[], ops: GroupFileOp[]): Promise<AppliedMixedGroup> {
  const store = storeOf(root);
  return store.locked(() => applyMixedGroupLocked(store, files, ops, actor));
}

/**
 * Region writes and deletes and moves as one journal group (as a batch approval
 * joins them, batch.ts): every delete and move is checked first (the engine's dry
 * run), then the region writes go all or none (upsert-group.ts), then each delete
 * and move, journaled on its own intent. A move that follows a write of its file
 * is guarded by that write's version. What stays outside the all or none is a file
 * changed by someone else between its check and its step, under the review lock:
 * that step fails, the writes before it stay in the group (one undo takes them
 * back), and the error says so (details.group, details.written).
 */
export async function applyMixedGroupLocked(
  store: ReviewStore,
  files: GroupFile[],
  ops: GroupFileOp[],
  decidedBy: ReviewActor,
  groupId = newId('g'),
): Promise<AppliedMixedGroup> {
  for (const [k, op] of ops.entries()) {
    await dryRunFileOp(op.call).catch((err: unknown) => {
      if (!isFolioError(err)) throw err;
      throw new FolioError(err.code, `files[${files.length + k}] (${op.call.path}): ${err.message}`, { ...err.details, file: files.length + k });
    });
  }
  const of = files.length + ops.length;
  const done: AppliedGroup = files.length ? await applyGroupLocked(store, files, decidedBy, groupId, of) : { group: groupId, entries: [], upserts: [] };
  const entries = done.entries.slice();
  const fileOps: FileOpResult[] = [];
  for (const [k, op] of ops.entries()) {
    const written = op.after === undefined ? undefined : done.upserts[op.after]?.version_after;
    const call = written ? { ...op.call, preconditions: { ifMatch: written.etag } } : op.call;
    const what = groupApplyOf(op.proposalId ?? null, op.actor ?? decidedBy, decidedBy, { id: groupId, index: files.length + k, of });
    try {
      const r = await runFileOpJournaled(store, what, call);
      entries.push(r.entry);
      fileOps.push(r.result);
    } catch (err) {
      if (!isFolioError(err) || entries.length === 0) throw err;
      throw new FolioError(
        err.code,
        `${op.call.path}: ${err.message}; ${entries.length} change(s) of group ${groupId} were written before it (review undo takes them back)`,
        { ...err.details, group: groupId, written: entries.map((e) => e.path) },
      );
    }
  }
  return { group: groupId, entries, upserts: done.upserts, fileOps };
}

/**
 * Undo or redo every entry of e's group that is in e's state, each guarded like a
 * single undo (journal.ts requestOf, file-op-journal.ts). Under the review lock.
 *
 * The region writes step all or none (upsert-group.ts). A batch's or a patch's
 * deletes and moves (batch.ts, applyMixedGroupLocked) are whole-file steps the
 * engine cannot join to that write: each is checked first (fileOpStepCheck), before
 * anything is written, and stepped after the region writes on redo, before them on
 * undo (a file moved after its edit comes back to its name before the edit is undone). A file changed between its check and its step (outside Folio)
 * stops there with a conflict; what was stepped stays stepped, and the next undo
 * of the group steps the rest.
 */
export async function stepGroupLocked(
  store: ReviewStore,
  e: JournalEntry,
  action: 'undo' | 'redo',
  by: ReviewActor,
  requestOf: (e: JournalEntry) => UpsertRequest,
): Promise<{ entries: JournalEntry[]; upserts: (UpsertResult | FileOpResult)[] }> {
  const members = allEntries(store)
    .filter((x) => x.group?.id === e.group!.id && x.undone === (action === 'redo'))
    .sort((a, b) => a.group!.index - b.group!.index);
  // Deletes, moves and creates that step as file ops (a create's undo removes its file) go after the region edits.
  const asFileOp = new Set(members.filter((m) => m.file_op || createStepsAsFileOp(store, m, action)));
  const regions = members.filter((m) => !asFileOp.has(m));
  const ops = members.filter((m) => asFileOp.has(m));
  for (const m of ops) await fileOpStepCheck(store, m, action);
  const entries: JournalEntry[] = [];
  const upserts: (UpsertResult | FileOpResult)[] = [];
  const stepOps = async () => {
    for (const m of ops) {
      const done = await stepFileOp(store, m, { action, entry_id: m.id, by });
      entries.push(done.entry);
      upserts.push(done.result);
    }
  };
  // An undo steps back in the reverse order of the apply: a file moved after its edit comes back before the edit is undone.
  if (action === 'undo') await stepOps();
  const intents: (ReviewIntent | null)[] = regions.map(() => null);
  const written = regions.length
    ? await upsertGroup(
        regions.map((m) => ({ path: store.absPathOf(m.path), request: { ...requestOf(m), checked: { allowHardlinks: true } } })),
        { onBeforeWrite: (i, plan) => void (intents[i] = writeIntent(store, { action, entry_id: regions[i]!.id, by }, plan)) },
      )
    : [];
  entries.push(...written.map((r, i) => entryOf(store, commitJournaled(store, intents[i]!, r))!));
  upserts.push(...written);
  if (action === 'redo') await stepOps();
  return { entries, upserts };
}
