/**
 * Proposals: edits an agent asked for under the `review` policy, waiting for a
 * person. propose() validates with a dry run of the engine (a proposal whose
 * preconditions already fail is refused at once with the engine's error) and
 * stores it pending with the dry run's preview. approve() applies it through the
 * engine with the proposal's own preconditions; a stale proposal becomes
 * `conflict` (with the engine's error details) and nothing is written.
 * Every decision runs under the workspace review lock on a refreshed document,
 * so a proposal is decided exactly once across processes.
 */
import { FolioError, isFolioError } from '../engine/errors.ts';
import type { Version } from '../engine/read/file-facts.ts';
import type { QuotedEdit } from '../engine/write/quote-edit.ts';
import { upsert, type LineByteRange, type Preconditions, type UpsertEdit, type UpsertResult, type UpsertTarget } from '../engine/write/upsert.ts';
import { loadBytes, storeBytes } from './blobs.ts';
import { toDoc } from './doc-codec.ts';
import { writeIntent, type ReviewIntent } from './intents.ts';
import { commitJournaled, STALE_CODES } from './journal.ts';
import { assignFields, entryOf, newId, nowIso, proposalOf } from './records.ts';
import { settledView } from './settled-view.ts';
import { storeOf, type ReviewStore } from './store.ts';
import type { GroupTag, JournalEntry, Proposal, ProposalStatus, ReviewActor } from './types.ts';

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
  proposal: Proposal;
}

/** Store a pending proposal (paths relative to the root). Refused at once if the engine's dry run fails. */
export async function propose(root: string, actor: ReviewActor, req: ProposeRequest): Promise<ProposeResult> {
  const store = storeOf(root);
  const dry = await upsert(store.absPathOf(req.path), {
    target: req.target,
    content: req.content,
    preconditions: req.preconditions,
    normalizeNewlines: req.normalizeNewlines,
    dryRun: true,
    ...(req.edits ? { edits: req.edits } : {}),
    ...(req.quoted ? { quoted: req.quoted } : {}),
    ...(req.createParents ? { createParents: true } : {}),
    ...(req.checked ? { checked: req.checked } : {}),
  });
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

function pendingOf(store: ReviewStore, id: string): Proposal {
  const p = proposalOf(store, id);
  if (p.status !== 'pending') {
    throw new FolioError('conflict', `proposal ${id} is already ${p.status}${p.decided_by ? ` (by ${p.decided_by.kind} ${p.decided_by.name})` : ''}`, {
      proposal_id: id,
      status: p.status,
      decided_by: p.decided_by,
      decided_at: p.decided_at,
    });
  }
  return p;
}

export interface ApproveResult {
  proposal: Proposal;
  entry: JournalEntry;
  upsert: UpsertResult;
}

/**
 * Apply a pending proposal. With `content`, the person's text replaces the
 * agent's (edit-then-approve), under the same target and preconditions.
 */
export async function approve(root: string, actor: ReviewActor, id: string, opts: { content?: string } = {}): Promise<ApproveResult> {
  const store = storeOf(root);
  return store.locked(async () => {
    const p = pendingOf(store, id);
    if (opts.content !== undefined && (p.edits || p.quoted)) {
      throw new FolioError('invalid_input', `proposal ${id} has ${(p.edits ?? p.quoted)!.length} edits: edit-then-approve takes one positional edit`, {
        proposal_id: id,
      });
    }
    if (opts.content !== undefined && p.target.kind === 'delete' && opts.content !== '') {
      throw new FolioError('invalid_input', `proposal ${id} deletes: it takes no content`, { proposal_id: id });
    }
    const content = opts.content ?? loadBytes(store.blobsDir, p.content).toString('utf8');
    const edited = opts.content === undefined ? null : storeBytes(store.blobsDir, Buffer.from(opts.content, 'utf8'));
    const what = { action: 'apply' as const, entry_id: newId('j'), proposal_id: id, actor: p.actor, decided_by: actor, edited_content: edited };
    let intent: ReviewIntent | null = null;
    let r: UpsertResult;
    try {
      r = await upsert(store.absPathOf(p.path), {
        target: p.target,
        content,
        preconditions: p.preconditions,
        normalizeNewlines: p.normalize_newlines,
        ...(p.edits ? { edits: p.edits.map((e) => ({ target: e.target, content: loadBytes(store.blobsDir, e.content).toString('utf8') })) } : {}),
        ...(p.quoted ? { quoted: p.quoted.map((q) => ({ oldText: q.old_text, newText: q.new_text, ...(q.replace_all ? { replaceAll: true } : {}) })) } : {}),
        // An agent's proposal: its path is written only if it still leads to itself (no link swapped in since).
        checked: { allowHardlinks: p.allow_hardlinks === true },
        ...(p.create_parents ? { createParents: true } : {}),
        // Write-ahead: the intent is durable before the file changes (intents.ts).
        onBeforeWrite: (plan) => void (intent = writeIntent(store, what, plan)),
      });
    } catch (err) {
      if (!isFolioError(err) || !STALE_CODES.has(err.code)) throw err;
      store.commit((d) =>
        assignFields(d, 'proposals', id, {
          status: 'conflict',
          decided_by: actor,
          decided_at: nowIso(),
          conflict: { ...err.details, code: err.code, message: err.message },
        }),
      );
      throw new FolioError(err.code, `proposal ${id} no longer applies: ${err.message}. It is now "conflict"; nothing was written`, {
        ...err.details,
        proposal_id: id,
        status: 'conflict',
      });
    }
    const entry = entryOf(store, commitJournaled(store, intent, r))!;
    return { proposal: proposalOf(store, id), entry, upsert: r };
  });
}

export async function reject(root: string, actor: ReviewActor, id: string, reason?: string): Promise<Proposal> {
  const store = storeOf(root);
  return store.locked(() => {
    pendingOf(store, id);
    store.commit((d) => assignFields(d, 'proposals', id, { status: 'rejected', decided_by: actor, decided_at: nowIso(), reason: reason ?? null }));
    return proposalOf(store, id);
  });
}
