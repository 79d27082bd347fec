/**
 * The journal of applied edits, and undo / redo.
 *
 * Undo applies the inverse of an edit as a new upsert: the bytes it removed go
 * back over [start_byte, start_byte + inserted) (bytes units, newlines as they
 * were), guarded by the SHA-256 of what the edit wrote there, so newer work in
 * that region is never overwritten: a changed region is a `conflict` and nothing
 * is written. When the edit wrote nothing (a pure deletion) the region is empty
 * and the guard is instead the version the edit produced (if_match). Redo is the
 * same in reverse, with the bytes undo took out (captured under the file lock).
 *
 * Order is global: every apply, undo and redo takes the next `seq`. Undo takes the
 * not-undone entry with the highest applied_seq, redo the undone one with the
 * highest undone_seq, optionally only for one path, and by default only entries
 * the requesting actor decided (`includeOthers` widens that).
 *
 * `id` names the entry instead (the per-entry Undo / Redo buttons of the app). It
 * is undone even when later edits of the same file are still applied, as long as
 * its region still holds what it wrote: the hash guard is the same, so later work
 * over that region is never overwritten. When the guard fails, the `conflict`
 * lists those later edits (`later_entries`, newest first): undo them first.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { FolioError, isFolioError } from '../engine/errors.ts';
import type { UpsertRequest, UpsertResult } from '../engine/write/upsert.ts';
import { upsertAt } from './remote-values.ts';
import { deleteFile, moveFile, type FileOpResult } from '../engine/write/file-ops.ts';
import { createStepsAsFileOp, runFileOpJournaled, stepFileOp, type FileOpCall } from './file-op-journal.ts';
import { loadBytes } from './blobs.ts';
import { currentStartOf } from './journal-commit.ts';
import { commitJournaled, writeIntent, type ReviewIntent } from './intents.ts';
import { STALE_CODES } from './stale-codes.ts';
import { stepGroupLocked } from './group.ts';
import { allEntries, entryOf, newId, sameActor } from './records.ts';
import { settledView } from './settled-view.ts';
import { storeOf, type ReviewStore } from './store.ts';
import type { JournalEntry, ReviewActor } from './types.ts';

/** Apply an edit directly and journal it under `actor`, so it can be undone: the entry and the engine's answer. */
export async function applyJournaled(
  root: string,
  actor: ReviewActor,
  path: string,
  req: Omit<UpsertRequest, 'dryRun' | 'captureBytes'>,
): Promise<{ entry: JournalEntry; upsert: UpsertResult }> {
  const store = storeOf(root);
  return store.locked(async () => {
    const what = { action: 'apply' as const, entry_id: newId('j'), proposal_id: null, actor, decided_by: actor, edited_content: null };
    let intent: ReviewIntent | null = null;
    const r = await upsertAt(store.absPathOf(path), { ...req, onBeforeWrite: (plan) => void (intent = writeIntent(store, what, plan)) });
    const entry = commitJournaled(store, intent, r);
    return { entry: entryOf(store, entry)!, upsert: r };
  });
}

/** Apply an edit directly (an agent's auto edit) and journal it, so it can be undone. */
export async function applyDirect(root: string, actor: ReviewActor, path: string, req: Omit<UpsertRequest, 'dryRun' | 'captureBytes'>): Promise<JournalEntry> {
  return (await applyJournaled(root, actor, path, req)).entry;
}

/** Why this process cannot write the review state of `root` (a read-only or foreign directory), or null if it can. */
export function unwritableStateOf(root: string): string | null {
  const store = storeOf(root);
  try {
    mkdirSync(store.changesDir, { recursive: true });
    accessSync(store.changesDir, constants.W_OK);
    accessSync(store.dir, constants.W_OK);
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return `${store.dir} is not writable (${code})`;
    throw err;
  }
}

/**
 * A person's own edit (the upsert operation of the CLI, the app, HTTP): applied and
 * journaled under `actor` like an agent's auto edit, so `review undo` takes it back.
 * The journal is the person's convenience, not a gate: where the workspace state
 * cannot be written (folio run from a read-only directory) the edit still applies,
 * unjournaled, and its notes say so.
 */
export async function applyOwnEdit(
  root: string,
  actor: ReviewActor,
  path: string,
  req: Omit<UpsertRequest, 'dryRun' | 'captureBytes'>,
): Promise<{ entry: JournalEntry | null; upsert: UpsertResult }> {
  const unwritable = unwritableStateOf(root);
  if (unwritable === null) {
    const done = await applyJournaled(root, actor, path, req);
    done.upsert.notes.push(`journaled as ${done.entry.id}: review undo takes it back`);
    return done;
  }
  const r = await upsertAt(storeOf(root).absPathOf(path), req);
  r.notes.push(`not journaled: ${unwritable}; review undo cannot take this edit back`);
  return { entry: null, upsert: r };
}

