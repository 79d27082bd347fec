/**
 * Deciding a proposal: approve() applies it through the engine with the
 * proposal's own preconditions; a stale proposal becomes `conflict` (with the
 * engine's error details, proposal-conflict.ts) and nothing is written; reject()
 * declines it with a reason the agent sees. Every decision runs under the
 * workspace review lock on a refreshed document, so a proposal is decided exactly
 * once across processes.
 */
import { FolioError } from '../engine/errors.ts';
import { upsertAt } from './remote-values.ts';
import type { LineChange } from '../engine/write/diff-preview.ts';
import type { UpsertRequest, UpsertResult } from '../engine/write/upsert.ts';
import type { FileOpResult } from '../engine/write/file-ops.ts';
import { runFileOpJournaled, type FileOpCall } from './file-op-journal.ts';
import { loadBytes, storeBytes } from './blobs.ts';
import { allProposals, assignFields, entryOf, newId, nowIso, proposalOf } from './records.ts';
import { changedText, hunkCountOf, pendingHunksOf, preconditionsOf, regionPreconditionsOf, staleErrorOf } from './rebase.ts';
import { linesOfChanges } from './changes.ts';
import { storeOf, type ReviewStore } from './store.ts';
import type { JournalEntry, Proposal, ReviewActor } from './types.ts';
import { commitJournaled, writeIntent, type ReviewIntent } from './intents.ts';
import { staleProposal } from './proposal-conflict.ts';
import { applyMixedGroupLocked } from './group.ts';

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
  /** what the engine did: an upsert, or for a file-op proposal the delete or move */
  upsert: UpsertResult | FileOpResult;
}

/** The engine call of a delete or move proposal: its own preconditions and checks (its approval, alone or in a batch). */
export function fileOpCallOf(store: ReviewStore, p: Proposal): FileOpCall {
  return {
    op: p.file_op!,
    path: store.absPathOf(p.path),
    ...(p.to !== undefined ? { to: store.absPathOf(p.to) } : {}),
    preconditions: p.preconditions,
    // An agent's proposal: its names are used only if they still lead to themselves.
    checked: { allowHardlinks: p.allow_hardlinks === true },
    ...(p.create_parents ? { createParents: true } : {}),
  };
}

/** Approve a pending file-op proposal (under the review lock): journaled, with the proposal's preconditions and checks. */
function approveFileOp(store: ReviewStore, actor: ReviewActor, p: Proposal) {
  const what = { action: 'apply' as const, entry_id: newId('j'), proposal_id: p.id, actor: p.actor, decided_by: actor, edited_content: null };
  return runFileOpJournaled(store, what, fileOpCallOf(store, p));
}

export interface ApproveOptions {
  /** edit-then-approve: the person's text instead of the agent's */
  content?: string;
  /** only these edits (1-based, in the proposal's order) of a proposal with several; the rest stay pending */
  hunks?: number[];
  /**
   * Apply to the current file: check the proposal's own region (its SHA-256 or its
   * lines' hashes) instead of the version it was proposed on; a conflict may be retried so.
   */
  current?: boolean;
  /**
   * Resolve (a 3-way merge): the person saw the current file at this version and
   * wrote `content` for it. It is checked instead of the proposal's preconditions,
   * so a proposal whose own lines changed can still be applied as the person merged it.
   */
  ifMatch?: string;
  /** with ifMatch: the lines (1-based, inclusive, of that version) the content replaces; end = start - 1 inserts before start */
  lines?: { start: number; end: number };
}

/** The edits (0-based) `hunks` (1-based) select of p, all pending ones by default; invalid_input names a wrong one. */
export function selectedHunksOf(p: Proposal, hunks: number[] | undefined): number[] {
  const open = pendingHunksOf(p);
  if (hunks === undefined) return open;
  const n = hunkCountOf(p);
  if (n === 0) throw new FolioError('invalid_input', `proposal ${p.id} has one edit: decide it without hunks`, { proposal_id: p.id });
  const out = [...new Set(hunks)].sort((a, b) => a - b).map((h) => h - 1);
  for (const i of out) {
    if (!Number.isInteger(i) || i < 0 || i >= n)
      throw new FolioError('invalid_input', `proposal ${p.id} has hunks 1-${n}, not ${i + 1}`, { proposal_id: p.id, hunks: n });
    if (!open.includes(i))
      throw new FolioError('conflict', `hunk ${i + 1} of proposal ${p.id} is already ${p.hunks?.[i]}`, {
        proposal_id: p.id,
        hunk: i + 1,
        status: p.hunks?.[i],
      });
  }
  if (out.length === 0) throw new FolioError('invalid_input', 'hunks is empty: name at least one', { proposal_id: p.id });
  return out;
}

