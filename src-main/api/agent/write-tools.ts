/**
 * The agent's writing tools (upsert, edit, and delete or move through upsert's
 * target) and proposal_status: each write follows the path's review policy
 * (`review` stores a proposal, `auto` applies and journals it, `deny` refuses),
 * and an edit of lines holding redacted secrets is refused (tools.ts).
 */
import { FolioError, isFolioError } from '../../engine/errors.ts';
import { isRemoteLocator } from '../../engine/backend/locator.ts';
import type { LineByteRange, UpsertRequest, UpsertResult } from '../../engine/write/upsert.ts';
import type { Version } from '../../engine/read/file-facts.ts';
import type { ProposeRequest, ProposeResult } from '../../review/proposals.ts';
import { fileOpCallOf, fileOpWireOf } from '../file-op-request.ts';
import { AgentEditInput, AgentUpsertInput } from '../schemas/agent.ts';
import { runOp, type OpInput } from '../handle.ts';
import { operations } from '../operations.ts';
import { AgentProposalStatusOutput, AgentUpsertOutput } from '../schemas/agent.ts';
import { readByInput } from '../read-address.ts';
import { editRequestOf, upsertRequestOf } from '../upsert-request.ts';
import { withCheckedFile, pinningOf } from './checked-file.ts';
import { compactPreview, newFileSummary } from './compact-preview.ts';
import { factsOf } from '../../engine/read/file-facts.ts';
import { codecFor } from '../../engine/text/codec.ts';
import { looseNote, nearMissHint } from '../../engine/write/quote-edit.ts';
import { nearestMiss } from '../../engine/write/near-miss.ts';
import { looseForm, quoteLines } from '../../engine/write/loose-match.ts';
import { checkAccess, checkCreate, reviewPolicyFor } from './policy.ts';
import { answerTextOf, redact, redactPreview, redactReadAnswer, redactStrings, redactedTargetLines } from './redact.ts';
import { redactDetails, redactedLineView } from './redact-details.ts';
import { refuseHiddenFilter } from './redact-json-filter.ts';
import { secretSpansOf } from './secret-spans.ts';
import { tool, ctxOf, type AgentSession, type AuditFields } from './tool-kit.ts';

/**
 * The preview an agent sees: redacted as reads are (a new file's is the agent's own
 * text, redacted by the rules alone), then compact (compact-preview.ts: no header,
 * one line of context).
 */
export async function agentPreview(s: AgentSession, real: string, preview: string, created: boolean): Promise<string> {
  // A new file's preview is the agent's own text again: its size says enough.
  if (created) return newFileSummary(redactStrings(s.rules, preview));
  return compactPreview(await withCheckedFile(real, (pinned) => redactPreview(s.rules, pinned, preview), pinningOf(s)));
}

/** The notes of a write's loose quote matches (where, how the quote differed), for an answer that is otherwise kept short. */
export function looseOf(r: Pick<UpsertResult, 'loose_matches'>): { notes?: string[] } {
  return r.loose_matches?.length ? { notes: r.loose_matches.map(looseNote) } : {};
}

/**
 * An agent's auto edit, applied and journaled. A local file's entry is written as a
 * record (review/applied-log.ts: the intent, the write, the record, each durable
 * before the answer) and folded into the review document when the agent's writes
 * pause (review/idle-fold.ts): the Automerge commit (~7 ms of an edit's ~20 here)
 * is off the agent's path. A remote value, an intent a crash left, or state that
 * cannot be written take the full journal.
 */
