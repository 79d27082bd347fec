/**
 * Batch decisions: approve or reject every pending proposal of one file, of one
 * agent (its actor: the agent session's name), or of the whole session (`all`:
 * every pending proposal of the workspace), in one step. An empty filter is
 * refused (invalid_input): deciding everything takes `all` said out loud.
 *
 * Approving a batch is what approving its proposals one by one, oldest first,
 * would do (rebase.ts), for the cost of one write per file:
 * - every proposal of a file is placed on the file as it is now (its targets were
 *   rebased there), and the file's proposals become the edits of ONE engine upsert
 *   (one atomic rewrite, one write-ahead intent), guarded by the file's version:
 *   the rebase chain proves each proposal's own region unchanged while the file is
 *   at that version;
 * - a proposal whose own lines (its guard ranges) an older proposal of the batch
 *   edits would be stale after that one; it becomes "conflict" in plain words,
 *   exactly as one by one, and is left out of the write;
 * - the files' writes form one journal group (group.ts), one entry per file naming
 *   every proposal it applied (proposal_ids): `review undo` steps the whole batch.
 * A crash leaves each file old or new; its intent commits the entry and marks its
 * proposals applied, or is dropped and they stay pending (intents.ts).
 *
 * One write's edits lie within 64 MiB (the journal keeps the span's old bytes to
 * undo it): proposals farther out are skipped for the next batch, which takes them.
 *
 * Quoted edits are found in the file as it is now, as their approval would find
 * them; a quote no longer there (or there twice) is the conflict approving it would be.
 *
 * A several-file proposal joins whole: every pending file of it in the batch, else
 * none (a file of it that conflicts makes the others conflict too, as alone).
 *
 * Whole-file deletes and moves join the same journal group, so one undo steps them
 * back with the content writes. They cannot join the engine's all-or-none write
 * (upsert-group.ts writes regions), so each is checked first (the engine's dry run,
 * with the proposal's own preconditions) before anything is written, and applied
 * right after the content writes, each journaled on its own intent. A file op that
 * fails its check is the conflict its approval alone would be; one whose file
 * changes between its check and its write (outside Folio, under the review lock)
 * becomes a conflict then, with the content writes applied: the group's undo
 * still steps everything that was written. A delete or move whose file (or
 * destination) another proposal of the batch also edits, deletes or moves is left
 * to be approved alone: the order of the two is the person's to choose.
 *
 * Left to be approved alone (listed as skipped, still pending): file ops that
 * share their file with another proposal of the batch, several-file proposals not
 * wholly in the batch, positional proposals that kept no rebase state, those whose
 * file changed outside Folio since (approve with current), and quoted ones whose
 * text an older proposal of the batch edits or writes.
 */
import { existsSync } from 'node:fs';
import { FolioError, isFolioError } from '../engine/errors.ts';
import { etagOf, statRegularFile } from '../engine/index/identity.ts';
import { openIndex } from '../engine/index/store.ts';
import { factsOf } from '../engine/read/file-facts.ts';
import { codecFor } from '../engine/text/codec.ts';
import type { LineIndex } from '../engine/index/line-index.ts';
import { editRegionOf } from '../engine/write/edit-region.ts';
import { resolveQuotedEdits } from '../engine/write/quote-edit.ts';
import { MAX_EDIT_SPAN_BYTES, type UpsertEdit, type UpsertResult } from '../engine/write/upsert.ts';
import { deleteFile, moveFile, type FileOpResult } from '../engine/write/file-ops.ts';
import { loadBytes } from './blobs.ts';
import { runFileOpJournaled } from './file-op-journal.ts';
import { applyGroupLocked, groupApplyOf, type GroupFile } from './group.ts';
import { fileOpCallOf, pendingGroupOf, proposalRequestOf } from './decisions.ts';
import { conflictTextOf, staleProposal } from './proposal-conflict.ts';
import { STALE_CODES } from './stale-codes.ts';
import { hunkCountOf, pendingHunksOf, staleErrorOf, type BatchMember } from './rebase.ts';
import { allProposals, assignFields, newId, nowIso, proposalOf } from './records.ts';
import { storeOf, type ReviewStore } from './store.ts';
import type { GuardRange, JournalEntry, Proposal, ReviewActor } from './types.ts';

