/**
 * The operation table: one entry per operation, each a zod input/output schema,
 * a description (used verbatim by MCP tools, CLI help and API docs) and one run
 * function. Doors derive their routes, channels and tools from this table.
 */
import type { z } from 'zod';
import { resolve as resolvePath } from 'node:path';
import {
  AppOpenInput,
  AppOpenOutput,
  FileInfo,
  FileInfoInput,
  ReadInput,
  ReadOutput,
  SearchInput,
  SearchOutput,
  UpsertInput,
  EditInput,
  UpsertFileOutput,
  UpsertOutput,
  AuditInput,
  AuditOutput,
  OutlineInput,
  OutlineOutput,
  RecentAddInput,
  RecentListInput,
  RecentOutput,
  ReviewApproveInput,
  ReviewApproveOutput,
  ReviewBatchInput,
  ReviewBatchOutput,
  ReviewHistoryInput,
  ReviewHistoryOutput,
  ReviewIdInput,
  ReviewListInput,
  ReviewListOutput,
  ReviewRejectInput,
  ReviewRejectOutput,
  ReviewShowOutput,
  ReviewStepInput,
  ReviewStepOutput,
  // Reading and finding across the workspace (issue 14): directory search and list.
  ListInput,
  ListOutput,
  SearchTreeOutput,
} from './schemas.ts';
import { ProposalStatusInput, ProposalStatusOutput } from './schemas/agent.ts';
import { DeleteFileInput, FileOpOutput, MoveFileInput } from './schemas/file-ops.ts';
import { FolioError } from '../engine/errors.ts';
import type { UpsertRequest, UpsertResult } from '../engine/write/upsert.ts';
import type { PlannedUpsert } from './upsert-request.ts';
import type { StepOptions, StepResult } from '../review/index.ts';

/*
 * Each run loads what it needs when it first runs (dynamic import): a process
 * that only reads never loads the review layer (Automerge), markdown-it, the
 * write path or the directory walk. The CLI pays for module loading on every
 * call (docs/BENCHMARKS.md, "Whole process"), and the bundle splits on these
 * imports (scripts/build-cli.mjs).
 */
const review = () => import('../review/index.ts');

/**
 * Loads what the first reads of a long-lived server run (the operations load their
 * code on first use, for the CLI's sake): the app's first window is read within a
 * budget of tens of milliseconds, which module loading alone would spend.
 */
export async function preloadReads(): Promise<void> {
  const [, , , sniff] = await Promise.all([
    import('./read-address.ts'),
    import('../engine/read/file-info.ts'),
    import('./file-info-wire.ts'),
    import('../engine/text/binary-sniff.ts'),
  ]);
  await sniff.preloadSniffer();
}

export interface Actor {
  kind: 'human' | 'agent';
  name: string;
}

/** Per-call context a door may pass: progress of long work, and cancellation. */
export interface CallContext {
  onProgress?: (p: { bytesDone: number; totalBytes: number }) => void;
  signal?: AbortSignal;
  /** The workspace root the door serves (review state lives in <workspace>/.folio); default process.cwd(). */
  workspace?: string;
  /** Caps on what one read returns (the agent guard passes the workspace's); default the engine's. */
  readCaps?: { maxBytes?: number; maxFullBytes?: number };
  /** Writes go only to the path as the caller checked it (the agent guard: engine/write/write-target.ts). */
  checked?: { allowHardlinks: boolean };
  /** An upsert with if_none_match may create missing folders (default true: a person's own call; the agent guard passes its policy). */
  createFolders?: boolean;
  /**
   * Directory walks (search_tree, list): which entries the caller may see (the agent
   * guard: deny globs), and files opened as the walk saw them, hard links refused
   * unless allowed. Entries it refuses are skipped silently.
   */
  walk?: { admit: (abs: string, rel: string, kind: 'file' | 'dir') => boolean; refuseLinks: boolean };
}

const workspaceOf = (ctx: CallContext) => ctx.workspace ?? process.cwd();

