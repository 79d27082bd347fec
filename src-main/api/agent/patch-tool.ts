/**
 * The table's patch behind the agent guard (edit {patch}, which keeps the tool list
 * short): each file's hunks are placed on the file as checked and pinned
 * (api/patch-request.ts); the upserts they make pass the upsert guard, and the
 * deletes and moves the guard of upsert's delete_file and move_to targets; all of
 * it is one write, all or none, routed by the review policy like any other.
 */
import { FolioError, isFolioError } from '../../engine/errors.ts';
import type { FileOpCall } from '../../review/file-op-journal.ts';
import { isRemoteLocator } from '../input-paths.ts';
import type { OpInput } from '../handle.ts';
import type { PatchFileOp } from '../patch-request.ts';
import { withCheckedFile, pinningOf } from './checked-file.ts';
import { checkAccess, checkCreate } from './policy.ts';
import { redactStrings } from './redact.ts';
import { secretSpansOf } from './secret-spans.ts';
import type { AgentSession } from './tool-kit.ts';
import {
  agentPreview,
  appliedAnswersOf,
  prepareAll,
  prepareUpsert,
  proposedAnswersOf,
  proposeRequestOf,
  routeWrite,
  writeFiles,
  writeModeOf,
  type PreparedWrite,
} from './write-tools.ts';

/**
 * The patch operation behind the guard (edit {patch}, which keeps the tool list
 * short): each file's hunks are placed on the file as checked and pinned
 * (api/patch-request.ts), and the upserts they make pass the upsert guard, all or
 * none. A patch holding a secret can only be a guess at it: refused, as a quote is.
 */
export async function patchFiles(s: AgentSession, asked: OpInput<'patch'>, ifMatch?: string) {
  if (secretSpansOf(asked.patch, s.rules).length > 0) {
    throw new FolioError('redacted', 'the patch quotes a secret; what you read had it redacted, and a person must edit it', {});
  }
  const { patchWiresOf, readPatchTarget } = await import('../patch-request.ts');
  const placed = await patchWiresOf(
    asked,
    async (path, withText) => {
      if (isRemoteLocator(path)) throw new FolioError('invalid_input', `${path}: a patch edits local files; edit a remote value with upsert or edit`, { path });
      let real: string;
      try {
        real = checkAccess(s.policy, path, 'write');
      } catch (err) {
        if (isFolioError(err) && err.code === 'not_found') return null;
        throw err;
      }
      return withCheckedFile(real, (pinned) => readPatchTarget(pinned, withText), pinningOf(s));
    },
    false,
  );
  const files = await prepareAll(placed.wires, (w) => prepareUpsert(s, w));
  const done = placed.ops.length
    ? await writePatchGroup(
        s,
        files,
        await Promise.all(placed.ops.map((o) => preparePatchFileOp(s, o, asked.path === o.path ? ifMatch : undefined))),
        Boolean(asked.dry_run),
      )
    : files.length > 1
      ? await writeFiles(s, files)
      : (files[0]!.dry ?? (await routeWrite(s, files[0]!.real, files[0]!.mode, files[0]!.req, files[0]!.created)));
  if (!placed.notes.length) return done;
  const had = (done.output as { notes?: string[] }).notes ?? [];
  return { ...done, output: { ...done.output, notes: [...had, ...placed.notes] } };
}

interface PreparedFileOp {
  call: FileOpCall;
  mode: 'auto' | 'review';
  after?: number;
}

/**
 * A patch's delete or move through the guard (as upsert's delete_file and move_to
 * targets): both names checked, the stricter review policy of the two. Its
 * precondition: the version whose text the patch checked (a diff's deleted lines,
 * the hunks of a moved file), else the agent's if_match for it (path + if_match),
 * else, under review only, the version when proposed (the person sees it).
 */