export interface StepOptions {
  /** exactly this journal entry (still subject to `path` and the actor filter) */
  id?: string;
  /** only entries of this file */
  path?: string;
  /** also entries decided by other actors */
  includeOthers?: boolean;
}

export interface StepResult {
  action: 'undo' | 'redo';
  entry: JournalEntry;
  /** what the engine did: an upsert, or for a file-op entry the delete, move or restore */
  upsert: UpsertResult | FileOpResult;
  /** a group's step: every entry of the group it stepped */
  group?: JournalEntry[];
}

// --- whole-file deletes and moves (file-op-journal.ts) ---

/** Delete or move a file directly (an agent's auto edit) and journal it under `actor`, so it can be undone. */
export async function applyFileOp(root: string, actor: ReviewActor, call: FileOpCall): Promise<{ entry: JournalEntry; result: FileOpResult }> {
  const store = storeOf(root);
  return store.locked(() =>
    runFileOpJournaled(store, { action: 'apply', entry_id: newId('j'), proposal_id: null, actor, decided_by: actor, edited_content: null }, call),
  );
}

/** A person's own delete or move, journaled like applyOwnEdit (unjournaled, and said so, where the state is not writable). */
export async function applyOwnFileOp(root: string, actor: ReviewActor, call: FileOpCall): Promise<{ entry: JournalEntry | null; result: FileOpResult }> {
  const unwritable = unwritableStateOf(root);
  if (unwritable === null) {
    const done = await applyFileOp(root, actor, call);
    done.result.notes.push(`journaled as ${done.entry.id}: review undo takes it back`);
    return done;
  }
  const req = { preconditions: call.preconditions, ...(call.createParents ? { createParents: true } : {}) };
  const result = call.op === 'delete' ? await deleteFile(call.path, req) : await moveFile(call.path, call.to!, req);
  result.notes.push(`not journaled: ${unwritable}; review undo cannot take this back`);
  return { entry: null, result };
}

export function undo(root: string, actor: ReviewActor, opts: StepOptions = {}): Promise<StepResult> {
  return step(root, actor, opts, 'undo');
}

export function redo(root: string, actor: ReviewActor, opts: StepOptions = {}): Promise<StepResult> {
  return step(root, actor, opts, 'redo');
}

/** The journal in global order, optionally of one file. */
export function history(root: string, opts: { path?: string } = {}): JournalEntry[] {
  const store = storeOf(root);
  const path = opts.path === undefined ? undefined : store.storedPathOf(opts.path);
  // Settled by the files: a write killed before its commit shows as the file has it.
  return settledView(store).entries.filter((e) => path === undefined || e.path === path || e.to === path);
}

/** The entry `opts.id` names, if the filters let this actor step it; a typed error saying why not otherwise. */
function pickById(store: ReviewStore, actor: ReviewActor, opts: StepOptions & { id: string }, action: 'undo' | 'redo'): JournalEntry {
  const e = entryOf(store, opts.id);
  const path = opts.path === undefined ? undefined : store.storedPathOf(opts.path);
  if (!e || (path !== undefined && e.path !== path && e.to !== path)) {
    throw new FolioError('not_found', `no journal entry ${opts.id}${path ? ` in ${path}` : ''}`, { action, journal_id: opts.id, ...(path ? { path } : {}) });
  }
  if (!opts.includeOthers && !sameActor(e.decided_by, actor)) {
    throw new FolioError(
      'not_found',
      `journal entry ${e.id} was decided by ${e.decided_by.kind} ${e.decided_by.name}, not ${actor.kind} ${actor.name} (include_others widens this)`,
      {
        action,
        journal_id: e.id,
        decided_by: e.decided_by,
        include_others: false,
      },
    );
  }
  if (e.undone !== (action === 'redo')) {
    throw new FolioError('conflict', `cannot ${action} ${e.id}: it is ${e.undone ? 'already undone' : 'applied, not undone'}`, {
      action,
      journal_id: e.id,
      path: e.path,
      undone: e.undone,
    });
  }
  return e;
}

/** Applied edits of e's file made after e's latest apply or undo, newest first: what may have moved over e's region. */
function laterEntriesOf(store: ReviewStore, e: JournalEntry, action: 'undo' | 'redo'): string[] {
  const since = action === 'undo' ? e.applied_seq : (e.undone_seq ?? 0);
  return allEntries(store)
    .filter((x) => x.id !== e.id && x.path === e.path && !x.undone && x.applied_seq > since)
    .sort((a, b) => b.applied_seq - a.applied_seq)
    .map((x) => x.id);
}