export interface BatchFilter {
  /** only proposals of this file */
  path?: string;
  /** only proposals of this actor: its name, or "kind:name" */
  actor?: string;
  /** every proposal of the session (the workspace): neither path nor actor */
  all?: boolean;
}

export interface BatchResult {
  decision: 'approve' | 'reject';
  /** the journal group of an approval's writes (null when nothing was written) */
  group: string | null;
  applied: Proposal[];
  rejected: Proposal[];
  /** proposals that turned out stale: each now "conflict", with its own error */
  conflicts: Proposal[];
  /** still pending: approve these alone */
  skipped: { proposal: Proposal; reason: string }[];
  entries: JournalEntry[];
  /** the engine's answers: one upsert per content write, then one per delete or move */
  upserts: (UpsertResult | FileOpResult)[];
}

/** Whether `p` is of `actor` ("name" or "kind:name"). */
function isOf(p: Proposal, actor: string): boolean {
  const m = /^(human|agent):(.*)$/.exec(actor);
  return m ? p.actor.kind === m[1] && p.actor.name === m[2] : p.actor.name === actor;
}

/** The proposals of `statuses` the filter names, oldest first; a filter is required (one file, one agent, or all said out loud). */
function matchingOf(store: ReviewStore, filter: BatchFilter, statuses: Proposal['status'][]): Proposal[] {
  if (filter.all && (filter.path !== undefined || filter.actor !== undefined))
    throw new FolioError('invalid_input', 'all takes every proposal of the session: give it without path or actor', {
      ...(filter.path !== undefined ? { path: filter.path } : {}),
      ...(filter.actor !== undefined ? { actor: filter.actor } : {}),
    });
  if (!filter.all && filter.path === undefined && filter.actor === undefined)
    throw new FolioError(
      'invalid_input',
      'name a path, an actor, or all: true: a batch decides the proposals of one file, of one agent, or of the whole session',
      {},
    );
  const path = filter.path === undefined ? undefined : store.storedPathOf(filter.path);
  const found = allProposals(store)
    .filter((p) => statuses.includes(p.status) && (path === undefined || p.path === path) && (filter.actor === undefined || isOf(p, filter.actor)))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  if (!found.length)
    throw new FolioError('not_found', `no ${statuses.join(' or ')} proposals${path ? ` of ${path}` : ''}${filter.actor ? ` by ${filter.actor}` : ''}`, {
      ...(path ? { path } : {}),
      ...(filter.actor ? { actor: filter.actor } : {}),
    });
  return found;
}

/** A new file (if_none_match "*"): written whole, as one file of the batch's group. */
const isCreate = (p: Proposal) => p.preconditions.ifNoneMatch === '*' && !p.file_op;

/** Why `p` cannot join a batch write (it stays pending, to be approved alone), or null. */
function skipReasonOf(store: ReviewStore, p: Proposal): string | null {
  if (p.quoted) return null; // placed where its quotes are now (planOfFile)
  if (isCreate(p))
    return existsSync(store.absPathOf(p.path)) ? 'it creates a file that exists now: approve it alone (a conflict to resolve against the file)' : null;
  if (!p.rebase) return 'it kept no region to follow (a new file, an append, the whole file, or its file changed before it was stored): approve it alone';
  if (p.rebase.detached) return 'its file changed outside Folio since it was proposed: approve it alone (current applies it to the current file)';
  return null;
}

/** Whether a write over [start, end) touches guard `g` (rebase.ts shiftOf: a piece inside or across it). */
const touches = (g: GuardRange, x: { start: number; end: number }) => !(g.end_byte <= x.start || g.start_byte >= x.end);

/** The edits (target and text) `hunks` (0-based) of `p` make. */
function editsOf(store: ReviewStore, p: Proposal, hunks: number[]): UpsertEdit[] {
  if (!p.edits) return [{ target: p.target, content: loadBytes(store.blobsDir, p.content).toString('utf8') }];
  return hunks.map((i) => ({ target: p.edits![i]!.target, content: loadBytes(store.blobsDir, p.edits![i]!.content).toString('utf8') }));
}

/** Who wrote a batch's edits of one file: its agent, or the agents, named together. */
function authorOf(ps: Proposal[]): ReviewActor {
  const names = [...new Set(ps.map((p) => p.actor.name))];
  const kind = ps.every((p) => p.actor.kind === 'agent') ? 'agent' : ps.every((p) => p.actor.kind === 'human') ? 'human' : 'agent';
  return { kind, name: names.join(', ') };
}

