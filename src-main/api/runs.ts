/**
 * The run functions of the operations a CLI call runs most (file_info, read,
 * search, upsert, edit), apart from their schemas: the operation table
 * (operations.ts) names them, and quick-handle.ts runs them on input checked
 * without zod (input-spec.ts), so a `folio read` never loads zod.
 * Only types are imported from the table and the schemas.
 */
import type { z } from 'zod';
import { resolve as resolvePath } from 'node:path';
import type {
  EditInput,
  FileInfo,
  FileInfoInput,
  ReadInput,
  ReadOutput,
  SearchInput,
  SearchOutput,
  UpsertFileOutput,
  UpsertInput,
  UpsertOutput,
} from './schemas.ts';
import type { UpsertRequest, UpsertResult } from '../engine/write/upsert.ts';
import type { PlannedUpsert } from './upsert-request.ts';
import type { Actor, CallContext } from './operations.ts';

const workspaceOf = (ctx: CallContext) => ctx.workspace ?? process.cwd();

type Run<I extends z.ZodType, O extends z.ZodType> = (input: z.infer<I>, actor: Actor, ctx: CallContext) => Promise<z.infer<O>>;

/** An engine answer without the journal's captured bytes. */
function answerOf(r: UpsertResult): z.infer<typeof UpsertFileOutput> {
  const { removed: _removed, inserted: _inserted, ...answer } = r;
  return answer;
}

/**
 * A person's own upsert or edit: of one file, or of several all or nothing
 * (answered as the first file, with every file's answer in files). Journaled under
 * the caller, so review_undo (`folio review undo FILE`) takes it back.
 */
async function writePlans(plans: PlannedUpsert[], actor: Actor, ctx: CallContext, extra: Partial<UpsertRequest>): Promise<z.infer<typeof UpsertOutput>> {
  const files = plans.map((p) => ({ path: p.path, request: { ...p.request, ...extra } }));
  if (files.length === 1) {
    const { path, request } = files[0]!;
    if (request.dryRun) return answerOf(await (await import('../engine/write/upsert.ts')).upsert(path, request));
    if (ctx.deferJournal) {
      // A process that exits after this call: journal a record, without loading the review document.
      const done = await (await import('../review/applied-log.ts')).applyOwnEditDeferred(workspaceOf(ctx), actor, resolvePath(path), request);
      if (done) {
        done.upsert.notes.push(`journaled as ${done.entryId}: review undo takes it back`);
        return answerOf(done.upsert);
      }
    }
    const { applyOwnEdit } = await import('../review/journal.ts');
    return answerOf((await applyOwnEdit(workspaceOf(ctx), actor, resolvePath(path), request)).upsert);
  }
  if (files[0]!.request.dryRun) {
    const { upsertGroup } = await import('../engine/write/upsert-group.ts');
    const answers = (await upsertGroup(files)).map(answerOf);
    return { ...answers[0]!, files: answers };
  }
  const { applyGroupJournaled } = await import('../review/group.ts');
  const done = await applyGroupJournaled(
    workspaceOf(ctx),
    actor,
    files.map((f) => ({ path: resolvePath(f.path), request: f.request })),
  );
  const answers = done.upserts.map(answerOf);
  return { ...answers[0]!, files: answers, group_id: done.group };
}

export const runs: {
  file_info: Run<typeof FileInfoInput, typeof FileInfo>;
  read: Run<typeof ReadInput, typeof ReadOutput>;
  search: Run<typeof SearchInput, typeof SearchOutput>;
  upsert: Run<typeof UpsertInput, typeof UpsertOutput>;
  edit: Run<typeof EditInput, typeof UpsertOutput>;
} = {
  file_info: async (input, _actor, ctx) => {
    const [{ fileInfo }, { fileInfoWireOf }] = await Promise.all([import('../engine/read/file-info.ts'), import('./file-info-wire.ts')]);
    return fileInfoWireOf(await fileInfo(input.path, ctx));
  },
  read: async (input, _actor, ctx) => (await import('./read-address.ts')).readByInput(input, ctx.readCaps),
  search: async (input, _actor, ctx) => {
    const [{ searchPath }, { toSearchOptions }, { searchWireOf }] = await Promise.all([
      import('../engine/search/search-path.ts'),
      import('./search-request.ts'),
      import('./search-wire.ts'),
    ]);
    return searchWireOf(await searchPath(input.path, { ...toSearchOptions(input), signal: ctx.signal, onProgress: ctx.onProgress }));
  },
  upsert: async (input, actor, ctx) =>
    writePlans(await (await import('./upsert-request.ts')).upsertPlansOf(input), actor, ctx, {
      ...(ctx.checked ? { checked: ctx.checked } : {}),
      ...(ctx.createFolders !== false ? { createParents: true } : {}),
    }),
  edit: async (input, actor, ctx) =>
    writePlans((await import('./upsert-request.ts')).editPlansOf(input), actor, ctx, ctx.checked ? { checked: ctx.checked } : {}),
};