/** A remote locator's operations, connected as the workspace config says (remote-ops.ts). */
async function remoteOps(ctx: CallContext) {
  const ops = await import('./remote-ops.ts');
  ops.configureBackendsFor(workspaceOf(ctx));
  return ops;
}
/** pg://, az://, s3:// (engine/backend/locator.ts); anything else is a local path. */
const isRemoteLocator = (path: string) => /^(pg|az|s3):\/\//.test(path);

/** The outline answer: headings up to max_level, and how long it took. */
export async function outlineView(input: z.infer<typeof OutlineInput>): Promise<z.infer<typeof OutlineOutput>> {
  const t0 = performance.now();
  const [{ outlineOf }, { outlineWireOf }] = await Promise.all([import('../engine/address/markdown-outline.ts'), import('./outline-wire.ts')]);
  const o = await outlineOf(input.path);
  const headings = input.max_level === undefined ? o.headings : o.headings.filter((h) => h.level <= input.max_level!);
  return outlineWireOf(o, headings, performance.now() - t0);
}

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
  if (files.some((f) => isRemoteLocator(f.path))) return writeRemote(files, actor, ctx);
  if (files.length === 1) {
    const { path, request } = files[0]!;
    if (request.dryRun) return answerOf(await (await import('../engine/write/upsert.ts')).upsert(path, request));
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

async function stepOutput(s: StepResult) {
  const { entryView } = await review();
  return {
    action: s.action,
    entry: entryView(s.entry),
    version_before: s.upsert.version_before,
    version_after: s.upsert.version_after,
    preview: s.upsert.preview,
    ...(s.group ? { group: s.group.map(entryView) } : {}),
  };
}

export interface Operation<I extends z.ZodType, O extends z.ZodType> {
  input: I;
  output: O;
  description: string;
  run(input: z.infer<I>, actor: Actor, ctx: CallContext): Promise<z.infer<O>>;
}

function op<I extends z.ZodType, O extends z.ZodType>(o: Operation<I, O>): Operation<I, O> {
  return o;
}

export const operations = {
  file_info: op({
    input: FileInfoInput,
    output: FileInfo,
    description: 'Size, lines, encoding, newlines, BOM and binary verdict of a file, with its version.',
    run: async (input, _actor, ctx) => {
      if (isRemoteLocator(input.path)) return (await remoteOps(ctx)).remoteFileInfo(input.path, ctx.onProgress);
      const [{ fileInfo }, { fileInfoWireOf }] = await Promise.all([import('../engine/read/file-info.ts'), import('./file-info-wire.ts')]);
      return fileInfoWireOf(await fileInfo(input.path, ctx));
    },
  }),
  read: op({
    input: ReadInput,
    output: ReadOutput,
    description: "Read any window of any file; several ranges per call. version.etag is upsert's if_match; hashlines gives anchors.",
    run: async (input, _actor, ctx) => {
      const { readByInput } = await import('./read-address.ts');
      if (!isRemoteLocator(input.path)) return readByInput(input, ctx.readCaps);
      return (await remoteOps(ctx)).onRemotePath(input.path, (path) => readByInput({ ...input, path }, ctx.readCaps));
    },
  }),
  outline: op({
    input: OutlineInput,
    output: OutlineOutput,
    description: 'Markdown headings: level, path ("A > B") for section reads and upserts, lines, sha256 (expected_section_sha256).',
    run: async (input, _actor, ctx) =>
      isRemoteLocator(input.path) ? (await remoteOps(ctx)).onRemotePath(input.path, (path) => outlineView({ ...input, path })) : outlineView(input),
  }),
  search: op({
    input: SearchInput,
    output: SearchOutput,
    description: 'Regex search of a file: matching lines with number, byte offset, text. Truncated: continue at start_byte = next_start_byte.',
    run: async (input, _actor, ctx) => {
      const [{ searchPath }, { toSearchOptions }, { searchWireOf }] = await Promise.all([
        import('../engine/search/search-path.ts'),
        import('./search-request.ts'),
        import('./search-wire.ts'),
      ]);
      const opts = { ...toSearchOptions(input), signal: ctx.signal, onProgress: ctx.onProgress };
      if (isRemoteLocator(input.path)) {
        return (await remoteOps(ctx)).onRemotePath(input.path, async (path, hooks) => searchWireOf(await searchPath(path, { ...opts, ...hooks })));
      }
      return searchWireOf(await searchPath(input.path, opts));
    },
  }),
  // --- Reading and finding across the workspace (issue 14) ---
  search_tree: op({
    input: SearchInput,
    output: SearchTreeOutput,
    description:
      'Regex search of every file under a directory (path), or of those matching glob ("src/**/*.ts", relative to path), like rg: .gitignore files honoured, ' +
      '.git, symlinks and binary files skipped. One result per matching line with its file path (relative to path), line, byte offset, column and text; ' +
      'context: N adds lines around each match; files lists per-file counts. In walk order (depth first, names sorted), capped by max: when truncated, ' +
      'pass next_cursor as cursor to continue. count_only counts matching lines per file over the whole tree.',
    run: async (input, _actor, ctx) => {
      const [{ searchTree }, { realDirectoryOf, searchTreeWireOf, toTreeSearchOptions }] = await Promise.all([
        import('../engine/search/tree-search.ts'),
        import('./tree-wire.ts'),
      ]);
      const root = realDirectoryOf(workspaceOf(ctx), input.path);
      const opts = { ...toTreeSearchOptions(input), signal: ctx.signal };
      const walk = ctx.walk ? { admit: ctx.walk.admit, pinned: { refuseLinks: ctx.walk.refuseLinks } } : {};
      return searchTreeWireOf(await searchTree(root, { ...opts, ...walk }), input.glob);
    },
  }),
  list: op({
    input: ListInput,
    output: ListOutput,
    description: 'Files and folders under a directory (or matching glob): path, kind, size, mtime, lines if indexed. .gitignore honoured.',
    run: async (input, _actor, ctx) => {
      const [{ listFiles }, { listWireOf, realDirectoryOf }] = await Promise.all([import('../engine/read/list-files.ts'), import('./tree-wire.ts')]);
      return listWireOf(
        await listFiles(realDirectoryOf(workspaceOf(ctx), input.path), {
          glob: input.glob,
          depth: input.depth,
          max: input.max,
          ...(ctx.walk ? { admit: ctx.walk.admit, refuseLinks: ctx.walk.refuseLinks } : {}),
        }),
      );
    },
  }),
  // --- end issue 14 ---
  upsert: op({
    input: UpsertInput,
    output: UpsertOutput,
    description:
      "Edit a file atomically if unchanged: if_match (your read's etag) or anchors (from a hashlines read). " +
      'precondition_failed shows the current text: retry from it.',
    run: async (input, actor, ctx) => {
      const write = async (i: typeof input) =>
        writePlans(await (await import('./upsert-request.ts')).upsertPlansOf(i), actor, ctx, {
          ...(ctx.checked ? { checked: ctx.checked } : {}),
          ...(ctx.createFolders !== false ? { createParents: true } : {}),
        });
      // Sections and JSON paths of a remote value resolve over its bytes (created values have none yet).
      if (!isRemoteLocator(input.path) || input.if_none_match === '*') return write(input);
      return (await remoteOps(ctx)).onRemotePath(input.path, (path) => write({ ...input, path }));
    },
  }),
  edit: op({
    input: EditInput,
    output: UpsertOutput,
    description:
      'Replace quoted text: each old_text occurs once (replace_all: at least once); all or none. The quote is the precondition; ' +
      'errors show near misses. Use upsert for line positions, appends and new files.',
    run: async (input, actor, ctx) =>
      writePlans((await import('./upsert-request.ts')).editPlansOf(input), actor, ctx, ctx.checked ? { checked: ctx.checked } : {}),
  }),
  // --- whole-file delete and move (file-op-request.ts) ---
  delete_file: op({
    input: DeleteFileInput,
    output: FileOpOutput,
    description:
      'Delete a file, only if it is still the version you read: send if_match (the etag of your read) or expected_sha256. ' +
      'Journaled: review_undo puts it back with its bytes and mode (files up to 64 MiB). dry_run previews what would go.',
    run: async (input, actor, ctx) => (await import('./file-op-request.ts')).runFileOpInput(input, actor, ctx, workspaceOf(ctx)),
  }),
  move_file: op({
    input: MoveFileInput,
    output: FileOpOutput,
    description:
      'Move (rename) a file to `to`, only if it is still the version you read (if_match or expected_sha256). Never replaces a file: ' +
      'if `to` exists, precondition_failed with failed ["destination_exists"]. Journaled: review_undo moves it back. dry_run checks without moving.',
    run: async (input, actor, ctx) => (await import('./file-op-request.ts')).runFileOpInput(input, actor, ctx, workspaceOf(ctx)),
  }),
  proposal_status: op({
    input: ProposalStatusInput,
    output: ProposalStatusOutput,
    description: 'Decision on a proposal: pending, applied, rejected (reason) or conflict (re-read, propose again).',
    run: async (input, _actor, ctx) => (await import('./agent/proposal-status.ts')).proposalStatus(workspaceOf(ctx), input.proposal_id, input.wait_ms),
  }),
  review_list: op({
    input: ReviewListInput,
    output: ReviewListOutput,
    description: 'Proposals of the review queue (agent edits waiting for a decision, and decided ones), oldest first; filter by status and/or path.',
    run: async (input, _actor, ctx) => {
      const root = workspaceOf(ctx);
      const { listProposals, proposalView } = await review();
      return { proposals: listProposals(root, input).map((p) => proposalView(root, p)) };
    },
  }),
  review_show: op({
    input: ReviewIdInput,
    output: ReviewShowOutput,
    description: 'One proposal with its content and preview, and its journal entry once applied.',
    run: async (input, _actor, ctx) => {
      const root = workspaceOf(ctx);
      const { showProposal, proposalView, entryView } = await review();
      const { proposal, entry } = showProposal(root, input.id);
      return { proposal: proposalView(root, proposal, { withContent: true }), entry: entry ? entryView(entry) : null };
    },
  }),
  review_approve: op({
    input: ReviewApproveInput,
    output: ReviewApproveOutput,
    description:
      'Apply a pending proposal with its own preconditions (content: edit-then-approve with your text). A stale proposal becomes "conflict": ' +
      'precondition_failed with the details, nothing written.',
    run: async (input, actor, ctx) => {
      const root = workspaceOf(ctx);
      const { approve, proposalView, entryView } = await review();
      const r = await approve(root, actor, input.id, {
        ...(input.content === undefined ? {} : { content: input.content }),
        ...(input.hunks ? { hunks: input.hunks } : {}),
        ...(input.current ? { current: true } : {}),
        ...(input.if_match === undefined ? {} : { ifMatch: input.if_match }),
        ...(input.lines ? { lines: input.lines } : {}),
      });
      return { proposal: proposalView(root, r.proposal), entry: entryView(r.entry), preview: r.upsert.preview };
    },
  }),
  review_reject: op({
    input: ReviewRejectInput,
    output: ReviewRejectOutput,
    description: 'Reject a pending proposal, with an optional reason the agent will see.',
    run: async (input, actor, ctx) => {
      const root = workspaceOf(ctx);
      const { reject, proposalView } = await review();
      return { proposal: proposalView(root, await reject(root, actor, input.id, input.reason, input.hunks ? { hunks: input.hunks } : {})) };
    },
  }),
  review_batch: op({
    input: ReviewBatchInput,
    output: ReviewBatchOutput,
    description:
      'Approve or reject every pending proposal of a file (path) or of an agent (actor) in one step. Approve: as one by one, oldest first, ' +
      'but one write per file and one journal group (review_undo steps it whole); proposals whose own lines an older one changes become conflict; ' +
      'deletes and moves are skipped (approve them alone); a several-file proposal joins whole or not at all. Reject: conflicts too, with one reason.',
    run: async (input, actor, ctx) => {
      const root = workspaceOf(ctx);
      const filter = { ...(input.path !== undefined ? { path: input.path } : {}), ...(input.actor !== undefined ? { actor: input.actor } : {}) };
      const { approveBatch, rejectBatch, proposalView, entryView } = await review();
      const r = input.decision === 'approve' ? await approveBatch(root, actor, filter) : await rejectBatch(root, actor, filter, input.reason);
      const view = (p: (typeof r.applied)[number]) => proposalView(root, p);
      return {
        decision: r.decision,
        group_id: r.group,
        applied: r.applied.map(view),
        rejected: r.rejected.map(view),
        conflicts: r.conflicts.map(view),
        skipped: r.skipped.map((x) => ({ proposal: view(x.proposal), reason: x.reason })),
        entries: r.entries.map(entryView),
      };
    },
  }),
  review_undo: op({
    input: ReviewStepInput,
    output: ReviewStepOutput,
    description:
      'Undo your latest applied edit (of path, if given; include_others for edits others decided), as a new upsert guarded by the hash of the region it wrote: ' +
      'if that region changed since, conflict and nothing is written. id: exactly that entry, even if later edits of its file are applied (conflict lists them when they changed its region). ' +
      'A deleted file comes back with its bytes and mode, a moved one moves back, only if nothing took the name since (else conflict).',
    run: async (input, actor, ctx) => stepOutput(await (await review()).undo(workspaceOf(ctx), actor, stepOptionsOf(input))),
  }),
  review_redo: op({
    input: ReviewStepInput,
    output: ReviewStepOutput,
    description: 'Redo your latest undone edit (of path, if given; id: exactly that entry; include_others for edits others decided), guarded like undo.',
    run: async (input, actor, ctx) => stepOutput(await (await review()).redo(workspaceOf(ctx), actor, stepOptionsOf(input))),
  }),
  review_history: op({
    input: ReviewHistoryInput,
    output: ReviewHistoryOutput,
    description: 'The journal of applied edits in global order (of one file, if path is given), with each undo and redo.',
    run: async (input, _actor, ctx) => {
      const { history, entryView } = await review();
      return { entries: history(workspaceOf(ctx), input).map(entryView) };
    },
  }),
  audit_log: op({
    input: AuditInput,
    output: AuditOutput,
    description: 'The audit log of the workspace: one entry per agent operation (time, actor, operation, path, range, versions, bytes, outcome).',
    run: async (input, _actor, ctx) => ({
      entries: (await import('./agent/audit.ts')).readAudit(workspaceOf(ctx), {
        ...(input.path ? { path: resolvePath(workspaceOf(ctx), input.path) } : {}),
        since: input.since,
      }),
    }),
  }),
  recent_list: op({
    input: RecentListInput,
    output: RecentOutput,
    description: "The person's recently opened files (per user, not per workspace), most recent first; missing: the file is gone.",
    run: async () => ({ entries: (await import('./app/recent-files.ts')).listRecent() }),
  }),
  recent_add: op({
    input: RecentAddInput,
    output: RecentOutput,
    description: 'Record a file as just opened (first in the recent list, once per real path); answers the new list.',
    run: async (input, _actor, ctx) => {
      const recent = await import('./app/recent-files.ts');
      // The recent list holds files (it marks those gone); a remote locator is opened, not recorded.
      if (isRemoteLocator(input.path)) return { entries: recent.listRecent() };
      return { entries: await recent.addRecent(resolvePath(workspaceOf(ctx), input.path)) };
    },
  }),
  app_open: op({
    input: AppOpenInput,
    output: AppOpenOutput,
    description: 'Show a file in the app windows connected to this server, as an open_file event (what `folio open FILE` does when a server runs).',
    run: async (input, _actor, ctx) => {
      const path = resolvePath(workspaceOf(ctx), input.path);
      const { publishOpenFile } = await import('./events.ts');
      return { path, windows: publishOpenFile(workspaceOf(ctx), path) };
    },
  }),
};

export type OperationName = keyof typeof operations;
export type OpInput<N extends OperationName> = z.infer<(typeof operations)[N]['input']>;
export type OpOutput<N extends OperationName> = z.infer<(typeof operations)[N]['output']>;

/** review_undo / review_redo input as the review layer's options. */
function stepOptionsOf(input: z.infer<typeof ReviewStepInput>): StepOptions {
  return { id: input.id, path: input.path, includeOthers: input.include_others };
}