async function applyAuto(
  s: AgentSession,
  real: string,
  req: UpsertRequest,
): Promise<{ entry: { id: string; version_before: Version; version_after: Version; range_after: LineByteRange }; upsert: UpsertResult }> {
  if (!isRemoteLocator(real)) {
    const done = await (await import('../../review/applied-log.ts')).applyOwnEditDeferred(s.policy.root, s.actor, real, req);
    if (done) {
      (await import('../../review/idle-fold.ts')).foldWhenIdle(s.policy.root);
      const { record } = done;
      return {
        entry: { id: done.entryId, version_before: record.plan.version_before, version_after: record.version_after, range_after: record.range_after },
        upsert: done.upsert,
      };
    }
  }
  return (await import('../../review/journal.ts')).applyJournaled(s.policy.root, s.actor, real, req);
}

/**
 * An agent's write of `real` (checked by the caller, with `req.checked` set) as the
 * review policy of the path says: `auto` applies and journals it, `review` stores a
 * proposal for a person. Shared by upsert and edit.
 */
export async function routeWrite(s: AgentSession, real: string, mode: 'auto' | 'review', req: UpsertRequest, created: boolean) {
  if (mode === 'auto') {
    const { entry, upsert: r } = await applyAuto(s, real, req);
    return {
      output: {
        applied: true,
        policy: 'auto' as const,
        journal_id: entry.id,
        path: real,
        version_before: entry.version_before,
        version_after: entry.version_after,
        range_after: entry.range_after,
        ...(r.created ? { created: true } : {}),
        ...(r.hunks ? { hunks: r.hunks } : {}),
        ...looseOf(r),
      },
      audit: {
        path: real,
        version_before: entry.version_before.etag,
        version_after: entry.version_after.etag,
        bytes_written: entry.range_after.end_byte - entry.range_after.start_byte,
      },
    };
  }
  const p = await (await import('../../review/proposals.ts')).propose(s.policy.root, s.actor, proposeRequestOf(real, req));
  // The agent gets the proposal's id, preview and ranges; the stored record (content blobs, journal links) stays with the reviewer.
  const { proposal: _record, loose_matches: _loose, ...answer } = p;
  const preview = await agentPreview(s, real, p.preview, created);
  const redacted = redactStrings(s.rules, { ...answer, actor: p.proposal.actor, preview });
  return {
    output: {
      applied: false,
      policy: 'review' as const,
      ...redacted,
      ...looseOf(p),
      next: 'a person reviews it; call proposal_status with wait_ms to wait for the decision',
    },
    audit: { path: real, reason: `proposal ${p.proposal_id}` },
  };
}

/** What a proposal of the checked write `req` of `real` stores. */
export function proposeRequestOf(real: string, req: UpsertRequest): ProposeRequest {
  return {
    path: real,
    target: req.target,
    content: req.content,
    ...(req.edits ? { edits: req.edits } : {}),
    ...(req.quoted ? { quoted: req.quoted } : {}),
    preconditions: req.preconditions,
    normalizeNewlines: req.normalizeNewlines,
    ...(req.createParents ? { createParents: true } : {}),
    checked: req.checked,
  };
}

/** The review policy of `real` for an agent's write; deny is refused here. */
export function writeModeOf(s: AgentSession, asked: string, real: string): 'auto' | 'review' {
  const mode = reviewPolicyFor(s.policy, real);
  if (mode === 'deny') throw new FolioError('permission_denied', `agents may not edit ${asked} (review policy: deny)`, { path: real });
  return mode;
}

/** An agent's write of one file, checked by the guard and ready to route: where, how, and its dry-run answer when one was asked. */
export interface PreparedWrite {
  real: string;
  mode: 'auto' | 'review';
  req: UpsertRequest;
  created: boolean;
  dry?: AgentToolAnswer;
}
type AgentToolAnswer = { output: Record<string, unknown> & { path: string; applied: boolean }; audit: AuditFields };

