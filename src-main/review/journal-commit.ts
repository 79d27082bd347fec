/**
 * The journal's commits: what an applied edit, an undo and a redo change in the
 * document. The same functions serve the normal path (right after the engine
 * wrote the file) and recovery (intents.ts, when a crash came between the write
 * and the commit), so both record exactly the same thing.
 */
import type { LineByteRange, WritePiece } from '../engine/write/upsert.ts';
import type { Version } from '../engine/read/file-facts.ts';
import { toDoc } from './doc-codec.ts';
import { allEntries, assignFields, entryOf, nextSeq, nowIso, proposalOf } from './records.ts';
import { hunkCountOf, pendingHunksOf, rebasePending, type BatchMember } from './rebase.ts';
import type { ReviewStore } from './store.ts';
import type { GroupTag, JournalEntry, JournalEvent, ReviewActor, ReviewDocShape, StoredBytes } from './types.ts';

/** Where an entry's region starts in the file now: as applied, moved by the journaled edits before it since. */
export function currentStartOf(e: JournalEntry): number {
  return e.range_before.start_byte + (e.shift_bytes ?? 0);
}

/**
 * Inside a commit: a journaled edit of `storedPath` (apply, undo or redo) replaced
 * `oldLen` bytes at `start` with `newLen` bytes, so the regions of the file's other
 * entries that lie wholly after it moved by the difference. Recording that keeps
 * each entry's undo/redo aimed at its own bytes whatever order they are stepped in
 * (an older edit undone while later ones stay). Regions that overlap the edit are
 * left alone: their hash guard sees the change and answers conflict. Edits made
 * outside the journal (another editor) can't be tracked; the guard catches those too.
 */
function shiftLaterRegions(
  store: ReviewStore,
  d: ReviewDocShape,
  edit: { id: string; storedPath: string; start: number; oldLen: number; newLen: number },
): void {
  const delta = edit.newLen - edit.oldLen;
  if (delta === 0) return;
  for (const other of allEntries(store)) {
    if (other.id === edit.id || other.path !== edit.storedPath || other.file_op) continue;
    if (currentStartOf(other) >= edit.start + edit.oldLen) assignFields(d, 'journal', other.id, { shift_bytes: (other.shift_bytes ?? 0) + delta });
  }
}

/** Inside a commit: add a new entry to the journal, moving the file's later regions by its edit. */
export function recordEntry(store: ReviewStore, d: ReviewDocShape, entry: JournalEntry): void {
  // A whole-file delete or move has no region: nothing of the file's other entries moves.
  if (!entry.file_op)
    shiftLaterRegions(store, d, {
      id: entry.id,
      storedPath: entry.path,
      start: entry.range_before.start_byte,
      oldLen: entry.removed.bytes,
      newLen: entry.inserted_bytes,
    });
  d.journal![entry.id] = toDoc(entry);
  d.next_seq = entry.seq + 1;
}

/** An applied edit as the journal keeps it (the write is done; `versionAfter` is the file's version after it). */
export interface AppliedEdit {
  entryId: string;
  proposalId: string | null;
  actor: ReviewActor;
  decidedBy: ReviewActor;
  path: string;
  versionBefore: Version;
  versionAfter: Version;
  rangeBefore: LineByteRange;
  rangeAfter: LineByteRange;
  removed: StoredBytes;
  insertedBytes: number;
  insertedSha256: string;
  /** the person's text of an edit-then-approve */
  editedContent: StoredBytes | null;
  group?: GroupTag;
  /** a whole-file delete or move (JournalEntry.file_op) */
  fileOp?: Pick<JournalEntry, 'file_op' | 'to' | 'file'>;
  /** each edit's region before the write (WritePlan.pieces): what the file's pending proposals move by */
  pieces?: WritePiece[];
  /** the edits (0-based) of the proposal this write applies, when it has several: the rest stay pending */
  proposalHunks?: number[];
  /** a batch approval (batch.ts): the proposals this one write applies (proposalId is null) */
  batch?: BatchMember[];
  /** the write created the file (JournalEntry.created) */
  created?: boolean;
}

/** How an entry's edit changes the line count after it: its lines after less its lines before. */
export function lineDeltaOf(e: Pick<JournalEntry, 'range_before' | 'range_after'>): number {
  return e.range_after.end_line - e.range_before.end_line;
}

/** The journal entry of an applied edit, as `seq` at time `at`. */
export function appliedEntryOf(a: AppliedEdit, seq: number, at: string): JournalEntry {
  const event: JournalEvent = { action: 'apply', seq, by: a.decidedBy, at, version_before: a.versionBefore, version_after: a.versionAfter };
  return {
    id: a.entryId,
    seq,
    proposal_id: a.proposalId,
    actor: a.actor,
    decided_by: a.decidedBy,
    path: a.path,
    version_before: a.versionBefore,
    version_after: a.versionAfter,
    range_before: a.rangeBefore,
    range_after: a.rangeAfter,
    removed: a.removed,
    inserted_bytes: a.insertedBytes,
    inserted_sha256: a.insertedSha256,
    redo_payload: null,
    applied_at: at,
    undone: false,
    applied_seq: seq,
    undone_seq: null,
    last_version: a.versionAfter,
    ...(a.group ? { group: a.group } : {}),
    ...(a.batch ? { proposal_ids: a.batch.map((m) => m.id) } : {}),
    ...(a.fileOp ?? {}),
    ...(a.created ? { created: true } : {}),
    history: [event],
  };
}

