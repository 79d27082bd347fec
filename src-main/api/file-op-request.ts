/**
 * delete_file / move_file for the operation table: the wire input as the engine's
 * call, run as a person's own edit (journaled, review undo takes it back) or as a
 * dry run that changes nothing. The agent guard (agent/tools.ts) checks the paths
 * and routes by review policy before it comes here for dry runs.
 */
import { resolve } from 'node:path';
import { deleteFile, moveFile, type FileOpResult } from '../engine/write/file-ops.ts';
import type { FileOpCall } from '../review/file-op-journal.ts';
import type { Actor, CallContext } from './call-context.ts';
import type { DeleteFileInput, FileOpOutput, MoveFileInput } from './schemas/file-ops.ts';

/** The engine call `input` names (paths resolved against the process's folder, as upsert's are). */
export function fileOpCallOf(input: DeleteFileInput | MoveFileInput, ctx: CallContext): FileOpCall {
  const preconditions = {
    ...(input.if_match !== undefined ? { ifMatch: input.if_match } : {}),
    ...(input.expected_sha256 !== undefined ? { expectedSha256: input.expected_sha256 } : {}),
  };
  return {
    op: 'to' in input ? 'move' : 'delete',
    path: resolve(input.path),
    ...('to' in input ? { to: resolve(input.to) } : {}),
    preconditions,
    ...(ctx.checked ? { checked: ctx.checked } : {}),
    ...(ctx.createFolders !== false ? { createParents: true } : {}),
  };
}

/** The engine's answer on the wire. */
export function fileOpWireOf(r: FileOpResult, journalId?: string): FileOpOutput {
  return {
    op: r.op === 'move' ? 'move' : 'delete',
    path: r.path,
    ...(r.to !== undefined ? { to: r.to } : {}),
    applied: r.applied,
    dry_run: r.dry_run,
    version_before: r.version_before,
    version_after: r.version_after,
    preconditions: r.preconditions,
    preview: r.preview,
    notes: r.notes,
    ...(journalId ? { journal_id: journalId } : {}),
    elapsed_ms: r.elapsed_ms,
  };
}

export async function runFileOpInput(input: DeleteFileInput | MoveFileInput, actor: Actor, ctx: CallContext, workspace: string): Promise<FileOpOutput> {
  const call = fileOpCallOf(input, ctx);
  if (input.dry_run) {
    const req = { preconditions: call.preconditions, dryRun: true, ...(call.checked ? { checked: call.checked } : {}), createParents: call.createParents };
    return fileOpWireOf(call.op === 'delete' ? await deleteFile(call.path, req) : await moveFile(call.path, call.to!, req));
  }
  // The caller's own delete or move is journaled under the caller, so review_undo takes it back.
  const { entry, result } = await (await import('../review/journal.ts')).applyOwnFileOp(workspace, actor, call);
  return fileOpWireOf(result, entry?.id);
}