/** An upsert of one file through the guard: policy, redacted lines, the preview of a dry run. */
export async function prepareUpsert(s: AgentSession, asked: OpInput<'upsert'>): Promise<PreparedWrite> {
  const create = asked.if_none_match === '*';
  const real = create ? checkCreate(s.policy, asked.path) : checkAccess(s.policy, asked.path, 'write');
  const mode = writeModeOf(s, asked.path, real);
  // Read from the file checked here (pinned-file.ts), and written only if the path still leads to it (write-target.ts).
  const checked = { allowHardlinks: s.policy.allowHardlinks };
  const extra = { checked, ...(create && s.policy.createFolders ? { createParents: true } : {}) };
  const { req, hidden } = create
    ? { req: { ...(await upsertRequestOf({ ...asked, path: real })).request, ...extra }, hidden: [] as number[] }
    : await withCheckedFile(
        real,
        async (pinned) => {
          const t = asked.target;
          if (t && 'json' in t) await refuseHiddenFilter(s.rules, pinned, t.json.path, t.json.jsonl_line);
          // A section or JSON target becomes the line or byte edit it names, checked below like any other.
          const { request } = await upsertRequestOf({ ...asked, path: pinned });
          return { req: { ...request, ...extra }, hidden: await redactedTargetLines(s.rules, pinned, request) };
        },
        pinningOf(s),
      );
  if (hidden.length) throw redactedLines(real, hidden);
  if (!req.dryRun) return { real, mode, req, created: create };
  const r = await runOp('upsert', { ...asked, path: real }, s.actor, { ...ctxOf(s), ...extra, createFolders: s.policy.createFolders });
  const dry = {
    output: { ...r, preview: await agentPreview(s, real, r.preview, create), policy: mode },
    audit: { path: real, version_before: r.version_before.etag },
  };
  return { real, mode, req, created: create, dry };
}

/** The one-file inputs of an upsert whose targets name several files (each other file with its own if_match). */
function upsertFilesOf(asked: OpInput<'upsert'>): OpInput<'upsert'>[] | null {
  if (!asked.targets?.some((t) => t.path !== undefined && t.path !== asked.path)) return null;
  const paths = [...new Set(asked.targets.map((t) => t.path ?? asked.path))];
  return paths.map((path) => {
    const mine = asked.targets!.filter((t) => (t.path ?? asked.path) === path);
    const tags = [...new Set(mine.map((t) => t.if_match).filter((t) => t !== undefined))];
    if (tags.length > 1) throw new FolioError('invalid_input', `the targets on ${path} give different if_match values`, { path });
    const targets = mine.map(({ path: _p, if_match: _t, ...t }) => t);
    if (path === asked.path) return { ...asked, targets, ...(tags[0] !== undefined ? { if_match: tags[0] } : {}) };
    if (tags[0] === undefined) {
      throw new FolioError('precondition_required', `targets on ${path}: give that file's if_match (the etag of your read) in its targets`, { path });
    }
    return {
      path,
      targets,
      if_match: tags[0],
      ...(asked.dry_run ? { dry_run: true } : {}),
      ...(asked.normalize_newlines !== undefined ? { normalize_newlines: asked.normalize_newlines } : {}),
    };
  });
}

export const upsertTool = tool(
  'upsert',
  AgentUpsertOutput,
  async (s, wire) => {
    const asked = wire as AgentUpsertInput;
    const t = asked.target;
    const guards = { path: asked.path, if_match: asked.if_match, expected_sha256: asked.expected_sha256, ...(asked.dry_run ? { dry_run: true } : {}) };
    if (t && 'delete_file' in t) return deleteFile(s, guards);
    if (t && 'move_to' in t) return moveFile(s, { ...guards, to: t.move_to });
    const files = upsertFilesOf(asked as OpInput<'upsert'>);
    if (files) return writeFiles(s, await prepareAll(files, (f) => prepareUpsert(s, f)));
    const p = await prepareUpsert(s, asked as OpInput<'upsert'>);
    return p.dry ?? routeWrite(s, p.real, p.mode, p.req, p.created);
  },
  ' Under review (default): a proposal; see proposal_status.',
  AgentUpsertInput as unknown as (typeof operations)['upsert']['input'],
);

