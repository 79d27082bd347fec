/**
 * The table's patch (a person's own, from the CLI or the app): the patch as upserts
 * and deletes and moves (patch-request.ts), applied all or none as one journal
 * group under the caller, so `review undo` takes the whole patch back. Paths are
 * relative to the process's folder, as every table path is.
 */
import { resolve as resolvePath } from 'node:path';
import { FolioError } from '../engine/errors.ts';
import type { FileOpCall } from '../review/file-op-journal.ts';
import { fileOpWireOf } from './file-op-request.ts';
import { checkInputPaths, isRemoteLocator } from './input-paths.ts';
import { patchWiresOf, readPatchTarget, type PatchFileOp } from './patch-request.ts';
import { answerOf, writePlans } from './runs.ts';
import type { PatchInput, PatchOutput } from './schemas/patch.ts';
import { upsertPlansOf } from './upsert-request.ts';
import { workspaceOf, type Actor, type CallContext } from './call-context.ts';

/** The engine's call of a patch's delete or move, guarded by the version the patch was placed on. */
export function patchFileOpCallOf(
  op: PatchFileOp,
  ifMatch: string,
  pathOf: (p: string) => string,
  opts: { checked?: { allowHardlinks: boolean }; createParents?: boolean },
): FileOpCall {
  return {
    op: op.op,
    path: pathOf(op.path),
    ...(op.to !== undefined ? { to: pathOf(op.to) } : {}),
    preconditions: { ifMatch },
    ...(opts.checked ? { checked: opts.checked } : {}),
    ...(opts.createParents ? { createParents: true } : {}),
  };
}

export async function runPatch(input: PatchInput, actor: Actor, ctx: CallContext): Promise<PatchOutput> {
  const placed = await patchWiresOf(input, async (path, withText) => {
    checkInputPaths('patch', { path });
    if (isRemoteLocator(path)) throw new FolioError('invalid_input', `${path}: a patch edits local files; edit a remote value with upsert or edit`, { path });
    return readPatchTarget(resolvePath(path), withText);
  });
  for (const w of placed.wires) checkInputPaths('patch', w);
  for (const o of placed.ops) if (o.to !== undefined) checkInputPaths('patch', { path: o.to });
  const extra = { ...(ctx.checked ? { checked: ctx.checked } : {}), ...(ctx.createFolders !== false ? { createParents: true } : {}) };
  const plans = (await Promise.all(placed.wires.map((w) => upsertPlansOf(w)))).flat();
  const base = { format: placed.format, notes: placed.notes };
  if (placed.ops.length === 0) {
    const r = await writePlans(plans, actor, ctx, extra);
    return { ...r, ...base, notes: [...r.notes, ...placed.notes] };
  }
  // The person's patch deletes or moves what is there now: the version it was placed on.
  const calls = placed.ops.map((o) => patchFileOpCallOf(o, o.etag, resolvePath, extra));
  const files = plans.map((p) => ({ path: resolvePath(p.path), request: { ...p.request, ...extra } }));
  if (input.dry_run) {
    const [{ upsertGroup }, { dryRunFileOp }] = await Promise.all([import('../engine/write/upsert-group.ts'), import('../review/file-op-journal.ts')]);
    const answers = files.length ? (await upsertGroup(files)).map(answerOf) : [];
    const fileOps: PatchOutput['file_ops'] = [];
    for (const c of calls) fileOps.push(fileOpWireOf(await dryRunFileOp(c)));
    return {
      ...(answers[0] ?? {}),
      ...base,
      applied: false,
      dry_run: true,
      files: answers,
      file_ops: fileOps,
      notes: [...(answers[0]?.notes ?? []), ...placed.notes],
    };
  }
  const { applyMixedGroupJournaled } = await import('../review/group.ts');
  const done = await applyMixedGroupJournaled(
    workspaceOf(ctx),
    actor,
    files,
    calls.map((call, k) => ({ call, ...(placed.ops[k]!.after !== undefined ? { after: placed.ops[k]!.after } : {}) })),
  );
  const answers = done.upserts.map(answerOf);
  const fileOps = done.fileOps.map((r, k) => fileOpWireOf(r, done.entries[files.length + k]?.id));
  return {
    ...(answers[0] ?? {}),
    ...base,
    applied: true,
    dry_run: false,
    files: answers,
    file_ops: fileOps,
    group_id: done.group,
    notes: [...(answers[0]?.notes ?? []), ...placed.notes],
  };
}