/**
 * Apply a pending proposal. With `content`, the person's text replaces the
 * agent's (edit-then-approve), under the same target and preconditions.
 */
export async function approve(root: string, actor: ReviewActor, id: string, opts: ApproveOptions = {}): Promise<ApproveResult> {
  const store = storeOf(root);
  return store.locked(async () => {
    const resolve = opts.ifMatch !== undefined;
    const p = opts.current || resolve ? decidableOf(store, id) : pendingOf(store, id);
    if (resolve && p.file_op ? opts.content !== undefined || opts.lines : resolve && opts.content === undefined) {
      throw new FolioError(
        'invalid_input',
        p.file_op
          ? `proposal ${id} ${p.file_op === 'delete' ? 'deletes' : 'moves'} the file: a resolve (if_match) takes the current version only, no content`
          : 'a resolve (if_match) takes content: the text the person merged',
        { proposal_id: id },
      );
    }
    if (opts.lines && !resolve) throw new FolioError('invalid_input', 'lines goes with if_match (the version the lines belong to)', { proposal_id: id });
    if (opts.content !== undefined && p.file_op) {
      throw new FolioError('invalid_input', `proposal ${id} ${p.file_op === 'delete' ? 'deletes' : 'moves'} the file: it takes no content`, {
        proposal_id: id,
      });
    }
    if (p.file_op && p.group && !resolve) return approveGroupLocked(store, actor, p);
    if (p.file_op) {
      try {
        // A resolve: the person looked at the file as it is now (its version) and still wants it deleted or moved.
        const { entry, result } = await approveFileOp(store, actor, resolve ? { ...p, preconditions: { ifMatch: opts.ifMatch } } : p);
        return { proposal: proposalOf(store, id), entry, upsert: result };
      } catch (err) {
        throw staleProposal(store, actor, id, err);
      }
    }
    if (opts.content !== undefined && !resolve && (p.edits || p.quoted)) {
      throw new FolioError('invalid_input', `proposal ${id} has ${(p.edits ?? p.quoted)!.length} edits: edit-then-approve takes one positional edit`, {
        proposal_id: id,
      });
    }
    if (opts.content !== undefined && p.target.kind === 'delete' && opts.content !== '') {
      throw new FolioError('invalid_input', `proposal ${id} deletes: it takes no content`, { proposal_id: id });
    }
    // A resolve of one file of a group applies the person's text to that file alone: the group already conflicted.
    if (p.group && !resolve) {
      if (opts.content !== undefined || opts.hunks !== undefined)
        throw new FolioError('invalid_input', `proposal ${id} is one file of group ${p.group.id}: approve it as proposed`, { proposal_id: id });
      return approveGroupLocked(store, actor, p);
    }
    const hunks = selectedHunksOf(p, opts.hunks);
    // A conflict keeps the person's edited text (staleProposal): applied to the current file, it is the text.
    const kept = opts.current && p.status === 'conflict' && p.edited_content ? loadBytes(store.blobsDir, p.edited_content).toString('utf8') : undefined;
    const personal = opts.content ?? kept;
    const edited = personal === undefined ? null : storeBytes(store.blobsDir, Buffer.from(personal, 'utf8'));
    const stale = opts.current || resolve ? null : staleErrorOf(p);
    if (stale) throw staleProposal(store, actor, id, stale, edited);
    const content = personal ?? loadBytes(store.blobsDir, p.content).toString('utf8');
    const what = {
      action: 'apply' as const,
      entry_id: newId('j'),
      proposal_id: id,
      actor: p.actor,
      decided_by: actor,
      edited_content: edited,
      ...(hunkCountOf(p) ? { proposal_hunks: hunks } : {}),
    };
    let intent: ReviewIntent | null = null;
    let r: UpsertResult;
    try {
      const req = resolve ? resolveRequestOf(p, content, opts.ifMatch!, opts.lines) : proposalRequestOf(store, p, content, hunks);
      const check = resolve ? undefined : quotedLinesCheckOf(store, p, hunks);
      if (check) req.checkChanges = check;
      if (opts.current && !resolve && !p.quoted) req.preconditions = currentPreconditionsOf(p, hunks);
      r = await upsertAt(store.absPathOf(p.path), {
        ...req,
        // Write-ahead: the intent is durable before the file changes (intents.ts).
        onBeforeWrite: (plan) => void (intent = writeIntent(store, what, plan)),
      });
    } catch (err) {
      throw staleProposal(store, actor, id, err, edited);
    }
    const entry = entryOf(store, commitJournaled(store, intent, r))!;
    return { proposal: proposalOf(store, id), entry, upsert: r };
  });
}

