/**
 * Proposals: edits an agent asked for under the `review` policy, waiting for a
 * person. propose() validates with a dry run of the engine (a proposal whose
 * preconditions already fail is refused at once with the engine's error) and
 * stores it pending with the dry run's preview; proposeFileOp() does the same for
 * a delete or move, proposeGroup() for several files decided together.
 * Deciding them (approve, reject) is decisions.ts.
 */
import { etagOf } from '../engine/index/identity.ts';
import type { LineIndex } from '../engine/index/line-index.ts';
import { openIndex } from '../engine/index/store.ts';
import type { Version } from '../engine/read/file-facts.ts';
import type { QuotedEdit } from '../engine/write/quote-edit.ts';
import { readingAt, upsertAt } from './remote-values.ts';
import type { LineByteRange, Preconditions, UpsertEdit, UpsertRequest, UpsertResult, UpsertTarget } from '../engine/write/upsert.ts';
import { deleteFile, moveFile } from '../engine/write/file-ops.ts';
import { dryRunFileOp, type FileOpCall } from './file-op-journal.ts';
import { storeBytes } from './blobs.ts';
import { toDoc } from './doc-codec.ts';
import { newId, nowIso, proposalOf } from './records.ts';
import { rebaseStateOf } from './rebase.ts';
import { settledView } from './settled-view.ts';
import { changesOf, deleteChangesFor, moveChangesOf } from './changes.ts';
import { storeOf } from './store.ts';
import type { GroupTag, JournalEntry, Proposal, ProposalStatus, ReviewActor } from './types.ts';
import { upsertGroup } from '../engine/write/upsert-group.ts';
import { reject } from './decisions.ts';

export interface ProposeRequest {
  path: string;
  target: UpsertTarget;
  content: string;
  preconditions: Preconditions;
  normalizeNewlines?: boolean;
  /** several edits (UpsertRequest.edits): target/content are the first */
  edits?: UpsertEdit[];
  /** edits by quoting (UpsertRequest.quoted) */
  quoted?: QuotedEdit[];
  /** with if_none_match: create missing folders too */
  createParents?: boolean;
  /** the agent guard checked the path (upsert.ts): approvals write it under the same check */
  checked?: { allowHardlinks: boolean };
  /** one file of a several-file proposal (group.ts) */
  group?: GroupTag;
}

export interface ProposeResult {
  proposal_id: string;
  status: 'pending';
  path: string;
  preview: string;
  version_seen: Version;
  range_before: LineByteRange;
  range_after: LineByteRange;
  affected: UpsertResult['affected'];
  /** quotes that matched loosely (engine/write/quote-edit.ts): the reviewer's diff shows where */
  loose_matches?: UpsertResult['loose_matches'];
  proposal: Proposal;
}

/** The file's index if it is still the version `etag` (the dry run's), else null. */
async function indexOfVersion(path: string, etag: string): Promise<LineIndex | null> {
  if (etag === 'absent') return null;
  try {
    const index = await openIndex(path);
    return etagOf(index.identity) === etag ? index : null;
  } catch {
    return null;
  }
}

/** Store a pending proposal (paths relative to the root). Refused at once if the engine's dry run fails. */
export async function propose(root: string, actor: ReviewActor, req: ProposeRequest): Promise<ProposeResult> {
  const store = storeOf(root);
  const dry = await upsertAt(store.absPathOf(req.path), {
    target: req.target,
    content: req.content,
    preconditions: req.preconditions,
    normalizeNewlines: req.normalizeNewlines,
    dryRun: true,
    ...(req.edits ? { edits: req.edits } : {}),
    ...(req.quoted ? { quoted: req.quoted } : {}),
    ...(req.createParents ? { createParents: true } : {}),
    ...(req.checked ? { checked: req.checked } : {}),
    describeChanges: true,
  });
  const { rebase, changes } = await readingAt(store.absPathOf(req.path), async (path) => ({
    rebase: await rebaseStateOf(path, req, dry),
    changes: changesOf(store.blobsDir, dry.changes ?? [], await indexOfVersion(path, dry.version_before.etag)),
  }));
  return store.locked(() => {
    const proposal: Proposal = {
      id: newId('p'),
      actor,
      path: store.storedPathOf(dry.path),
      target: req.target,
      content: storeBytes(store.blobsDir, Buffer.from(req.content, 'utf8')),
      ...(req.edits ? { edits: req.edits.map((e) => ({ target: e.target, content: storeBytes(store.blobsDir, Buffer.from(e.content, 'utf8')) })) } : {}),
      ...(req.quoted ? { quoted: req.quoted.map((q) => ({ old_text: q.oldText, new_text: q.newText, ...(q.replaceAll ? { replace_all: true } : {}) })) } : {}),
      edited_content: null,
      preconditions: req.preconditions,
      normalize_newlines: req.normalizeNewlines !== false,
      ...(req.checked?.allowHardlinks ? { allow_hardlinks: true } : {}),
      ...(req.createParents ? { create_parents: true } : {}),
      preview: dry.preview,
      version_seen: dry.version_before,
      status: 'pending',
      decided_by: null,
      created_at: nowIso(),
      decided_at: null,
      reason: null,
      conflict: null,
      journal_id: null,
      ...(req.group ? { group: req.group } : {}),
      ...(rebase ? { rebase } : {}),
      changes,
    };
    store.commit((d) => {
      d.proposals![proposal.id] = toDoc(proposal);
    });
    return {
      proposal_id: proposal.id,
      status: 'pending',
      path: proposal.path,
      preview: dry.preview,
      version_seen: dry.version_before,
      range_before: dry.range_before,
      range_after: dry.range_after,
      affected: dry.affected,
      ...(dry.loose_matches ? { loose_matches: dry.loose_matches } : {}),
      proposal,
    };
  });
}