/** Each file's write prepared (every guard passed for every file) before any is written. */
export async function prepareAll<T>(files: T[], prepare: (f: T) => Promise<PreparedWrite>): Promise<PreparedWrite[]> {
  const out: PreparedWrite[] = [];
  for (const [i, f] of files.entries()) {
    try {
      out.push(await prepare(f));
    } catch (err) {
      if (isFolioError(err)) throw new FolioError(err.code, `files[${i}]: ${err.message}`, { ...err.details, file: i });
      throw err;
    }
  }
  const seen = new Set<string>();
  for (const p of out) {
    if (seen.has(p.real)) throw new FolioError('invalid_input', `${p.real} is named twice: give all its edits under one path`, { path: p.real });
    seen.add(p.real);
  }
  return out;
}

/** Each file's answer once its group was applied under auto (one journal entry and engine answer per file, in order). */
export function appliedAnswersOf(
  files: PreparedWrite[],
  done: { entries: { id: string; version_before: Version; version_after: Version; range_after: LineByteRange }[]; upserts: UpsertResult[] },
) {
  return done.upserts.map((r, i) => {
    const entry = done.entries[i]!;
    return {
      applied: true,
      policy: 'auto' as const,
      journal_id: entry.id,
      path: files[i]!.real,
      version_before: entry.version_before,
      version_after: entry.version_after,
      range_after: entry.range_after,
      ...(r.hunks ? { hunks: r.hunks } : {}),
      ...looseOf(r),
    };
  });
}

/** Each file's answer once its group was proposed: the proposal's id, status and ranges, its preview redacted and compact. */
export async function proposedAnswersOf(s: AgentSession, files: PreparedWrite[], proposals: ProposeResult[]) {
  const answers = [];
  for (const [i, p] of proposals.entries()) {
    const { proposal: _record, loose_matches: _loose, ...answer } = p;
    const preview = await agentPreview(s, files[i]!.real, p.preview, files[i]!.created);
    answers.push(redactStrings(s.rules, { applied: false, policy: 'review' as const, ...answer, ...looseOf(p), actor: p.proposal.actor, preview }));
  }
  return answers;
}

/**
 * An agent's write of several files, all or nothing: a dry run previews each;
 * otherwise, if every file is under auto the group is applied and journaled at
 * once, and if any is under review the whole group becomes proposals a person
 * approves or rejects together.
 */
export async function writeFiles(s: AgentSession, files: PreparedWrite[]) {
  if (files.every((f) => f.dry)) {
    const answers = files.map((f) => f.dry!);
    return { output: { ...answers[0]!.output, files: answers.map((a) => a.output) }, audit: { ...answers[0]!.audit, reason: `${files.length} files` } };
  }
  const first = files[0]!;
  if (files.every((f) => f.mode === 'auto')) {
    const done = await (
      await import('../../review/group.ts')
    ).applyGroupJournaled(
      s.policy.root,
      s.actor,
      files.map((f) => ({ path: f.real, request: f.req })),
    );
    const answers = appliedAnswersOf(files, done);
    return {
      output: { ...answers[0]!, path: first.real, files: answers, group_id: done.group },
      audit: { path: first.real, reason: `group ${done.group}: ${files.length} files`, version_before: done.entries[0]!.version_before.etag },
    };
  }
  const group = await (
    await import('../../review/proposals.ts')
  ).proposeGroup(
    s.policy.root,
    s.actor,
    files.map((f) => proposeRequestOf(f.real, f.req)),
  );
  const answers = await proposedAnswersOf(s, files, group.proposals);
  return {
    output: {
      ...answers[0]!,
      files: answers,
      group_id: group.group,
      next: 'a person reviews the group (approved or rejected together); call proposal_status on any of its proposal ids',
    },
    audit: { path: first.real, reason: `proposal group ${group.group}: ${answers.map((a) => a.proposal_id).join(', ')}` },
  };
}

