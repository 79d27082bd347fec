/** review: proposals, the journal, undo/redo (state under <root>/.folio/review). */
import * as z from 'zod';
import { LineByteRange, Version } from './common.ts';
import { UpsertTarget } from './upsert.ts';

/** One file of a several-file edit: its group, its place in it, the group's size. */
export const GroupTag = z
  .object({ id: z.string(), index: z.number().int(), of: z.number().int() })
  .describe('Several files edited all or none: approved, rejected and undone together.');

export const ReviewActor = z.object({ kind: z.enum(['human', 'agent']), name: z.string() });
export const ProposalStatus = z.enum(['pending', 'applied', 'rejected', 'conflict']);

/**
 * The change model: what any proposal does to its file, whatever the agent's form
 * (line targets, byte targets, quotes, JSON paths, sections, whole file, create,
 * delete, move). Made once at proposal time from the engine's dry run; its lines
 * move with the file as edits elsewhere are applied (rebase).
 */
export const ChangeHunk = z.object({
  index: z.number().int().describe('The decision unit (1-based): the edit of the proposal this hunk belongs to. Several hunks share one with replace_all.'),
  status: z.enum(['pending', 'applied', 'rejected']),
  start_line: z.number().int().describe('Line of the file now where old_lines begin (an insert: the line new_lines go before).'),
  old_start: z.number().int().describe('The same line in the version the agent read.'),
  old_count: z.number().int(),
  new_count: z.number().int(),
  old_lines: z.array(z.string()).describe('The lines removed, as the agent read them (a pending proposal keeps them as they are now).'),
  new_lines: z.array(z.string()).describe('The lines put there.'),
  truncated: z.boolean().optional().describe('Too big to carry (over 256 KiB): old_lines/new_lines are empty, the counts say how many.'),
});
export type ChangeHunk = z.infer<typeof ChangeHunk>;

export const ProposalChange = z.object({
  kind: z.enum(['edit', 'create', 'delete', 'move']).describe('What happens to the file.'),
  how: z
    .enum(['lines', 'bytes', 'quote', 'whole', 'append', 'file'])
    .describe('How the agent addressed it: line or byte targets (JSON paths, sections, chars resolve to bytes), quotes, the whole file, an append, a file op.'),
  label: z.string().describe('In words: "quote edit, 3 hunks, lines 12–14, 40, 88–90", "create", "move a.ts → b.ts", "delete".'),
  per_hunk: z.boolean().describe('Hunks are decided one by one (hunks: [index]); otherwise the proposal is decided whole.'),
  hunks: z.array(ChangeHunk).describe('Line hunks in file order.'),
});
export type ProposalChange = z.infer<typeof ProposalChange>;

export const ReviewProposal = z.object({
  id: z.string(),
  status: ProposalStatus,
  path: z.string().describe('Relative to the workspace root when inside it.'),
  actor: ReviewActor.describe('Who proposed the edit.'),
  target: UpsertTarget,
  targets: z.array(UpsertTarget).optional().describe('Several edits in one proposal (target is the first).'),
  quoted: z
    .array(z.object({ old_text: z.string(), new_text: z.string(), replace_all: z.boolean().optional() }))
    .optional()
    .describe('Edits by quoting: found again in the file when approved.'),
  file_op: z.enum(['delete', 'move']).optional().describe('The whole file is deleted or moved (target is whole_file, no content).'),
  to: z.string().optional().describe('file_op move: the new name, relative to the workspace root when inside it.'),
  preconditions: z.object({
    if_none_match: z.literal('*').optional(),
    if_match: z.string().optional(),
    expected_sha256: z.string().optional(),
    if_not_modified_since: z.number().optional(),
    expected_range_sha256: z.string().optional(),
    anchors: z.array(z.string()).optional(),
  }),
  normalize_newlines: z.boolean(),
  preview: z.string().describe('Unified diff of the dry run made when the proposal was stored.'),
  version_seen: Version,
  content_bytes: z.number().int(),
  content_sha256: z.string(),
  edited: z.boolean().describe('A person replaced the content before approving.'),
  content: z.string().optional().describe('The proposed text (review_show only).'),
  edited_content: z.string().optional().describe('The text that was applied instead (review_show only).'),
  created_at: z.string(),
  decided_by: ReviewActor.nullable(),
  decided_at: z.string().nullable(),
  reason: z.string().nullable().describe('Why it was rejected, when given.'),
  conflict: z.record(z.string(), z.unknown()).nullable().describe('On conflict: the engine error (code, message, failed, current_version, read, ...).'),
  journal_id: z.string().nullable(),
  group: GroupTag.optional(),
  hunks: z
    .array(z.object({ index: z.number().int(), status: z.enum(['pending', 'applied', 'rejected']) }))
    .optional()
    .describe('A proposal with several edits: the decision on each (1-based index).'),
  change: ProposalChange.describe('The change model: every kind of proposal as line hunks of its file.'),
});
export type ReviewProposal = z.infer<typeof ReviewProposal>;

export const JournalEvent = z.object({
  action: z.enum(['apply', 'undo', 'redo']),
  seq: z.number().int(),
  by: ReviewActor,
  at: z.string(),
  version_before: Version,
  version_after: Version,
});