/**
 * The fields of proposal `id` once `hunks` (0-based; default all pending) of it are
 * applied by entry `entryId`: a proposal with several edits may be applied some at
 * a time and is decided once none is pending. An old conflict no longer describes it.
 */
export function appliedFieldsOf(
  store: ReviewStore,
  id: string,
  hunkIdx: number[] | undefined,
  a: Pick<AppliedEdit, 'decidedBy' | 'editedContent'>,
  entryId: string,
  at: string,
) {
  const p = proposalOf(store, id);
  const hunks = hunkCountOf(p) ? Array.from({ length: hunkCountOf(p) }, (_, i) => p.hunks?.[i] ?? 'pending') : null;
  if (hunks) for (const i of hunkIdx ?? pendingHunksOf(p)) hunks[i] = 'applied';
  const open = hunks?.includes('pending') ?? false;
  return {
    ...(open ? {} : { status: 'applied', decided_by: a.decidedBy, decided_at: at, conflict: null }),
    ...(hunks ? { hunks } : {}),
    journal_id: entryId,
    edited_content: a.editedContent ?? undefined,
  };
}

/** Commit an applied edit: a new entry, and its proposal (or a batch's proposals) applied. Returns the entry. */
export function commitApplied(store: ReviewStore, a: AppliedEdit): JournalEntry {
  const at = nowIso();
  const entry = appliedEntryOf(a, nextSeq(store), at);
  const decided = [
    ...(a.proposalId !== null ? [{ id: a.proposalId, hunks: a.proposalHunks }] : []),
    ...(a.batch ?? []).map((m) => ({ id: m.id, hunks: m.hunks })),
  ].map((m) => [m.id, appliedFieldsOf(store, m.id, m.hunks, a, entry.id, at)] as const);
  store.commit((d) => {
    recordEntry(store, d, entry);
    if (!a.fileOp) {
      rebasePending(store, d, {
        journalId: entry.id,
        storedPath: entry.path,
        versionBefore: entry.version_before.etag,
        versionAfter: entry.version_after.etag,
        pieces: a.pieces ?? [spanPieceOf(entry, entry.range_before.start_byte, 'apply')],
        proposalId: a.proposalId,
        ...(a.proposalHunks ? { proposalHunks: a.proposalHunks } : {}),
        ...(a.batch ? { batch: a.batch } : {}),
      });
    }
    for (const [id, fields] of decided) assignFields(d, 'proposals', id, fields);
  });
  return entry;
}

/** The one piece an entry's whole span is, applied (or redone) or undone at `start`. */
function spanPieceOf(e: JournalEntry, start: number, action: 'apply' | 'undo' | 'redo'): WritePiece {
  const [oldLen, newLen] = action === 'undo' ? [e.inserted_bytes, e.removed.bytes] : [e.removed.bytes, e.inserted_bytes];
  return { startByte: start, endByte: start + oldLen, newBytes: newLen, lineDelta: action === 'undo' ? -lineDeltaOf(e) : lineDeltaOf(e) };
}

/** An undo or redo of entry `entryId` whose write is done. */
export interface SteppedEdit {
  action: 'undo' | 'redo';
  entryId: string;
  by: ReviewActor;
  versionBefore: Version;
  versionAfter: Version;
  /** what the step took out of the file: undo keeps it as the redo payload */
  removed: StoredBytes;
  /** a create stepped as a file op (file-op-journal.ts): the file's size, SHA-256 and mode, for its redo */
  file?: JournalEntry['file'];
}

/** Commit an undo or redo. Returns the entry as it is now. */
export function commitStepped(store: ReviewStore, s: SteppedEdit): JournalEntry {
  const e = entryOf(store, s.entryId)!;
  const seq = nextSeq(store);
  const event: JournalEvent = { action: s.action, seq, by: s.by, at: nowIso(), version_before: s.versionBefore, version_after: s.versionAfter };
  const fields = {
    ...(s.action === 'undo'
      ? { undone: true, undone_seq: seq, redo_payload: s.removed, last_version: s.versionAfter }
      : { undone: false, applied_seq: seq, redo_payload: null, last_version: s.versionAfter }),
    ...(s.file && !e.file_op ? { file: s.file } : {}),
  };
  // What the step replaced: the edit's bytes (undo) or the bytes it had removed (redo).
  const [oldLen, newLen] = s.action === 'undo' ? [e.inserted_bytes, e.removed.bytes] : [e.removed.bytes, e.inserted_bytes];
  store.commit((d) => {
    if (!e.file_op) {
      shiftLaterRegions(store, d, { id: e.id, storedPath: e.path, start: currentStartOf(e), oldLen, newLen });
      rebasePending(store, d, {
        journalId: e.id,
        storedPath: e.path,
        versionBefore: s.versionBefore.etag,
        versionAfter: s.versionAfter.etag,
        pieces: [spanPieceOf(e, currentStartOf(e), s.action)],
      });
    }
    assignFields(d, 'journal', e.id, fields);
    (d.journal![e.id] as { history: unknown[] }).history.push(toDoc(event));
    d.next_seq = seq + 1;
  });
  return entryOf(store, e.id)!;
}