interface FilePlan {
  /** the one write of the file (null: nothing of it applies) */
  file: GroupFile | null;
  /** proposals an older one of the batch makes stale: conflicts once the write is done */
  stale: Proposal[];
  /** quoted proposals whose quote the file no longer holds once (the engine's error): conflicts */
  unquoted: { p: Proposal; err: unknown }[];
}

/** A quoted proposal's `hunks` (0-based) found in the file as it is now: byte replacements, as its approval would place them. */
async function quotedEditsOf(index: LineIndex, encoding: string, p: Proposal, hunks: number[]): Promise<{ edits: UpsertEdit[]; olds: string[] }> {
  const quoted = hunks.map((i) => p.quoted![i]!);
  const resolved = await resolveQuotedEdits(
    index,
    encoding,
    quoted.map((q) => ({ oldText: q.old_text, newText: q.new_text, ...(q.replace_all ? { replaceAll: true } : {}) })),
  );
  return {
    edits: resolved.map((r) => ({ target: { kind: 'replace', start: r.start, end: r.end, units: 'bytes' }, content: '', contentBytes: r.content })),
    olds: quoted.map((q) => q.old_text),
  };
}

/**
 * One file's part of a batch: the proposals (oldest first) composed into one
 * write, on the file as it is now; those the others make stale, and those to skip.
 * A quoted proposal is placed where its quotes are now (as its approval would);
 * one whose quoted text an older proposal of the batch edits or writes again is
 * left to be approved alone, where the engine finds its quotes afresh.
 */
async function planOfFile(store: ReviewStore, path: string, ps: Proposal[], skipped: BatchResult['skipped']): Promise<FilePlan | null> {
  const abs = store.absPathOf(path);
  try {
    statRegularFile(abs);
  } catch (err) {
    for (const p of ps) skipped.push({ proposal: p, reason: `its file cannot be read (${(err as Error).message}): approve it alone` });
    return null;
  }
  const index = await openIndex(abs);
  const etag = etagOf(index.identity);
  const encoding = (await factsOf(abs, { hash: false })).encoding;
  const codec = codecFor(encoding);
  const taken: { p: Proposal; hunks: number[]; edits: UpsertEdit[] }[] = [];
  const pieces: { start: number; end: number }[] = [];
  const written: string[] = []; // the new texts of the proposals taken
  const stale: Proposal[] = [];
  const unquoted: FilePlan['unquoted'] = [];
  const normalize = ps[0]!.normalize_newlines;
  for (const p of ps) {
    if (p.rebase && p.rebase.etag !== etag) {
      skipped.push({ proposal: p, reason: 'its file changed outside Folio since it was proposed: approve it alone (current applies it to the current file)' });
      continue;
    }
    if (p.normalize_newlines !== normalize) {
      skipped.push({ proposal: p, reason: 'it keeps its newlines as written, unlike the others of its file: approve it alone' });
      continue;
    }
    const hunks = pendingHunksOf(p);
    let edits: UpsertEdit[];
    if (p.quoted) {
      let found: Awaited<ReturnType<typeof quotedEditsOf>>;
      try {
        found = await quotedEditsOf(index, encoding, p, hunks);
      } catch (err) {
        if (!isFolioError(err) || !STALE_CODES.has(err.code)) throw err;
        unquoted.push({ p, err });
        continue;
      }
      const ranges = found.edits.map((e) => e.target as { start: number; end: number });
      const guarded = ranges.some((r) => pieces.some((x) => touches({ start_byte: r.start, end_byte: r.end }, x)));
      if (guarded || found.olds.some((old) => written.some((w) => w.includes(old)))) {
        skipped.push({ proposal: p, reason: 'an older proposal of this batch edits or writes the text it quotes: approve it alone' });
        continue;
      }
      edits = found.edits;
    } else {
      const guards = [...hunks.map((i) => p.rebase!.edits[i]!), ...p.rebase!.anchors];
      if (guards.some((g) => pieces.some((x) => touches(g, x)))) {
        stale.push(p);
        continue;
      }
      edits = editsOf(store, p, hunks);
    }
    const own = edits.map((e) => editRegionOf(index, { ...e, normalizeNewlines: normalize }, codec));
    const all = [...pieces, ...own];
    const span = Math.max(...all.map((x) => x.end)) - Math.min(...all.map((x) => x.start));
    if (span > MAX_EDIT_SPAN_BYTES) {
      // The journal keeps the bytes of one write's span to undo it: the rest wait for the next batch.
      skipped.push({ proposal: p, reason: `it lies more than ${MAX_EDIT_SPAN_BYTES >> 20} MiB from the batch's first edits: approve it in the next batch` });
      continue;
    }
    pieces.push(...own.map((r) => ({ start: r.start, end: r.end })));
    written.push(...own.map((r) => codec.decode(r.content, 0, 'replace').text));
    taken.push({ p, hunks, edits });
  }
  if (!taken.length) return { file: null, stale, unquoted };
  const edits = taken.flatMap((t) => t.edits);
  const batch: BatchMember[] = taken.map((t) => ({ id: t.p.id, ...(hunkCountOf(t.p) ? { hunks: t.hunks } : {}) }));
  return {
    file: {
      path,
      request: {
        target: edits[0]!.target,
        content: edits[0]!.content,
        edits,
        // The rebase chain (and the quotes, found on it): each proposal's own region holds while the file is at this version.
        preconditions: { ifMatch: etag },
        normalizeNewlines: normalize,
        // Agents' proposals: the path is written only if it still leads to itself.
        checked: { allowHardlinks: taken.every((t) => t.p.allow_hardlinks === true) },
      },
      actor: authorOf(taken.map((t) => t.p)),
      batch,
    },
    stale,
    unquoted,
  };
}