export const ReviewJournalEntry = z.object({
  id: z.string(),
  seq: z.number().int().describe('Global order of the first application.'),
  proposal_id: z.string().nullable(),
  actor: ReviewActor,
  decided_by: ReviewActor,
  path: z.string(),
  version_before: Version,
  version_after: Version,
  range_before: LineByteRange,
  range_after: LineByteRange,
  removed_bytes: z.number().int(),
  removed_sha256: z.string(),
  removed_in_blob: z.boolean(),
  inserted_bytes: z.number().int(),
  inserted_sha256: z.string(),
  file_op: z.enum(['delete', 'move']).optional().describe('The whole file was deleted (removed_bytes: its size) or moved to `to`.'),
  to: z.string().optional().describe('file_op move: the new name.'),
  applied_at: z.string(),
  undone: z.boolean(),
  group: GroupTag.optional(),
  proposal_ids: z.array(z.string()).optional().describe('A batch approval: every proposal this one write applied (proposal_id is null).'),
  history: z.array(JournalEvent),
});
export type ReviewJournalEntry = z.infer<typeof ReviewJournalEntry>;

export const ReviewListInput = z.object({
  status: ProposalStatus.optional().describe('Only proposals with this status.'),
  path: z.string().optional().describe('Only proposals for this file.'),
});
export const DamagedReviewFrame = z.object({
  file: z
    .string()
    .describe(
      'Where the damaged bytes are kept, byte for byte (delete it to dismiss the warning; the .json beside it stays, so the same bytes are not kept aside again).',
    ),
  source: z.string().describe('The log or snapshot they were in, relative to .folio/review (changes/<pid>-<id>.log, doc).'),
  offset: z.number().describe('Byte offset in source.'),
  bytes: z.number(),
  kind: z
    .enum(['unparsable_frame', 'torn_tail'])
    .describe('A whole frame that does not parse, or bytes after the last whole frame of a log whose writer is gone.'),
  error: z.string(),
  found_at: z.string(),
});
export type DamagedReviewFrame = z.infer<typeof DamagedReviewFrame>;

export const ReviewListOutput = z.object({
  proposals: z.array(ReviewProposal),
  damaged: z
    .array(DamagedReviewFrame)
    .describe('Review data that did not load and was kept aside: decisions it held may be missing from proposals. Empty when all is well.'),
});

export const ReviewIdInput = z.object({ id: z.string().min(1).describe('Proposal id.') });
export const ReviewShowOutput = z.object({ proposal: ReviewProposal, entry: ReviewJournalEntry.nullable() });

export const ReviewApproveInput = z.object({
  id: z.string().min(1),
  content: z.string().optional().describe('Edit-then-approve: this text replaces the proposed one (same target and preconditions).'),
  hunks: z.array(z.number().int().min(1)).optional().describe('Only these edits (1-based) of a proposal with several; the rest stay pending.'),
  current: z.boolean().optional().describe("Apply to the current file: check only the proposal's own region (also retries a conflict)."),
  if_match: z
    .string()
    .optional()
    .describe("Resolve (3-way): with content, the etag of the current file the person merged against; checked instead of the proposal's own preconditions."),
  lines: z
    .object({ start: z.number().int().min(1), end: z.number().int().min(0) })
    .optional()
    .describe('With if_match: the lines of that version the content replaces (end = start - 1: insert before start).'),
});
export const ReviewApproveOutput = z.object({
  proposal: ReviewProposal,
  entry: ReviewJournalEntry,
  preview: z.string().describe('Unified diff of what was written.'),
});

export const ReviewRejectInput = z.object({
  id: z.string().min(1),
  reason: z.string().optional(),
  hunks: z.array(z.number().int().min(1)).optional().describe('Only these edits (1-based) of a proposal with several.'),
});
export const ReviewRejectOutput = z.object({ proposal: ReviewProposal });

export const ReviewBatchInput = z.object({
  decision: z.enum(['approve', 'reject']),
  path: z.string().optional().describe('Only proposals of this file.'),
  actor: z.string().optional().describe('Only proposals of this agent: its name, or "kind:name".'),
  reason: z.string().optional().describe('reject: why (every agent concerned sees it).'),
});
export const ReviewBatchOutput = z.object({
  decision: z.enum(['approve', 'reject']),
  group_id: z.string().nullable().describe('The journal group of the writes (one per file): review_undo steps it whole.'),
  applied: z.array(ReviewProposal),
  rejected: z.array(ReviewProposal),
  conflicts: z
    .array(ReviewProposal)
    .describe('Proposals whose own lines an older one of the batch (or an applied edit) changed: now conflict, each with its error.'),
  skipped: z.array(z.object({ proposal: ReviewProposal, reason: z.string() })).describe('Still pending: approve these one by one.'),
  entries: z.array(ReviewJournalEntry),
});

export const ReviewStepInput = z.object({
  id: z.string().min(1).optional().describe('Exactly this journal entry instead of the latest (it must pass the path and actor filters).'),
  path: z.string().optional().describe('Only edits of this file (default: the latest in any file).'),
  include_others: z.boolean().optional().describe('Also edits decided by other actors (default: only yours).'),
});
export const ReviewStepOutput = z.object({
  action: z.enum(['undo', 'redo']),
  entry: ReviewJournalEntry,
  version_before: Version,
  version_after: Version.nullable(),
  preview: z.string(),
  group: z.array(ReviewJournalEntry).optional().describe('One file of a several-file edit: every entry of the group, stepped together.'),
});

export const ReviewHistoryInput = z.object({ path: z.string().optional() });
export const ReviewHistoryOutput = z.object({ entries: z.array(ReviewJournalEntry) });