function pick(store: ReviewStore, actor: ReviewActor, opts: StepOptions, action: 'undo' | 'redo'): JournalEntry {
  if (opts.id !== undefined) return pickById(store, actor, { ...opts, id: opts.id }, action);
  const path = opts.path === undefined ? undefined : store.storedPathOf(opts.path);
  const candidates = allEntries(store).filter(
    (e) =>
      e.undone === (action === 'redo') && (path === undefined || e.path === path || e.to === path) && (opts.includeOthers || sameActor(e.decided_by, actor)),
  );
  const key = (e: JournalEntry) => (action === 'undo' ? e.applied_seq : (e.undone_seq ?? 0));
  const best = candidates.reduce<JournalEntry | null>((b, e) => (b === null || key(e) > key(b) ? e : b), null);
  if (!best) {
    throw new FolioError(
      'not_found',
      `nothing to ${action}${path ? ` in ${path}` : ''}${opts.includeOthers ? '' : ` decided by ${actor.kind} ${actor.name} (include_others widens this)`}`,
      {
        action,
        ...(path ? { path } : {}),
        include_others: Boolean(opts.includeOthers),
      },
    );
  }
  return best;
}

/** The inverse (undo) or the re-application (redo) of `e`, as a guarded byte-range upsert. */
function requestOf(store: ReviewStore, e: JournalEntry, action: 'undo' | 'redo'): UpsertRequest {
  const start = currentStartOf(e);
  // What is in the file now over the region, and what goes back there.
  const now = action === 'undo' ? { bytes: e.inserted_bytes, sha256: e.inserted_sha256 } : { bytes: e.removed.bytes, sha256: e.removed.sha256 };
  if (action === 'redo' && !e.redo_payload) throw new Error(`journal entry ${e.id} is undone but has no redo payload`);
  const put = loadBytes(store.blobsDir, action === 'undo' ? e.removed : e.redo_payload!);
  // The bytes go back verbatim (a UTF-16 file's bytes can't travel as a UTF-8 string);
  // content is there for previews only.
  const content = put.toString('utf8');
  const common = { content, contentBytes: put, normalizeNewlines: false };
  if (now.bytes === 0) {
    return { ...common, target: { kind: 'insert', at: start, units: 'bytes' }, preconditions: { ifMatch: e.last_version.etag } };
  }
  const end = start + now.bytes;
  return {
    ...common,
    target: put.length ? { kind: 'replace', start, end, units: 'bytes' } : { kind: 'delete', start, end, units: 'bytes' },
    preconditions: { expectedRangeSha256: now.sha256 },
  };
}

async function step(root: string, actor: ReviewActor, opts: StepOptions, action: 'undo' | 'redo'): Promise<StepResult> {
  const store = storeOf(root);
  return store.locked(async () => {
    const e = pick(store, actor, opts, action);
    const path = store.absPathOf(e.path);
    let r: UpsertResult;
    let intent: ReviewIntent | null = null;
    try {
      if (e.group) {
        // One file of a several-file edit or of a batch (its deletes and moves too): the whole group steps.
        const done = await stepGroupLocked(store, e, action, actor, (m) => requestOf(store, m, action));
        const i = done.entries.findIndex((x) => x.id === e.id);
        return { action, entry: done.entries[i]!, upsert: done.upserts[i]!, group: done.entries };
      }
      if (e.file_op || createStepsAsFileOp(store, e, action)) {
        const { entry, result } = await stepFileOp(store, e, { action, entry_id: e.id, by: actor });
        return { action, entry, upsert: result };
      }
      r = await upsertAt(path, {
        ...requestOf(store, e, action),
        // The journal's own path: written only if it still leads to itself.
        checked: { allowHardlinks: true },
        onBeforeWrite: (plan) => void (intent = writeIntent(store, { action, entry_id: e.id, by: actor }, plan)),
      });
    } catch (err) {
      if (isFolioError(err) && STALE_CODES.has(err.code)) {
        const later = laterEntriesOf(store, e, action);
        const first = later.length ? `; later edits of this file are applied (${later.join(', ')}): undo them first` : '';
        const what = e.file_op ? `the file${e.to ? 's' : ''} changed since` : 'the region changed since';
        throw new FolioError('conflict', `cannot ${action} ${e.id} on ${e.path}: ${what} (${err.message}); nothing was written${first}`, {
          ...err.details,
          cause: err.code,
          journal_id: e.id,
          action,
          path: e.path,
          ...(later.length ? { later_entries: later } : {}),
        });
      }
      throw err;
    }
    const entry = entryOf(store, commitJournaled(store, intent, r))!;
    return { action, entry, upsert: r };
  });
}