/**
 * A quote edit applies only where the lines it was proposed on are still as the
 * agent read them: its quotes, found again under the lock, must stand on the same
 * old lines as its change hunks. A quote that still matches in a line someone
 * changed (outside the journal, which the rebase would have caught) is
 * precondition_failed naming it, and nothing is written.
 */
function quotedLinesCheckOf(store: ReviewStore, p: Proposal, hunks: number[]): ((changes: LineChange[]) => void) | undefined {
  if (!p.quoted || !p.changes) return undefined;
  const changes = p.changes;
  const stored = linesOfChanges(store.blobsDir, changes);
  return (found) => {
    for (const [j, i] of hunks.entries()) {
      const was = changes.hunks.flatMap((h, k) => (h.edit === i ? [JSON.stringify(stored[k]![0])] : []));
      const now = found.filter((c) => c.edit === j);
      const k = now.findIndex((c, n) => JSON.stringify(c.old_lines) !== was[n]);
      if (k < 0 && now.length === was.length) continue;
      const h = now[Math.max(k, 0)];
      const lines = h ? { start_line: h.old_start, end_line: h.old_start + Math.max(h.old_count, 1) - 1 } : undefined;
      throw new FolioError('precondition_failed', lines ? changedText(lines) : 'the lines it quotes changed after the agent read them', {
        path: p.path,
        failed: ['region'],
        hunk: i + 1,
        ...(lines ? { lines } : {}),
      });
    }
  };
}

/**
 * A resolve (3-way merge) as a write: the person's text over `lines` of the version
 * they merged against (the whole file without lines), checked by that version only.
 * Every kind resolves so: quotes, several edits, one file of a group, a create whose
 * file exists now.
 */
function resolveRequestOf(p: Proposal, content: string, ifMatch: string, lines: ApproveOptions['lines']): UpsertRequest {
  return {
    target: lines ? linesTargetOf(lines) : { kind: 'whole' },
    content,
    preconditions: { ifMatch },
    normalizeNewlines: p.normalize_newlines,
    checked: { allowHardlinks: p.allow_hardlinks === true },
  };
}

/** A resolve's lines as an engine target: a replace, or an insert before start when end = start - 1. */
function linesTargetOf({ start, end }: { start: number; end: number }): UpsertRequest['target'] {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start - 1) {
    throw new FolioError('invalid_range', `lines ${start}-${end}: 1-based, end >= start (or start - 1 to insert)`, { start, end });
  }
  return end === start - 1 ? { kind: 'insert', at: start, units: 'lines' } : { kind: 'replace', start, end, units: 'lines' };
}

/** The region preconditions "apply to the current file" checks; invalid_input when the proposal kept none. */
function currentPreconditionsOf(p: Proposal, hunks: number[]) {
  const pre = regionPreconditionsOf(p, hunks);
  if (pre) return pre;
  throw new FolioError('invalid_input', `proposal ${p.id} kept no region to check against the current file: re-read and propose again`, {
    proposal_id: p.id,
  });
}

/** A proposal that may still be decided: pending, or a conflict (retried on the current file, or rejected). */
function decidableOf(store: ReviewStore, id: string): Proposal {
  const p = proposalOf(store, id);
  return p.status === 'conflict' ? p : pendingOf(store, id);
}

/**
 * The write a proposal asks for (its own content, or the person's `content`), with
 * its checks; `hunks` (0-based): only those of its edits.
 */
export function proposalRequestOf(
  store: ReviewStore,
  p: Proposal,
  content = loadBytes(store.blobsDir, p.content).toString('utf8'),
  hunks = pendingHunksOf(p),
): UpsertRequest {
  const edits = p.edits ? hunks.map((i) => p.edits![i]!) : undefined;
  return {
    target: edits ? edits[0]!.target : p.target,
    content: edits ? loadBytes(store.blobsDir, edits[0]!.content).toString('utf8') : content,
    preconditions: preconditionsOf(p, hunks),
    normalizeNewlines: p.normalize_newlines,
    ...(edits ? { edits: edits.map((e) => ({ target: e.target, content: loadBytes(store.blobsDir, e.content).toString('utf8') })) } : {}),
    ...(p.quoted
      ? { quoted: hunks.map((i) => p.quoted![i]!).map((q) => ({ oldText: q.old_text, newText: q.new_text, ...(q.replace_all ? { replaceAll: true } : {}) })) }
      : {}),
    // An agent's proposal: its path is written only if it still leads to itself (no link swapped in since).
    checked: { allowHardlinks: p.allow_hardlinks === true },
    ...(p.create_parents ? { createParents: true } : {}),
  };
}

/** The pending proposals of p's group (p among them), in the group's order. */
export function pendingGroupOf(store: ReviewStore, p: Proposal): Proposal[] {
  return allProposals(store)
    .filter((x) => x.group?.id === p.group!.id && x.status === 'pending')
    .sort((a, b) => a.group!.index - b.group!.index);
}

