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
  HighlightsListInput,
  HighlightsOutput,
  HighlightsSetInput,
  MarkSetInput,
  MarksListInput,
  MarksOutput,
  FileInfo,
  FileInfoInput,
  ReadInput,
  ReadOutput,
  SearchInput,
  SearchOutput,
  UpsertInput,
  EditInput,
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
import { PatchInput, PatchOutput } from './schemas/patch.ts';
import { HistogramInput, HistogramOutput, TimeSeekInput, TimeSeekOutput } from './schemas/time.ts';
import { MergeFilesInput, MergeFilesOutput, MergeInput, MergeOutput } from './schemas/merge.ts';
import { QueryInput, QueryOutput } from './schemas/query.ts';
import { runs } from './runs.ts';
import { remoteOps, workspaceOf, type Actor, type CallContext } from './call-context.ts';
import { isRemoteLocator } from './input-paths.ts';
import type { StepOptions, StepResult } from '../review/index.ts';

export type { Actor, CallContext } from './call-context.ts';

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

/** pg://, az://, s3:// (engine/backend/locator.ts); anything else is a local path. */

/** The outline answer: headings up to max_level (a log's: its histogram), and how long it took. */
export async function outlineView(input: z.infer<typeof OutlineInput>, name: string | null = input.path): Promise<z.infer<typeof OutlineOutput>> {
  const t0 = performance.now();
  // `name`: the file's own name when `path` is another way to it (a pinned file's fd path); null: a remote value, outlined as markdown.
  if (name !== null && !/\.(md|markdown|mdx|mkd)$/i.test(name)) {
    const log = await (await import('./time-wire.ts')).logOutlineOf(input.path, t0);
    if (log) return log;
  }
  const [{ outlineOf }, { outlineWireOf }] = await Promise.all([import('../engine/address/markdown-outline.ts'), import('./outline-wire.ts')]);
  const o = await outlineOf(input.path);
  const headings = input.max_level === undefined ? o.headings : o.headings.filter((h) => h.level <= input.max_level!);
  return outlineWireOf(o, headings, performance.now() - t0);
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
    description: 'Size, lines, encoding, newlines, BOM, binary verdict, version of a file.',
    run: runs.file_info,
  }),
  read: op({
    input: ReadInput,
    output: ReadOutput,
    description: "Read any window of any file; several ranges per call. version.etag is upsert's if_match; hashlines: anchors.",
    run: runs.read,
  }),
  outline: op({
    input: OutlineInput,
    output: OutlineOutput,
    description:
      'Markdown headings: level, path ("A > B") for section reads/upserts, lines, sha256 (expected_section_sha256). A log: lines per level per time.',
    run: async (input, _actor, ctx) =>
      isRemoteLocator(input.path) ? (await remoteOps(ctx)).onRemotePath(input.path, (path) => outlineView({ ...input, path }, null)) : outlineView(input),
  }),
  search: op({
    input: SearchInput,
    output: SearchOutput,
    description: 'Regex search of a file: line numbers, byte offsets, text. Truncated: go on from next_start_byte.',
    run: runs.search,
  }),
  // --- Time in logs (issue 17): time-seek.ts, histogram.ts ---
  time_seek: op({
    input: TimeSeekInput,
    output: TimeSeekOutput,
    description:
      'The first line at or after a time in a log stamped in order (ISO 8601, syslog, Apache/nginx or epoch stamps, detected), by bisection over the ' +
      'line index (O(log n) small reads). Stamps out of order: not_ordered, naming the two lines; none: no_timestamps.',
    run: async (input, _actor, ctx) => (await import('./time-wire.ts')).timeSeekWire(input, ctx),
  }),
  histogram: op({
    input: HistogramInput,
    output: HistogramOutput,
    description:
      'Line counts per level (error, warn, info, debug, other) per time bucket over the whole log (workers; never loaded whole). ' +
      'start_byte/end_byte count a slice; buckets depend on the file only, so slices add up.',
    run: async (input, _actor, ctx) => (await import('./time-wire.ts')).histogramWire(input, ctx),
  }),
  // --- Several logs on one timeline (issue 31): merge.ts ---
  merge: op({
    input: MergeInput,
    output: MergeOutput,
    description:
      'Several logs as one view in time order, a window of lines at a time: each line with its file, line number and time; an unstamped line stays ' +
      'with the line above; equal times keep file order. from: bisection in each file; continue with cursor = next_cursor.',
    run: async (input, _actor, ctx) => (await import('./merge-wire.ts')).mergeWire(input, ctx),
  }),
  merge_files: op({
    input: MergeFilesInput,
    output: MergeFilesOutput,
    description: 'The files a merge takes for files, directories and globs: a directory or a glob gives its regular files whose lines are stamped, by name.',
    run: async (input) => ({ paths: (await import('../engine/search/merge-files.ts')).mergeFilesOf(input.paths) }),
  }),
  // --- Queries over log fields (issue 31): engine/search/log-query.ts ---
  query: op({
    input: QueryInput,
    output: QueryOutput,
    description:
      'One SQL SELECT (SQLite) over the table log: the rows of one or more log files (a stamped line and the unstamped lines under it), ' +
      'columns file, line, offset, lines, time, level, message, raw, fields and the keys of key=value pairs and JSON bodies. ' +
      "Streamed from the files (never copied), in a worker; read-only. links: each row's line when file/line were selected.",
    run: async (input, _actor, ctx) => (await import('./query-run.ts')).queryRun(input, ctx),
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
    description: 'Files and folders under a directory or glob: path, kind, size, mtime, lines if indexed; .gitignore honoured.',
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
      "Edit a file atomically if unchanged: if_match (your read's etag) or anchors (a hashlines read). " +
      'precondition_failed shows the current text to retry from.',
    run: runs.upsert,
  }),
  edit: op({
    input: EditInput,
    output: UpsertOutput,
    description:
      'Replace quoted text: each old_text once (replace_all: every one); all or none. The quote is the precondition; ' +
      'errors show near misses. Upsert does lines, appends, new files.',
    run: runs.edit,
  }),
  patch: op({
    input: PatchInput,
    output: PatchOutput,
    description:
      'Apply a patch as agents write them: a Codex "*** Begin Patch" envelope, SEARCH/REPLACE blocks (Aider, Cline) or a unified diff; ' +
      'several files, all or none. Each hunk must match once (an @@ line or line number says which); whitespace slips match loosely and are named.',
    run: runs.patch,
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
    description: "A proposal's state: pending, applied, rejected (reason) or conflict (re-read, propose again).",
    run: async (input, _actor, ctx) => (await import('./agent/proposal-status.ts')).proposalStatus(workspaceOf(ctx), input.proposal_id, input.wait_ms),
  }),
  review_list: op({
    input: ReviewListInput,
    output: ReviewListOutput,
    description: 'Proposals of the review queue (agent edits waiting for a decision, and decided ones), oldest first; filter by status and/or path.',
    run: async (input, _actor, ctx) => {
      const root = workspaceOf(ctx);
      const { listProposals, proposalView, storeOf } = await review();
      const proposals = listProposals(root, input).map((p) => proposalView(root, p));
      return { proposals, damaged: storeOf(root).damaged() };
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
      'Approve or reject every pending proposal of a file (path), of an agent (actor) or of the whole session (all: true) in one step. ' +
      'Approve: as one by one, oldest first, but one write per file and one journal group (review_undo steps it whole, deletes and moves included); ' +
      'proposals whose own lines an older one changes become conflict; a delete or move whose file another proposal of the batch changes is skipped; ' +
      'a several-file proposal joins whole or not at all. Reject: conflicts too, with one reason.',
    run: async (input, actor, ctx) => {
      const root = workspaceOf(ctx);
      const filter = {
        ...(input.path !== undefined ? { path: input.path } : {}),
        ...(input.actor !== undefined ? { actor: input.actor } : {}),
        ...(input.all !== undefined ? { all: input.all } : {}),
      };
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
  highlights_list: op({
    input: HighlightsListInput,
    output: HighlightsOutput,
    description: "The log viewer's highlight rules (per user): pattern, literal or regex, colour, enabled.",
    run: async () => ({ rules: (await import('./app/view-state.ts')).listHighlights() }),
  }),
  highlights_set: op({
    input: HighlightsSetInput,
    output: HighlightsOutput,
    description: "Replace the log viewer's highlight rules (per user); a rule that is no valid regex, or cannot run in linear time, is invalid_input.",
    run: async (input) => ({ rules: await (await import('./app/view-state.ts')).setHighlights(input.rules) }),
  }),
  marks_list: op({
    input: MarksListInput,
    output: MarksOutput,
    description:
      "The marked lines of a file (per user, by real path; a remote value by its locator), ascending. Marks follow their line's text when lines are inserted or deleted above them; `lost` names marks whose line's text is gone (they stay at their number).",
    run: async (input, _actor, ctx) => {
      const path = isRemoteLocator(input.path) ? input.path : resolvePath(workspaceOf(ctx), input.path);
      const { listMarksAnchored, markedPathOf } = await import('./app/view-state.ts');
      const { lines, lost } = await listMarksAnchored(path, { open: ctx });
      return { path: markedPathOf(path), lines, ...(lost.length > 0 ? { lost } : {}) };
    },
  }),
  marks_set: op({
    input: MarkSetInput,
    output: MarksOutput,
    description: "Mark or unmark one line of a file (per user); answers the file's marks.",
    run: async (input, _actor, ctx) => {
      const remote = isRemoteLocator(input.path);
      const path = remote ? input.path : resolvePath(workspaceOf(ctx), input.path);
      if (input.marked) {
        // Unmarking stays possible past the end: a file that shrank keeps marks the person can remove.
        const total = remote
          ? (await (await remoteOps(ctx)).remoteFileInfo(path)).lines
          : (await (await import('../engine/read/file-info.ts')).fileInfo(path, ctx)).lines;
        if (input.line > total) {
          const { FolioError } = await import('../engine/errors.ts');
          throw new FolioError('out_of_bounds', `line ${input.line} is past the end of ${path} (${total} lines)`, { line: input.line, total_lines: total });
        }
      }
      const { markedPathOf, setMark } = await import('./app/view-state.ts');
      const lines = await setMark(path, input.line, input.marked, { open: ctx });
      return { path: markedPathOf(path), lines };
    },
  }),
  app_open: op({
    input: AppOpenInput,
    output: AppOpenOutput,
    description: 'Show a file in the app windows connected to this server, as an open_file event (what `folio open FILE` does when a server runs).',
    run: async (input, _actor, ctx) => {
      const path = isRemoteLocator(input.path) ? input.path : resolvePath(workspaceOf(ctx), input.path);
      const { publishOpenFile } = await import('./events.ts');
      return { path, windows: publishOpenFile(workspaceOf(ctx), path, input.lines) };
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
