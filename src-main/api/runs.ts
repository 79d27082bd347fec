/**
 * The run functions of the operations a CLI call runs most (file_info, read,
 * search, upsert, edit), apart from their schemas: the operation table
 * (operations.ts) names them, and quick-handle.ts runs them on input checked
 * without zod (input-spec.ts), so a `folio read` never loads zod.
 * Only types are imported from the schemas.
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
import type { PatchInput, PatchOutput } from './schemas/patch.ts';
import type { UpsertRequest, UpsertResult } from '../engine/write/upsert.ts';
import type { PlannedUpsert } from './upsert-request.ts';
import { remoteOps, workspaceOf, type Actor, type CallContext } from './call-context.ts';
import { isRemoteLocator } from './input-paths.ts';
import { withReadFacts } from './read-facts.ts';

/** Fields a head window may carry besides its address (start_byte 0 and max_bytes): none changes which bytes it needs. */
const HEAD_WINDOW_FIELDS = new Set(['path', 'start_byte', 'max_bytes', 'hashlines', 'invalid_utf8']);

/** A byte window at offset 0 (the app's first window), nothing else asked. */
export function isHeadWindow(input: ReadInput): input is ReadInput & { max_bytes: number } {
  return input.start_byte === 0 && input.max_bytes !== undefined && Object.entries(input).every(([k, val]) => val === undefined || HEAD_WINDOW_FIELDS.has(k));
}

type Run<I extends z.ZodType, O extends z.ZodType> = (input: z.infer<I>, actor: Actor, ctx: CallContext) => Promise<z.infer<O>>;

/** An engine answer without the journal's captured bytes. */
export function answerOf(r: UpsertResult): z.infer<typeof UpsertFileOutput> {
  const { removed: _removed, inserted: _inserted, ...answer } = r;
  return answer;
}

/**
 * A person's own upsert or edit: of one file, or of several all or nothing
 * (answered as the first file, with every file's answer in files). Journaled under
 * the caller, so review_undo (`folio review undo FILE`) takes it back.
 */
export async function writePlans(plans: PlannedUpsert[], actor: Actor, ctx: CallContext, extra: Partial<UpsertRequest>): Promise<z.infer<typeof UpsertOutput>> {
  const files = plans.map((p) => ({ path: p.path, request: { ...p.request, ...extra } }));
  if (files.some((f) => isRemoteLocator(f.path))) return writeRemote(files, actor, ctx);
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

/** A write of a remote locator (pg://, az://, s3://): one value per call. */
async function writeRemote(files: { path: string; request: UpsertRequest }[], actor: Actor, ctx: CallContext): Promise<z.infer<typeof UpsertOutput>> {
  if (files.length !== 1) {
    const { FolioError } = await import('../engine/errors.ts');
    throw new FolioError('invalid_input', 'a remote value (pg://, az://, s3://) is edited one per call, not in a group with others', {
      paths: files.map((f) => f.path),
    });
  }
  const { configureBackendsFor, upsertRemoteValue } = await import('./remote-ops.ts');
  configureBackendsFor(workspaceOf(ctx));
  const { checked: _checked, createParents: _parents, ...request } = files[0]!.request;
  if (request.dryRun) return answerOf(await upsertRemoteValue(files[0]!.path, request));
  // Journaled like a file's edit, so review undo takes it back (by the same splice).
  const { applyOwnEdit } = await import('../review/journal.ts');
  return answerOf((await applyOwnEdit(workspaceOf(ctx), actor, files[0]!.path, request)).upsert);
}

/** The code a `read` runs (loaded on its first call, or ahead by api/agent-door.ts prewarmAgentDoor). */
export const readCode = () => import('./read-address.ts');
/** The code a `search` runs (loaded on its first call, or ahead by prewarmAgentDoor). */
export const searchCode = () => Promise.all([import('../engine/search/search-path.ts'), import('./search-request.ts'), import('./search-wire.ts')]);

/** A read's answer, before its source and content type (runs.read). */
const readAnswer: Run<typeof ReadInput, typeof ReadOutput> = async (input, _actor, ctx) => {
  const { readByInput } = await readCode();
  if (!isRemoteLocator(input.path)) return readByInput(input, ctx.readCaps);
  const ops = await remoteOps(ctx);
  if (input.json_path !== undefined && input.path.startsWith('pg://')) {
    // A jsonb value's JSON read runs in PostgreSQL: the value is not opened (indexed) for it.
    const { answer } = await (await import('./read-address.ts')).readJsonb(input, ctx.readCaps);
    if (answer) return answer;
  }
  if (isHeadWindow(input)) {
    // The app's first window of a value never indexed: served from its first bytes while the index streams.
    const head = await ops.readRemoteHead(input.path, input.max_bytes, (path) => readByInput({ ...input, path }, ctx.readCaps));
    if (head) return head;
  }
  return ops.onRemotePath(input.path, (path) => readByInput({ ...input, path }, ctx.readCaps));
};

export const runs: {
  file_info: Run<typeof FileInfoInput, typeof FileInfo>;
  read: Run<typeof ReadInput, typeof ReadOutput>;
  search: Run<typeof SearchInput, typeof SearchOutput>;
  upsert: Run<typeof UpsertInput, typeof UpsertOutput>;
  edit: Run<typeof EditInput, typeof UpsertOutput>;
  patch: Run<typeof PatchInput, typeof PatchOutput>;
} = {
  file_info: async (input, _actor, ctx) => {
    if (isRemoteLocator(input.path)) return (await remoteOps(ctx)).remoteFileInfo(input.path, ctx.onProgress);
    const [{ fileInfo }, { fileInfoWireOf }] = await Promise.all([import('../engine/read/file-info.ts'), import('./file-info-wire.ts')]);
    return fileInfoWireOf(await fileInfo(input.path, ctx));
  },
  read: async (input, actor, ctx) => withReadFacts(await readAnswer(input, actor, ctx), input.path),
  search: async (input, _actor, ctx) => {
    const [{ searchPath }, { toSearchOptions }, { searchWireOf }] = await searchCode();
    const opts = { ...toSearchOptions(input), signal: ctx.signal, onProgress: ctx.onProgress };
    if (isRemoteLocator(input.path)) {
      return (await remoteOps(ctx)).onRemotePath(input.path, async (path) => searchWireOf(await searchPath(path, opts)));
    }
    return searchWireOf(await searchPath(input.path, opts));
  },
  upsert: async (input, actor, ctx) => {
    const write = async (i: typeof input) =>
      writePlans(await (await import('./upsert-request.ts')).upsertPlansOf(i), actor, ctx, {
        ...(ctx.checked ? { checked: ctx.checked } : {}),
        ...(ctx.createFolders !== false ? { createParents: true } : {}),
      });
    // Sections and JSON paths of a remote value resolve over its bytes (created values have none yet).
    if (!isRemoteLocator(input.path) || input.if_none_match === '*') return write(input);
    return (await remoteOps(ctx)).onRemotePath(input.path, (path) => write({ ...input, path }));
  },
  edit: async (input, actor, ctx) =>
    writePlans((await import('./upsert-request.ts')).editPlansOf(input), actor, ctx, ctx.checked ? { checked: ctx.checked } : {}),
  patch: async (input, actor, ctx) => (await import('./patch-run.ts')).runPatch(input, actor, ctx),
};