/** Why a several-file proposal's group stays out of the batch: skipped whole, or a conflict of one of its files. */
type GroupOut = { skip: string } | { conflict: { id: string; err?: unknown } };

interface BatchPlan {
  files: GroupFile[];
  skipped: BatchResult['skipped'];
  /** proposals stale already, or made stale by an older one of the batch */
  staleIds: string[];
  unquoted: FilePlan['unquoted'];
}

/** Every file's one write, leaving out the groups in `out` (their members skipped, or left for their group's conflict). */
async function planBatch(store: ReviewStore, matched: Proposal[], out: Map<string, GroupOut>): Promise<BatchPlan> {
  const plan: BatchPlan = { files: [], skipped: [], staleIds: [], unquoted: [] };
  const byFile = new Map<string, Proposal[]>();
  const creates: Proposal[] = [];
  for (const p of matched) {
    const group = p.group ? out.get(p.group.id) : undefined;
    const why = group ? ('skip' in group ? group.skip : null) : skipReasonOf(store, p);
    if (why) plan.skipped.push({ proposal: p, reason: why });
    else if (group)
      continue; // its group's conflict, marked after the write
    else if (staleErrorOf(p)) plan.staleIds.push(p.id);
    else if (isCreate(p)) creates.push(p);
    else byFile.set(p.path, [...(byFile.get(p.path) ?? []), p]);
  }
  // A create is its file's whole write: the oldest of a path goes, any other of that path waits.
  for (const p of creates) {
    if (byFile.has(p.path) || plan.files.some((f) => f.path === p.path)) {
      plan.skipped.push({ proposal: p, reason: 'another proposal of this batch writes the same new file: approve it alone' });
      continue;
    }
    plan.files.push({ path: p.path, request: proposalRequestOf(store, p), actor: p.actor, batch: [{ id: p.id }] });
  }
  for (const [path, ps] of byFile) {
    const f = await planOfFile(store, path, ps, plan.skipped);
    if (!f) continue;
    plan.staleIds.push(...f.stale.map((p) => p.id));
    plan.unquoted.push(...f.unquoted);
    if (f.file) plan.files.push(f.file);
  }
  return plan;
}

/** The groups the plan cannot take whole, added to `out`; true if there were any. */
function groupsLeftOut(store: ReviewStore, plan: BatchPlan, out: Map<string, GroupOut>): boolean {
  const before = out.size;
  for (const s of plan.skipped) {
    const g = s.proposal.group;
    if (g && !out.has(g.id)) out.set(g.id, { skip: `another file of its several-file proposal ${g.id} (${s.proposal.path}) waits: ${s.reason}` });
  }
  for (const id of plan.staleIds) {
    const g = proposalOf(store, id).group;
    if (g && !out.has(g.id)) out.set(g.id, { conflict: { id } });
  }
  for (const { p, err } of plan.unquoted) if (p.group && !out.has(p.group.id)) out.set(p.group.id, { conflict: { id: p.id, err } });
  return out.size > before;
}