async function preparePatchFileOp(s: AgentSession, o: PatchFileOp, ifMatch: string | undefined): Promise<PreparedFileOp> {
  const real = checkAccess(s.policy, o.path, 'write');
  const dest = o.to !== undefined ? checkCreate(s.policy, o.to) : undefined;
  const modes = [writeModeOf(s, o.path, real), ...(dest !== undefined ? [writeModeOf(s, o.to!, dest)] : [])];
  const mode = modes.includes('review') ? 'review' : 'auto';
  if (!o.checked && ifMatch === undefined && mode === 'auto') {
    throw new FolioError(
      'precondition_required',
      `${o.op === 'delete' ? 'Delete File' : 'a move of'} ${o.path}: the patch does not show its text; give path: "${o.path}" and if_match (its etag from read, list or search)`,
      { path: o.path },
    );
  }
  const { patchFileOpCallOf } = await import('../patch-run.ts');
  const call = patchFileOpCallOf(o, o.checked ? o.etag : (ifMatch ?? o.etag), (p) => (p === o.path ? real : dest!), {
    checked: { allowHardlinks: s.policy.allowHardlinks },
    createParents: s.policy.createFolders,
  });
  return { call, mode, ...(o.after !== undefined ? { after: o.after } : {}) };
}

/**
 * A patch that deletes or moves files as well: the files' writes and the deletes
 * and moves as one group (review/group.ts applyMixedGroupLocked), all auto or all
 * proposals of one group; a dry run previews each.
 */
async function writePatchGroup(s: AgentSession, files: PreparedWrite[], ops: PreparedFileOp[], dryRun: boolean) {
  const first = files[0]?.real ?? ops[0]!.call.path;
  const mode = [...files, ...ops].every((f) => f.mode === 'auto') ? 'auto' : 'review';
  const opPreview = async (path: string, preview: string) => agentPreview(s, path, preview, false);
  const { fileOpWireOf } = await import('../file-op-request.ts');
  if (dryRun) {
    const { dryRunFileOp } = await import('../../review/file-op-journal.ts');
    const answers = files.map((f) => f.dry!.output);
    const fileOps = [];
    for (const o of ops) {
      const r = fileOpWireOf(await dryRunFileOp(o.call));
      fileOps.push({ ...r, preview: await opPreview(o.call.path, r.preview), policy: o.mode });
    }
    return {
      output: { ...(answers[0] ?? fileOps[0]!), path: first, applied: false, policy: mode, files: answers, file_ops: fileOps },
      audit: { path: first, reason: `patch dry run: ${files.length} files, ${ops.length} deletes/moves` },
    };
  }
  if (mode === 'auto') {
    const done = await (
      await import('../../review/group.ts')
    ).applyMixedGroupJournaled(
      s.policy.root,
      s.actor,
      files.map((f) => ({ path: f.real, request: f.req })),
      ops.map((o) => ({ call: o.call, ...(o.after !== undefined ? { after: o.after } : {}) })),
    );
    const answers = appliedAnswersOf(files, done);
    // No previews: a deleted file's lines can no longer be redacted against the file.
    const fileOps = done.fileOps.map((r, k) => {
      const { preview: _preview, ...wire } = fileOpWireOf(r, done.entries[files.length + k]?.id);
      return { ...wire, policy: 'auto' as const };
    });
    return {
      output: { ...(answers[0] ?? fileOps[0]!), path: first, applied: true, policy: 'auto' as const, files: answers, file_ops: fileOps, group_id: done.group },
      audit: { path: first, reason: `group ${done.group}: ${files.length} files, ${ops.length} deletes/moves` },
    };
  }
  const group = await (
    await import('../../review/proposals.ts')
  ).proposeGroup(
    s.policy.root,
    s.actor,
    files.map((f) => proposeRequestOf(f.real, f.req)),
    ops.map((o) => o.call),
  );
  const answers = await proposedAnswersOf(s, files, group.proposals);
  const fileOps = [];
  for (const [k, p] of group.fileOps.entries()) {
    const { proposal: _record, file_op: op, ...answer } = p;
    const preview = await opPreview(ops[k]!.call.path, p.preview);
    fileOps.push(redactStrings(s.rules, { applied: false, policy: 'review' as const, ...answer, op, actor: p.proposal.actor, preview }));
  }
  const ids = [...answers, ...fileOps].map((a) => a.proposal_id);
  return {
    output: {
      ...(answers[0] ?? fileOps[0]!),
      path: first,
      applied: false,
      policy: 'review' as const,
      files: answers,
      file_ops: fileOps,
      group_id: group.group,
      next: 'a person reviews the group (approved or rejected together); call proposal_status on any of its proposal ids',
    },
    audit: { path: first, reason: `proposal group ${group.group}: ${ids.join(', ')}` },
  };
}