/**
 * Quotes are matched as the agent saw the file: one that is found only because it
 * runs into a redacted value (a guess at the secret) answers no_match, as a search
 * of the redacted text would; one found in what the agent saw goes on to the
 * `redacted` refusal of an edit of a secret's line.
 */
async function refuseHiddenMatches(
  s: AgentSession,
  pinned: string,
  edits: { old_text: string }[],
  hunks: { edit: number; range_before: { start_line: number; end_line: number } }[],
  looseEdits: Set<number>,
): Promise<void> {
  for (const h of hunks) {
    const r = h.range_before;
    const seen = await readByInput({ path: pinned, ranges: [{ start: r.start_line, end: Math.max(r.start_line, r.end_line) }] });
    // As a read shows these lines: with the key blocks around them found (a key body line has no marker of its own).
    const visible = answerTextOf(await redactReadAnswer(s.rules, pinned, seen)).replace(/\r\n/g, '\n');
    const quote = edits[h.edit]!.old_text.replace(/\r\n/g, '\n');
    // A quote that matched loosely (engine/write/loose-match.ts) is looked for loosely in what the agent saw too.
    const seenLoosely = () => looseLinesOf(visible).includes(looseLinesOf(quoteLines(quote).lines.join('\n')));
    if (!visible.includes(quote) && !(looseEdits.has(h.edit) && seenLoosely())) throw await visibleNoMatch(s, pinned, edits[h.edit]!.old_text, h.edit);
  }
}

/** `text`'s lines in their loose form (engine/write/loose-match.ts), joined by '\n'. */
const looseLinesOf = (text: string): string => text.split('\n').map(looseForm).join('\n');

/**
 * The no_match an agent gets for quote `edit`: its near-miss looked for in the file
 * as the agent reads it (redacted), so it is the same whether or not the quote
 * guessed a hidden value, and its similarity measures nothing hidden.
 */
async function visibleNoMatch(s: AgentSession, pinned: string, quote: string, edit: number): Promise<FolioError> {
  const facts = await factsOf(pinned);
  const miss = await nearestMiss(pinned, codecFor(facts.encoding), facts.index.bomLength, facts.index.size, quote, {
    lineView: redactedLineView(s.rules),
  });
  const n = miss.nearest ? { ...miss.nearest, as_read: true } : null;
  const where = n ? `; nearest: line ${n.line}${n.end_line !== n.line ? `-${n.end_line}` : ''} (differs: ${n.differs})` : '';
  return new FolioError('no_match', `edit ${edit}: old_text was not found in the file as you read it${where}`, {
    edit,
    nearest: n,
    near_miss_scanned_bytes: miss.scannedBytes,
    near_miss_complete: miss.complete,
    hint: n ? nearMissHint(n) : 'quote the text exactly as a read shows it',
  });
}