/** The names a proposal writes: its file, and a move's destination (stored paths). */
const namesOf = (p: Proposal): string[] => (p.to === undefined ? [p.path] : [p.path, p.to]);

/** The engine's dry run of a file-op proposal: null when it would apply now, else the error its approval would meet. */
async function fileOpCheckOf(store: ReviewStore, p: Proposal): Promise<unknown> {
  const call = fileOpCallOf(store, p);
  const req = { preconditions: call.preconditions, dryRun: true, checked: call.checked!, ...(call.createParents ? { createParents: true } : {}) };
  try {
    await (call.op === 'delete' ? deleteFile(call.path, req) : moveFile(call.path, call.to!, req));
    return null;
  } catch (err) {
    return err;
  }
}

/**
 * The batch's deletes and moves that may join it: each alone on its names (no other
 * proposal of the batch writes its file or its destination), oldest first. The
 * others are skipped: which goes first is the person's choice.
 */
function fileOpsOf(matched: Proposal[], skipped: BatchResult['skipped']): Proposal[] {
  const uses = new Map<string, number>();
  for (const p of matched) for (const name of namesOf(p)) uses.set(name, (uses.get(name) ?? 0) + 1);
  const ops: Proposal[] = [];
  for (const p of matched) {
    if (!p.file_op) continue;
    if (p.group) {
      // A patch's delete or move goes with its group's edits (a move after its file's edit): approved as the group.
      skipped.push({ proposal: p, reason: `it is one change of the several-file proposal ${p.group.id}: approve the group` });
      continue;
    }
    const shared = namesOf(p).find((name) => uses.get(name)! > 1);
    const what = p.file_op === 'delete' ? 'deletes' : 'moves';
    if (shared) skipped.push({ proposal: p, reason: `it ${what} ${shared}, which another proposal of this batch also changes: approve it alone` });
    else ops.push(p);
  }
  return ops;
}

/**
 * Approve every pending proposal the filter names (see the header): one write per
 * file, one journal group. The proposals it could not apply are in `conflicts`
 * (now "conflict", each with its own error) and `skipped` (still pending).
 * A several-file proposal joins whole or not at all: all its pending files must be
 * in the batch, and a file of it that conflicts or waits takes the others along,
 * as approving the group alone would.
 */
