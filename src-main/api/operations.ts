/**
 * The operation table: one entry per operation, each a zod input/output schema,
 * a description (used verbatim by MCP tools, CLI help and API docs) and one run
 * function. Doors derive their routes, channels and tools from this table.
 */
import type { z } from 'zod';
import { publishOpenFile } from './events.ts';
import { AppOpenInput, AppOpenOutput } from './schemas.ts';
import {
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
} from './schemas.ts';
import { fileInfo } from '../engine/read/file-info.ts';
import { fileInfoWireOf } from './file-info-wire.ts';
import { readAudit } from './agent/audit.ts';
import { proposalStatus } from './agent/proposal-status.ts';
import { ProposalStatusInput, ProposalStatusOutput } from './schemas/agent.ts';
import { DeleteFileInput, FileOpOutput, MoveFileInput } from './schemas/file-ops.ts';
import { runFileOpInput } from './file-op-request.ts';
import { resolve as resolvePath } from 'node:path';
import { outlineOf } from '../engine/address/markdown-outline.ts';
import { outlineWireOf } from './outline-wire.ts';
import { searchPath } from '../engine/search/search-path.ts';
import { upsert } from '../engine/write/upsert.ts';
import { editRequestOf, upsertRequestOf } from './upsert-request.ts';
import { readByInput } from './read-address.ts';
import { applyOwnEdit } from '../review/journal.ts';
import { toSearchOptions } from './search-request.ts';
import { searchWireOf } from './search-wire.ts';
import { RecentAddInput, RecentListInput, RecentOutput } from './schemas.ts';
import { addRecent, listRecent } from './app/recent-files.ts';
import {
  ReviewApproveInput,
  ReviewApproveOutput,
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
} from './schemas.ts';
import {
  approve,
  entryView,
  history,
  listProposals,
  proposalView,
  redo,
  reject,
  showProposal,
  undo,
  type StepOptions,
  type StepResult,
} from '../review/index.ts';

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
}

const workspaceOf = (ctx: CallContext) => ctx.workspace ?? process.cwd();

/** The outline answer: headings up to max_level, and how long it took. */
export async function outlineView(input: z.infer<typeof OutlineInput>): Promise<z.infer<typeof OutlineOutput>> {
  const t0 = performance.now();
  const o = await outlineOf(input.path);
  const headings = input.max_level === undefined ? o.headings : o.headings.filter((h) => h.level <= input.max_level!);
  return outlineWireOf(o, headings, performance.now() - t0);
}