export function listProposals(root: string, filter: { status?: ProposalStatus; path?: string } = {}): Proposal[] {
  const store = storeOf(root);
  const path = filter.path === undefined ? undefined : store.storedPathOf(filter.path);
  // Settled by the files: an approve killed before its commit shows as applied.
  return settledView(store)
    .proposals.filter((p) => (filter.status === undefined || p.status === filter.status) && (path === undefined || p.path === path))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

export function showProposal(root: string, id: string): { proposal: Proposal; entry: JournalEntry | null } {
  const store = storeOf(root);
  const view = settledView(store);
  const proposal = view.proposals.find((p) => p.id === id) ?? proposalOf(store, id);
  return { proposal, entry: proposal.journal_id ? (view.entries.find((e) => e.id === proposal.journal_id) ?? null) : null };
}

export interface ProposeFileOpResult {
  proposal_id: string;
  status: 'pending';
  path: string;
  file_op: FileOpCall['op'];
  /** move: the new name, stored like path */
  to?: string;
  preview: string;
  version_seen: Version;
  proposal: Proposal;
}

/** Store a pending delete or move (absolute paths in `call`). Refused at once if the engine's dry run fails. */
export async function proposeFileOp(root: string, actor: ReviewActor, call: FileOpCall, group?: GroupTag): Promise<ProposeFileOpResult> {
  const store = storeOf(root);
  const req = {
    preconditions: call.preconditions,
    dryRun: true,
    ...(call.checked ? { checked: call.checked } : {}),
    ...(call.createParents ? { createParents: true } : {}),
  };
  const dry = call.op === 'delete' ? await deleteFile(call.path, req) : await moveFile(call.path, call.to!, req);
  const changes = call.op === 'delete' ? await deleteChangesFor(store.blobsDir, call.path) : moveChangesOf(store.blobsDir);
  return store.locked(() => {
    const to = dry.to === undefined ? undefined : store.storedPathOf(dry.to);
    const proposal: Proposal = {
      id: newId('p'),
      actor,
      path: store.storedPathOf(dry.path),
      // The whole file goes: the target says so to readers that know only targets.
      target: { kind: 'whole' },
      content: storeBytes(store.blobsDir, new Uint8Array(0)),
      file_op: call.op,
      ...(to !== undefined ? { to } : {}),
      edited_content: null,
      preconditions: call.preconditions,
      normalize_newlines: false,
      ...(call.checked?.allowHardlinks ? { allow_hardlinks: true } : {}),
      ...(call.createParents ? { create_parents: true } : {}),
      preview: dry.preview,
      version_seen: dry.version_before,
      status: 'pending',
      decided_by: null,
      created_at: nowIso(),
      decided_at: null,
      reason: null,
      conflict: null,
      journal_id: null,
      ...(group ? { group } : {}),
      changes,
    };
    store.commit((d) => {
      d.proposals![proposal.id] = toDoc(proposal);
    });
    return {
      proposal_id: proposal.id,
      status: 'pending' as const,
      path: proposal.path,
      file_op: call.op,
      ...(to !== undefined ? { to } : {}),
      preview: dry.preview,
      version_seen: dry.version_before,
      proposal,
    };
  });
}

export interface ProposedGroup {
  group: string;
  proposals: ProposeResult[];
  /** the group's deletes and moves (a patch's), after its files */
  fileOps: ProposeFileOpResult[];
}

/**
 * Store one pending proposal per file, tagged with one group: approved or rejected
 * together. Every file is checked first (a dry run of the whole group); if storing
 * one fails after all, the ones stored are rejected again, so no part of a group
 * waits alone.
 */
export async function proposeGroup(root: string, actor: ReviewActor, files: ProposeRequest[], ops: FileOpCall[] = []): Promise<ProposedGroup> {
  const store = storeOf(root);
  if (files.length) await upsertGroup(files.map((f) => ({ path: store.absPathOf(f.path), request: requestOfProposal(f) })));
  for (const call of ops) await dryRunFileOp(call);
  const group = newId('g');
  const of = files.length + ops.length;
  const proposals: ProposeResult[] = [];
  const fileOps: ProposeFileOpResult[] = [];
  try {
    for (const [index, f] of files.entries()) proposals.push(await propose(root, actor, { ...f, group: { id: group, index, of } }));
    // A delete or move follows the files (a move after its file's edit: approval guards it by that write, decisions.ts).
    for (const [k, call] of ops.entries()) fileOps.push(await proposeFileOp(root, actor, call, { id: group, index: files.length + k, of }));
  } catch (err) {
    for (const p of [...proposals, ...fileOps]) await reject(root, actor, p.proposal_id, `group ${group} could not be stored whole`).catch(() => undefined);
    throw err;
  }
  return { group, proposals, fileOps };
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