export async function approveBatch(root: string, actor: ReviewActor, filter: BatchFilter): Promise<BatchResult> {
  const store = storeOf(root);
  return store.locked(async () => {
    const all = matchingOf(store, filter, ['pending']);
    const matched = all.filter((p) => !p.file_op);
    const ids = new Set(matched.map((p) => p.id));
    const out = new Map<string, GroupOut>();
    for (const p of matched)
      if (p.group && !out.has(p.group.id) && pendingGroupOf(store, p).some((m) => !ids.has(m.id)))
        out.set(p.group.id, {
          skip: `it is one file of the several-file proposal ${p.group.id}, whose other files this batch does not take: approve it alone`,
        });
    // Leaving a group out changes what the others stand on: plan again until every group is in whole or out.
    let plan = await planBatch(store, matched, out);
    while (groupsLeftOut(store, plan, out)) plan = await planBatch(store, matched, out);
    const skipped = plan.skipped.slice();
    // Deletes and moves: each checked before anything is written, applied after the content writes, in the same group.
    const opsFailed: { p: Proposal; err: unknown }[] = [];
    const ops: Proposal[] = [];
    for (const p of fileOpsOf(all, skipped)) {
      const err = await fileOpCheckOf(store, p);
      if (err === null) ops.push(p);
      else opsFailed.push({ p, err });
    }
    const groupId = newId('g');
    const of = plan.files.length + ops.length;
    // The write first: the batch's own proposals make the others stale only once applied (rebasePending marks them).
    const done = plan.files.length ? await applyGroupLocked(store, plan.files, actor, groupId, of) : null;
    const entries = done?.entries.slice() ?? [];
    const upserts: BatchResult['upserts'] = done?.upserts.slice() ?? [];
    const opsApplied: string[] = [];
    for (const p of ops) {
      const what = groupApplyOf(p.id, p.actor, actor, { id: groupId, index: plan.files.length + opsApplied.length, of });
      try {
        const { entry, result } = await runFileOpJournaled(store, what, fileOpCallOf(store, p));
        entries.push(entry);
        upserts.push(result);
        opsApplied.push(p.id);
      } catch (err) {
        // Its file changed since its check: the conflict its approval would be; the writes done stay in the group.
        opsFailed.push({ p, err });
      }
    }
    const conflicts: Proposal[] = [];
    const conflict = (id: string, err: unknown) => {
      staleProposal(store, actor, id, err);
      conflicts.push(proposalOf(store, id));
    };
    for (const { p, err } of opsFailed) {
      if (isFolioError(err) && STALE_CODES.has(err.code)) conflict(p.id, err);
      else skipped.push({ proposal: p, reason: `${err instanceof Error ? err.message : String(err)}: approve it alone` });
    }
    for (const id of plan.staleIds) {
      const err = staleErrorOf(proposalOf(store, id));
      if (err) conflict(id, err);
      else skipped.push({ proposal: proposalOf(store, id), reason: 'the batch could not tell whether its lines changed: approve it alone' });
    }
    // A quote no longer found (or found twice) is the conflict its approval alone would be.
    for (const { p, err } of plan.unquoted) conflict(p.id, err);
    // A group with a file in conflict: every file of it is, each saying which file failed.
    for (const [gid, why] of out) {
      if (!('conflict' in why)) continue;
      const failed = proposalOf(store, why.conflict.id);
      const cause = why.conflict.err ?? staleErrorOf(failed);
      const members = matched.filter((x) => x.group?.id === gid && proposalOf(store, x.id).status === 'pending');
      if (!isFolioError(cause)) {
        // What made it stale was left out after all (another group's file): nothing to say it conflicts.
        for (const m of members) skipped.push({ proposal: m, reason: `the batch could not tell whether its group ${gid} still applies: approve it alone` });
        continue;
      }
      const text = conflictTextOf(failed, cause);
      for (const m of members) {
        if (m.id === failed.id) conflict(m.id, cause);
        else
          conflict(
            m.id,
            new FolioError('precondition_failed', `another file of its several-file proposal, ${failed.path}: ${text}`, {
              path: m.path,
              failed: ['group'],
              changed_by: failed.id,
              group: gid,
            }),
          );
      }
    }
    const applied = [...plan.files.flatMap((f) => f.batch!.map((m) => m.id)), ...opsApplied].map((id) => proposalOf(store, id));
    return {
      decision: 'approve',
      group: entries.length ? groupId : null,
      applied,
      rejected: [],
      conflicts,
      skipped: skipped.map((x) => ({ proposal: proposalOf(store, x.proposal.id), reason: x.reason })),
      entries,
      upserts,
    };
  });
}

/**
 * Reject every pending (or conflicted) proposal the filter names, with one reason
 * the agents see, in one change of the review state. A proposal of a group takes
 * its group's pending files with it, as a single reject does; a proposal with
 * several edits keeps those applied already (and is then "applied", as when its
 * last pending hunk is rejected).
 */
export async function rejectBatch(root: string, actor: ReviewActor, filter: BatchFilter, reason?: string): Promise<BatchResult> {
  const store = storeOf(root);
  return store.locked(() => {
    const ids = new Set<string>();
    for (const p of matchingOf(store, filter, ['pending', 'conflict'])) {
      ids.add(p.id);
      if (p.group && p.status === 'pending') for (const m of pendingGroupOf(store, p)) ids.add(m.id);
    }
    const at = nowIso();
    store.commit((d) => {
      for (const id of ids) {
        const p = proposalOf(store, id);
        const n = hunkCountOf(p);
        const hunks = n ? Array.from({ length: n }, (_, i) => (p.hunks?.[i] === 'applied' ? 'applied' : 'rejected')) : null;
        // As per-hunk decisions end: applied if any of it was.
        const status = hunks?.includes('applied') ? 'applied' : 'rejected';
        assignFields(d, 'proposals', id, { status, decided_by: actor, decided_at: at, reason: reason ?? null, ...(hunks ? { hunks } : {}) });
      }
    });
    return {
      decision: 'reject' as const,
      group: null,
      applied: [],
      rejected: [...ids].map((id) => proposalOf(store, id)),
      conflicts: [],
      skipped: [],
      entries: [],
      upserts: [],
    };
  });
}