/** An edit by quoting of one file through the guard: policy, quotes of secrets, lines holding secrets, the preview of a dry run. */
async function prepareEdit(s: AgentSession, asked: OpInput<'edit'> & { path: string }): Promise<PreparedWrite> {
  const real = checkAccess(s.policy, asked.path, 'write');
  const mode = writeModeOf(s, asked.path, real);
  // A quote that holds a secret can only be a guess at it (the agent saw it redacted): refused, found or not.
  const secretQuote = asked.edits.findIndex((e) => secretSpansOf(e.old_text, s.rules).length > 0);
  if (secretQuote >= 0) {
    throw new FolioError('redacted', `edits[${secretQuote}].old_text quotes a secret; what you read had it redacted, and a person must edit it`, {
      path: real,
      edit: secretQuote,
    });
  }
  const checked = { allowHardlinks: s.policy.allowHardlinks };
  const req = { ...editRequestOf({ ...asked, path: real }), checked };
  // Where the quotes land, on the version now: a line holding a redacted secret is not the agent's to edit.
  const dry = await runOp('edit', { ...asked, path: real, dry_run: true }, s.actor, { ...ctxOf(s), checked }).catch(async (err: unknown) => {
    // The engine's near-miss was looked for in the real text: look again in the text as the agent reads it.
    if (!isFolioError(err) || err.code !== 'no_match' || typeof err.details.edit !== 'number') throw err;
    const at = err.details.edit;
    return withCheckedFile(
      real,
      async (pinned): Promise<never> => {
        throw await visibleNoMatch(s, pinned, asked.edits[at]!.old_text, at);
      },
      pinningOf(s),
    );
  });
  const places = dry.hunks?.map((h) => h.range_before) ?? [dry.range_before];
  const lines = places.map((r) => ({
    target: { kind: 'replace' as const, start: r.start_line, end: Math.max(r.start_line, r.end_line), units: 'lines' as const },
    content: '',
  }));
  const hidden = await withCheckedFile(
    real,
    async (pinned) => {
      const hidden = await redactedTargetLines(s.rules, pinned, { ...lines[0]!, edits: lines, preconditions: {} });
      if (hidden.length) {
        const looseEdits = new Set(dry.loose_matches?.map((l) => l.edit));
        await refuseHiddenMatches(s, pinned, asked.edits, dry.hunks ?? [{ edit: 0, range_before: dry.range_before }], looseEdits);
      }
      return hidden;
    },
    pinningOf(s),
  );
  if (hidden.length) throw redactedLines(real, hidden);
  if (!req.dryRun) return { real, mode, req, created: false };
  const answer = {
    output: { ...dry, preview: await agentPreview(s, real, dry.preview, false), policy: mode },
    audit: { path: real, version_before: dry.version_before.etag },
  };
  return { real, mode, req, created: false, dry: answer };
}

export const editTool = tool(
  'edit',
  AgentUpsertOutput,
  async (s, wire) => {
    const input = wire as AgentEditInput;
    if (input.patch !== undefined) {
      if (input.edits !== undefined) throw new FolioError('invalid_input', 'give patch or edits, not both (a patch carries its own context)', {});
      const asked = { patch: input.patch, ...(input.path !== undefined ? { path: input.path } : {}), ...(input.dry_run ? { dry_run: true } : {}) };
      return (await import('./patch-tool.ts')).patchFiles(s, asked, input.if_match);
    }
    if (!input.edits) throw new FolioError('invalid_input', 'give edits (old_text, new_text) or a patch', {});
    const asked = { ...input, edits: input.edits };
    const paths = [...new Set(asked.edits.map((e, i) => e.path ?? asked.path ?? missingPath(i)))];
    const one = (path: string) => {
      const edits = asked.edits.filter((e) => (e.path ?? asked.path) === path).map(({ path: _p, ...e }) => e);
      if (asked.if_match !== undefined && path !== asked.path) return { path, edits, ...(asked.dry_run ? { dry_run: true } : {}) };
      return { ...asked, path, edits };
    };
    if (asked.if_match !== undefined && !paths.includes(asked.path ?? ''))
      throw new FolioError('invalid_input', 'if_match guards path, which no edit changes', {});
    if (paths.length > 1) return writeFiles(s, await prepareAll(paths, (path) => prepareEdit(s, one(path))));
    const p = await prepareEdit(s, one(paths[0]!));
    return p.dry ?? routeWrite(s, p.real, p.mode, p.req, false);
  },
  ' Or patch: *** Begin Patch, SEARCH/REPLACE blocks or a unified diff. Under review (default): a proposal.',
  AgentEditInput as unknown as (typeof operations)['edit']['input'],
);

function missingPath(i: number): never {
  throw new FolioError('invalid_input', `edits[${i}] names no file: give path, or a path in each edit`, { edit: i });
}

