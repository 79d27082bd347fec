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
import { writeIntent, type ReviewIntent } from './intents.ts';
import { propose, reject, type ProposeRequest, type ProposeResult } from './proposals.ts';
import { commitJournaled } from './journal.ts';
import { entryOf, newId } from './records.ts';
import { storeOf } from './store.ts';
import type { JournalEntry, ReviewActor, StoredBytes } from './types.ts';

export interface GroupFile {
  path: string;
  request: Omit<UpsertRequest, 'dryRun' | 'captureBytes'>;
  /** the proposal this file's edit applies (an approval), else null */
  proposalId?: string | null;
  editedContent?: StoredBytes | null;
}

export interface AppliedGroup {
  group: string;
  entries: JournalEntry[];
  upserts: UpsertResult[];
}

/**
 * Apply every file's edit, all or none, and journal each under `actor` (`decidedBy`
 * the approver of proposals). Under the review lock, like every journaled write.
 */
export async function applyGroupJournaled(root: string, actor: ReviewActor, files: GroupFile[], decidedBy: ReviewActor = actor): Promise<AppliedGroup> {
  const store = storeOf(root);
  return store.locked(async () => {
    const group = newId('g');
    const whats = files.map((f, index) => ({
      action: 'apply' as const,
      entry_id: newId('j'),
      proposal_id: f.proposalId ?? null,
      actor,
      decided_by: decidedBy,
      edited_content: f.editedContent ?? null,
      group: { id: group, index, of: files.length },
    }));
    const intents: (ReviewIntent | null)[] = files.map(() => null);
    const upserts = await upsertGroup(
      files.map((f) => ({ path: store.absPathOf(f.path), request: f.request })),
      { onBeforeWrite: (i, plan) => void (intents[i] = writeIntent(store, whats[i]!, plan)) },
    );
    const entries = upserts.map((r, i) => entryOf(store, commitJournaled(store, intents[i]!, r))!);
    return { group, entries, upserts };
  });
}

export interface ProposedGroup {
  group: string;
  proposals: ProposeResult[];
}

/**
 * Store one pending proposal per file, tagged with one group: approved or rejected
 * together. Every file is checked first (a dry run of the whole group); if storing
 * one fails after all, the ones stored are rejected again, so no part of a group
 * waits alone.
 */
export async function proposeGroup(root: string, actor: ReviewActor, files: ProposeRequest[]): Promise<ProposedGroup> {
  const store = storeOf(root);
  await upsertGroup(files.map((f) => ({ path: store.absPathOf(f.path), request: requestOfProposal(f) })));
  const group = newId('g');
  const proposals: ProposeResult[] = [];
  try {
    for (const [index, f] of files.entries()) proposals.push(await propose(root, actor, { ...f, group: { id: group, index, of: files.length } }));
  } catch (err) {
    for (const p of proposals) await reject(root, actor, p.proposal_id, `group ${group} could not be stored whole`).catch(() => undefined);
    throw err;
  }
  return { group, proposals };
}

/** A proposal request as the engine's dry run. */
function requestOfProposal(f: ProposeRequest): UpsertRequest {
  return {
    target: f.target,
    content: f.content,
    preconditions: f.preconditions,
    normalizeNewlines: f.normalizeNewlines,
    dryRun: true,
    ...(f.edits ? { edits: f.edits } : {}),
    ...(f.quoted ? { quoted: f.quoted } : {}),
    ...(f.createParents ? { createParents: true } : {}),
    ...(f.checked ? { checked: f.checked } : {}),
  };
}