function stepOutput(s: StepResult) {
  return {
    action: s.action,
    entry: entryView(s.entry),
    version_before: s.upsert.version_before,
    version_after: s.upsert.version_after,
    preview: s.upsert.preview,
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
    description:
      'Size, line count, encoding, newline style, BOM, final newline, UTF-8 validity and binary verdict of a file, with its version. Cheap after the first call (the line index is cached).',
    run: async (input, _actor, ctx) => fileInfoWireOf(await fileInfo(input.path, ctx)),
  }),
  read: op({
    input: ReadInput,
    output: ReadOutput,
    description:
      'Read any window of a file of any size: line ranges (several at once), a byte window rounded to whole lines, exact bytes, char-budget pages, head or tail. ' +
      'Ask for big windows and several ranges in one call rather than many small reads. Every answer carries the version (etag): send it back as if_match, ' +
      'or use hashlines anchors, when you upsert. Long lines come back cut with line_cut and next_start_byte to continue. ' +
      'Markdown: section "A > B" reads one section (see outline). JSON: json_path ("$.a[*][id,name]" or "/a/0") gives the values with their exact text and positions; ' +
      'jsonl_line N addresses one line of a JSON Lines file. Tokens: tokenizer reports the token count; token_start/token_end or page_tokens (+page) read windows measured in tokens.',
    run: (input, _actor, ctx) => readByInput(input, ctx.readCaps),
  }),
  outline: op({
    input: OutlineInput,
    output: OutlineOutput,
    description:
      'The headings of a markdown file (top-level ones: not inside code, HTML, lists or quotes), each with its level, heading path ("Install > Linux"), ' +
      'line range, byte range and the SHA-256 of its section. Use a path with read section, and the sha256 as expected_section_sha256 with a section upsert.',
    run: (input) => outlineView(input),
  }),
  search: op({
    input: SearchInput,
    output: SearchOutput,
    description:
      'Regex search of a file or a range of it (start_line/end_line or start_byte/end_byte), one result per matching line with its line number, byte offset and text. ' +
      'Uses all cores on big files. When truncated, pass next_start_byte as start_byte to continue. count_only counts matching lines like grep -c.',
    run: async (input, _actor, ctx) =>
      searchWireOf(await searchPath(input.path, { ...toSearchOptions(input), signal: ctx.signal, onProgress: ctx.onProgress })),
  }),
  upsert: op({
    input: UpsertInput,
    output: UpsertOutput,
    description:
      'Insert, replace, delete or append at a position, atomically, only if the file is still the version you read: always send if_match (the etag of your read) ' +
      'or hashline anchors ("12#a3f") of the lines you change. Anchors let the edit apply even when other parts of the file changed. On precondition_failed the error ' +
      'carries the current version and a ready read request: re-read exactly that and retry. dry_run previews the diff without writing. ' +
      'Markdown: target {section: {path, position: replace|insert|append}} with expected_section_sha256 (from outline or a section read). ' +
      'JSON: target {json: {path, op: set|insert|delete, value}} (jsonl_line for JSON Lines) with if_match: only the text of that value changes.',
    run: async (input, actor, ctx) => {
      const planned = await upsertRequestOf(input);
      const { path } = planned;
      const request = { ...planned.request, ...(ctx.checked ? { checked: ctx.checked } : {}), ...(ctx.createFolders !== false ? { createParents: true } : {}) };
      if (request.dryRun) return upsert(path, request);
      // The caller's own edit is journaled under the caller, so review_undo (`folio review undo FILE`) takes it back.
      const { upsert: r } = await applyOwnEdit(workspaceOf(ctx), actor, resolvePath(path), request);
      const { removed: _removed, inserted: _inserted, ...answer } = r;
      return answer;
    },
  }),
  edit: op({
    input: EditInput,
    output: UpsertOutput,
    description:
      'Edit by quoting: each edits[i].old_text must occur exactly once in the file (or, with replace_all, at least once) and is replaced by new_text; all edits or none. ' +
      'The quote is the precondition (if_match optional). On no_match the error shows the nearest near-miss and how it differs; on ambiguous_match the lines of each candidate. ' +
      'Use upsert instead for positions, appends, anchors and new files.',
    run: async (input, actor, ctx) => {
      const request = { ...editRequestOf(input), ...(ctx.checked ? { checked: ctx.checked } : {}) };
      if (request.dryRun) return upsert(input.path, request);
      const { upsert: r } = await applyOwnEdit(workspaceOf(ctx), actor, resolvePath(input.path), request);
      const { removed: _removed, inserted: _inserted, ...answer } = r;
      return answer;
    },
  }),
  // --- whole-file delete and move (file-op-request.ts) ---
  delete_file: op({
    input: DeleteFileInput,
    output: FileOpOutput,
    description:
      'Delete a file, only if it is still the version you read: send if_match (the etag of your read) or expected_sha256. ' +
      'Journaled: review_undo puts it back with its bytes and mode (files up to 64 MiB). dry_run previews what would go.',
    run: (input, actor, ctx) => runFileOpInput(input, actor, ctx, workspaceOf(ctx)),
  }),
  move_file: op({
    input: MoveFileInput,
    output: FileOpOutput,
    description:
      'Move (rename) a file to `to`, only if it is still the version you read (if_match or expected_sha256). Never replaces a file: ' +
      'if `to` exists, precondition_failed with failed ["destination_exists"]. Journaled: review_undo moves it back. dry_run checks without moving.',
    run: (input, actor, ctx) => runFileOpInput(input, actor, ctx, workspaceOf(ctx)),
  }),
  proposal_status: op({
    input: ProposalStatusInput,
    output: ProposalStatusOutput,
    description:
      'The decision on a proposal made under the review policy (by upsert, edit, delete_file or move_file): pending, applied, rejected (with the reason) or conflict (the file changed before approval: re-read and propose again). ' +
      'With wait_ms, waits up to that long for a decision.',
    run: (input, _actor, ctx) => proposalStatus(workspaceOf(ctx), input.proposal_id, input.wait_ms),
  }),
  review_list: op({
    input: ReviewListInput,
    output: ReviewListOutput,
    description: 'Proposals of the review queue (agent edits waiting for a decision, and decided ones), oldest first; filter by status and/or path.',
    run: async (input, _actor, ctx) => {
      const root = workspaceOf(ctx);
      return { proposals: listProposals(root, input).map((p) => proposalView(root, p)) };
    },
  }),
  review_show: op({
    input: ReviewIdInput,
    output: ReviewShowOutput,
    description: 'One proposal with its content and preview, and its journal entry once applied.',
    run: async (input, _actor, ctx) => {
      const root = workspaceOf(ctx);
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
      const r = await approve(root, actor, input.id, input.content === undefined ? {} : { content: input.content });
      return { proposal: proposalView(root, r.proposal), entry: entryView(r.entry), preview: r.upsert.preview };
    },
  }),
  review_reject: op({
    input: ReviewRejectInput,
    output: ReviewRejectOutput,
    description: 'Reject a pending proposal, with an optional reason the agent will see.',
    run: async (input, actor, ctx) => {
      const root = workspaceOf(ctx);
      return { proposal: proposalView(root, await reject(root, actor, input.id, input.reason)) };
    },
  }),
  review_undo: op({
    input: ReviewStepInput,
    output: ReviewStepOutput,
    description:
      'Undo your latest applied edit (of path, if given; include_others for edits others decided), as a new upsert guarded by the hash of the region it wrote: ' +
      'if that region changed since, conflict and nothing is written. id: exactly that entry, even if later edits of its file are applied (conflict lists them when they changed its region). ' +
      'A deleted file comes back with its bytes and mode, a moved one moves back, only if nothing took the name since (else conflict).',
    run: async (input, actor, ctx) => stepOutput(await undo(workspaceOf(ctx), actor, stepOptionsOf(input))),
  }),
  review_redo: op({
    input: ReviewStepInput,
    output: ReviewStepOutput,
    description: 'Redo your latest undone edit (of path, if given; id: exactly that entry; include_others for edits others decided), guarded like undo.',
    run: async (input, actor, ctx) => stepOutput(await redo(workspaceOf(ctx), actor, stepOptionsOf(input))),
  }),
  review_history: op({
    input: ReviewHistoryInput,
    output: ReviewHistoryOutput,
    description: 'The journal of applied edits in global order (of one file, if path is given), with each undo and redo.',
    run: async (input, _actor, ctx) => ({ entries: history(workspaceOf(ctx), input).map(entryView) }),
  }),
  audit_log: op({
    input: AuditInput,
    output: AuditOutput,
    description: 'The audit log of the workspace: one entry per agent operation (time, actor, operation, path, range, versions, bytes, outcome).',
    run: async (input, _actor, ctx) => ({
      entries: readAudit(workspaceOf(ctx), { ...(input.path ? { path: resolvePath(workspaceOf(ctx), input.path) } : {}), since: input.since }),
    }),
  }),
  recent_list: op({
    input: RecentListInput,
    output: RecentOutput,
    description: "The person's recently opened files (per user, not per workspace), most recent first; missing: the file is gone.",
    run: async () => ({ entries: listRecent() }),
  }),
  recent_add: op({
    input: RecentAddInput,
    output: RecentOutput,
    description: 'Record a file as just opened (first in the recent list, once per real path); answers the new list.',
    run: async (input, _actor, ctx) => ({ entries: await addRecent(resolvePath(workspaceOf(ctx), input.path)) }),
  }),
  app_open: op({
    input: AppOpenInput,
    output: AppOpenOutput,
    description: 'Show a file in the app windows connected to this server, as an open_file event (what `folio open FILE` does when a server runs).',
    run: async (input, _actor, ctx) => {
      const path = resolvePath(workspaceOf(ctx), input.path);
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