/**
 * Approve every pending proposal of p's group at once, all or nothing (under the
 * review lock): a stale file turns every proposal of the group into "conflict".
 */
async function approveGroupLocked(store: ReviewStore, actor: ReviewActor, p: Proposal): Promise<ApproveResult> {
  const members = pendingGroupOf(store, p);
  // A file of the group whose own lines an applied edit changed: the whole group conflicts, each naming that file.
  const staleOne = members.find((m) => staleErrorOf(m));
  if (staleOne) {
    const err = staleErrorOf(staleOne)!;
    const errs = members.map((m) =>
      staleProposal(store, actor, m.id, m === staleOne ? err : new FolioError(err.code, `${staleOne.path}: ${err.message}`, { ...err.details, path: m.path })),
    );
    throw errs[
      Math.max(
        0,
        members.findIndex((m) => m.id === p.id),
      )
    ];
  }
  // A patch's group also deletes and moves files: those go after the region writes (group.ts applyMixedGroupLocked).
  const regions = members.filter((m) => !m.file_op);
  const ops = members.filter((m) => m.file_op);
  let done: Awaited<ReturnType<typeof applyMixedGroupLocked>>;
  try {
    done = await applyMixedGroupLocked(
      store,
      regions.map((m) => {
        const request = proposalRequestOf(store, m);
        const check = quotedLinesCheckOf(store, m, pendingHunksOf(m));
        return { path: m.path, request: check ? { ...request, checkChanges: check } : request, proposalId: m.id, actor: m.actor };
      }),
      ops.map((m) => {
        // A move of a file the group edits follows that edit, guarded by the version it writes.
        const after = regions.findIndex((r) => r.path === m.path);
        return { call: fileOpCallOf(store, m), proposalId: m.id, actor: m.actor, ...(after >= 0 ? { after } : {}) };
      }),
      actor,
      p.group!.id,
    );
  } catch (err) {
    // Writes done before a delete or move failed stay applied (their entries committed): the others conflict.
    const stale = members.map((m) => (proposalOf(store, m.id).status === 'applied' ? null : staleProposal(store, actor, m.id, err)));
    throw stale[members.findIndex((m) => m.id === p.id)] ?? stale.find((x) => x !== null) ?? err;
  }
  const entry = done.entries.find((e) => e.proposal_id === p.id) ?? done.entries[0]!;
  const r = p.file_op ? done.fileOps[ops.findIndex((m) => m.id === p.id)]! : done.upserts[regions.findIndex((m) => m.id === p.id)]!;
  return { proposal: proposalOf(store, p.id), entry, upsert: r };
}

/**
 * Reject a pending proposal (or dismiss a conflict), with a reason the agent sees.
 * `hunks` (1-based): only those edits of a proposal with several; it is decided
 * once none is pending (applied if any of it was).
 */
export async function reject(root: string, actor: ReviewActor, id: string, reason?: string, opts: { hunks?: number[] } = {}): Promise<Proposal> {
  const store = storeOf(root);
  return store.locked(() => {
    const p = decidableOf(store, id);
    const n = hunkCountOf(p);
    if (opts.hunks !== undefined && p.status === 'pending' && !p.group) {
      const hunks = Array.from({ length: n }, (_, i) => p.hunks?.[i] ?? 'pending');
      for (const i of selectedHunksOf(p, opts.hunks)) hunks[i] = 'rejected';
      const open = hunks.includes('pending');
      const status = open ? 'pending' : hunks.includes('applied') ? 'applied' : 'rejected';
      store.commit((d) =>
        assignFields(d, 'proposals', id, {
          hunks,
          reason: reason ?? null,
          ...(open ? {} : { status, decided_by: actor, decided_at: nowIso() }),
        }),
      );
      return proposalOf(store, id);
    }
    if (opts.hunks !== undefined)
      throw new FolioError('invalid_input', `proposal ${id} is ${p.status}${p.group ? ' and one file of a group' : ''}: reject it whole`, { proposal_id: id });
    // One file of a group: the group goes with it.
    const ids = p.group && p.status === 'pending' ? pendingGroupOf(store, p).map((m) => m.id) : [id];
    const hunks = n ? { hunks: Array.from({ length: n }, (_, i) => (p.hunks?.[i] === 'applied' ? 'applied' : 'rejected')) } : {};
    store.commit((d) => {
      for (const x of ids)
        assignFields(d, 'proposals', x, { status: 'rejected', decided_by: actor, decided_at: nowIso(), reason: reason ?? null, ...(x === id ? hunks : {}) });
    });
    return proposalOf(store, id);
  });
}