export const proposalStatusTool = tool('proposal_status', AgentProposalStatusOutput, async (s, input) => {
  const status = await runOp('proposal_status', input, s.actor, ctxOf(s));
  // A conflict is the engine's error when the proposal was applied: its current lines and near-misses are file text.
  const conflict = status.conflict ? await redactDetails(s, status.conflict, status.path) : status.conflict;
  return {
    output: { ...status, conflict, reason: typeof status.reason === 'string' ? redact(status.reason, s.rules).text : status.reason },
    audit: { path: status.path },
  };
});

// --- delete_file / move_file: whole-file changes, routed like upserts ---

/**
 * An agent's delete or move of checked paths, as the review policy says: `auto`
 * applies and journals it, `review` stores a proposal; dry runs only preview. The
 * preview of a delete shows the file's lines, so it is redacted like a read.
 */
async function routeFileOp(s: AgentSession, mode: 'auto' | 'review', name: 'delete_file' | 'move_file', input: OpInput<'move_file'> | OpInput<'delete_file'>) {
  const call = fileOpCallOf(input, { checked: { allowHardlinks: s.policy.allowHardlinks }, createFolders: s.policy.createFolders });
  const audit = { path: call.path, reason: `${name}${call.to ? ` to ${call.to}` : ''}` };
  if (input.dry_run) {
    const r = await runOp(name, input, s.actor, { ...ctxOf(s), checked: call.checked, createFolders: s.policy.createFolders });
    return {
      output: { ...r, preview: await agentPreview(s, call.path, r.preview, false), policy: mode },
      audit: { ...audit, version_before: r.version_before.etag },
    };
  }
  if (mode === 'auto') {
    const { entry, result } = await (await import('../../review/journal.ts')).applyFileOp(s.policy.root, s.actor, call);
    // No preview: a deleted file's lines can no longer be redacted against the file.
    const { preview: _preview, ...done } = fileOpWireOf(result, entry.id);
    return {
      output: { ...done, policy: 'auto' as const },
      audit: { ...audit, version_before: result.version_before.etag, ...(result.version_after ? { version_after: result.version_after.etag } : {}) },
    };
  }
  const p = await (await import('../../review/proposals.ts')).proposeFileOp(s.policy.root, s.actor, call);
  // The agent's answer names the change as applied ones do (op), the proposal keeps file_op.
  const { proposal: _record, file_op: op, ...answer } = p;
  const preview = await agentPreview(s, call.path, p.preview, false);
  return {
    output: {
      applied: false,
      policy: 'review' as const,
      ...redactStrings(s.rules, { ...answer, op, actor: p.proposal.actor, preview }),
      next: 'a person reviews it; call proposal_status with wait_ms to wait for the decision',
    },
    audit: { ...audit, reason: `${name}: proposal ${p.proposal_id}${call.to ? ` (to ${call.to})` : ''}` },
  };
}

/** upsert target {delete_file: true}: the table's delete_file behind the guard. */
async function deleteFile(s: AgentSession, asked: OpInput<'delete_file'>) {
  const real = checkAccess(s.policy, asked.path, 'write');
  const mode = writeModeOf(s, asked.path, real);
  return routeFileOp(s, mode, 'delete_file', { ...asked, path: real });
}

/** upsert target {move_to}: the table's move_file behind the guard, under the stricter policy of the two names. */
async function moveFile(s: AgentSession, asked: OpInput<'move_file'>) {
  const real = checkAccess(s.policy, asked.path, 'write');
  const dest = checkCreate(s.policy, asked.to);
  // A file may not leave a reviewed place, or enter one, unreviewed.
  const modes = [writeModeOf(s, asked.path, real), writeModeOf(s, asked.to, dest)];
  const mode = modes.includes('review') ? 'review' : 'auto';
  return routeFileOp(s, mode, 'move_file', { ...asked, path: real, to: dest });
}

function redactedLines(path: string, lines: number[]): FolioError {
  return new FolioError('redacted', `lines ${lines.join(', ')} hold secrets that were redacted in what you read; a person must edit them`, { path, lines });
}
