/**
 * Schemas of the agent door: the proposal_status operation, and each agent tool's
 * output as the table's output plus what the agent guard adds (redaction counts,
 * the review policy, proposal fields). MCP declares these as the tools'
 * outputSchema, so every field an agent can get is written here once.
 * Browser-safe like schemas.ts (zod only).
 */
import * as z from 'zod';
import {
  FileInfo,
  ListOutput,
  OutlineOutput,
  ProposalStatus,
  ReadOutput,
  ReviewActor,
  SearchOutput,
  SearchTreeMatch,
  SearchTreeOutput,
  UpsertOutput,
  Version,
} from '../schemas.ts';
import { FileOpOutput } from './file-ops.ts';
import { EditInput } from './edit.ts';
import { PatchInput } from './patch.ts';
import { UpsertAnyTarget, UpsertInput } from './upsert.ts';

const LineByteRange = UpsertOutput.shape.range_after;

export const ProposalStatusInput = z.object({
  proposal_id: z.string().min(1),
  wait_ms: z.number().int().min(0).max(120_000).optional(),
});
export type ProposalStatusInput = z.infer<typeof ProposalStatusInput>;

export const ProposalStatusOutput = z.object({
  proposal_id: z.string(),
  status: ProposalStatus,
  path: z.string().describe('Relative to the workspace root when inside it.'),
  decided_by: ReviewActor.nullable(),
  decided_at: z.string().nullable(),
  reason: z.string().nullable().describe('Why it was rejected, when given.'),
  conflict: z.record(z.string(), z.unknown()).nullable().describe('On conflict: the engine error; re-read and propose again.'),
  version_after: Version.optional().describe('Once applied: the version it wrote.'),
  range_after: LineByteRange.optional().describe('Once applied: where the new text is.'),
  hunks: z
    .array(z.object({ index: z.number().int(), status: z.enum(['pending', 'applied', 'rejected']) }))
    .optional()
    .describe('A proposal with several edits: the decision on each (1-based index).'),
  change: z
    .object({
      kind: z.enum(['edit', 'create', 'delete', 'move']),
      label: z.string(),
      hunks: z.array(
        z.object({
          index: z.number().int().describe('The edit (1-based) it belongs to.'),
          status: z.enum(['pending', 'applied', 'rejected']),
          start_line: z.number().int().describe('Where its old lines are in the file now (they move as edits elsewhere are applied).'),
          old_count: z.number().int(),
          new_count: z.number().int(),
        }),
      ),
    })
    .describe('What the proposal does, as the reviewer sees it: its line hunks (no text; read the file for that).'),
});
export type ProposalStatusOutput = z.infer<typeof ProposalStatusOutput>;

const redactions = z.number().int().nonnegative().describe('How many secrets in the answer were replaced with [REDACTED:kind].');

export const AgentReadOutput = ReadOutput.extend({
  redactions,
  content: ReadOutput.shape.content.optional(),
  content_block: z.number().int().optional().describe('MCP: the text block holding content, if not here.'),
});
/**
 * One object for both answers of the search tool (MCP wants an object schema): a
 * file's (version, total_lines, scanned, next_start_byte) or a directory's (files,
 * files_searched, next_cursor; each match carries its path). Both have matches,
 * count, truncated and redactions.
 */
export const AgentSearchOutput = SearchOutput.partial({ version: true, total_lines: true, next_start_byte: true, scanned: true }).extend({
  matches: z.array(SearchTreeMatch.partial({ path: true })).describe('Directory search: each match has the path of its file.'),
  glob: SearchTreeOutput.shape.glob.optional(),
  files: SearchTreeOutput.shape.files.optional(),
  files_searched: SearchTreeOutput.shape.files_searched.optional(),
  bytes_searched: SearchTreeOutput.shape.bytes_searched.optional(),
  next_cursor: SearchTreeOutput.shape.next_cursor.optional(),
  redactions,
});
/** Entries are paths and file facts, no file text: nothing to redact. */
export const AgentListOutput = ListOutput;
/** Heading texts are redacted in place: same shape. */
export const AgentOutlineOutput = OutlineOutput;
export const AgentFileInfoOutput = FileInfo;
export const AgentProposalStatusOutput = ProposalStatusOutput;

/**
 * One object for the three answers (MCP wants an object schema, not a union):
 * dry_run: the table's upsert output and policy; auto: applied, journal_id and the
 * versions and range written; review: the proposal's id, status, preview and ranges.
 */
// loose_matches: agents get the notes that say the same (the tool list is sent every turn).
export const AgentUpsertOutput = UpsertOutput.omit({ loose_matches: true })
  .partial()
  .extend({
    path: z.string(),
    applied: z.boolean(),
    policy: z.enum(['review', 'auto']).describe('The review policy of the path: review stores a proposal, auto applies at once.'),
    journal_id: z.string().optional().describe('auto: the journal entry of the edit (a person can undo it).'),
    proposal_id: z.string().optional().describe('review: the proposal; follow it with proposal_status.'),
    status: z.literal('pending').optional().describe('review: the new proposal waits for a person.'),
    version_seen: Version.optional().describe('review: the version the proposal was checked against.'),
    actor: ReviewActor.optional().describe('review: who proposed it (the MCP client).'),
    next: z.string().optional().describe('review: what happens next.'),
    files: z.array(z.looseObject({ path: z.string(), applied: z.boolean() })).optional(),
    file_ops: z.array(z.looseObject({ path: z.string(), applied: z.boolean() })).optional(),
    group_id: z.string().optional(),
    // delete_file / move_to targets answer as the table's delete_file and move_file:
    preconditions: z.looseObject({ checked: z.array(z.string()) }).optional(),
    op: z.enum(['delete', 'move']).optional(),
    to: z.string().optional(),
  });
export type AgentUpsertOutput = z.infer<typeof AgentUpsertOutput>;

/**
 * delete_file / move_file as agents get them (one object, as AgentUpsertOutput):
 * dry_run: the table's answer and policy; auto: applied with journal_id; review:
 * the proposal's id, status and preview.
 */
export const AgentFileOpOutput = FileOpOutput.partial().extend({
  path: z.string(),
  applied: z.boolean(),
  policy: z.enum(['review', 'auto']).describe('The review policy of the path(s): review stores a proposal, auto applies at once.'),
  journal_id: z.string().optional().describe('auto: the journal entry (a person can undo it).'),
  proposal_id: z.string().optional().describe('review: the proposal; follow it with proposal_status.'),
  status: z.literal('pending').optional().describe('review: the new proposal waits for a person.'),
  file_op: z.enum(['delete', 'move']).optional().describe('review: what the proposal does.'),
  version_seen: Version.optional().describe('review: the version the proposal was checked against.'),
  actor: ReviewActor.optional().describe('review: who proposed it (the MCP client).'),
  next: z.string().optional().describe('review: what happens next.'),
});
export type AgentFileOpOutput = z.infer<typeof AgentFileOpOutput>;

/**
 * The agent's upsert: the table's, with two whole-file targets (the table's
 * delete_file and move_file, offered inside upsert to keep the tool list short),
 * and without normalize_newlines (agents' text always takes the file's newlines).
 */
/**
 * Why the agent makes a change, as the partial-upsert guideline's `reason`: kept in
 * the audit log (its first 500 characters; a longer one does not fail the write). No
 * description: the name says it, and the tool list stays within its budget
 * (test/mcp/tool-list-size.test.ts).
 */
export const CallerReason = z.string().optional();

export const AgentUpsertInput = UpsertInput.omit({ normalize_newlines: true }).extend({
  reason: CallerReason,
  target: z
    .union([...UpsertAnyTarget.options, z.object({ delete_file: z.literal(true) }), z.object({ move_to: z.string().min(1).describe('New name.') })])
    .optional()
    .describe(UpsertInput.shape.target.description!),
});
export type AgentUpsertInput = z.infer<typeof AgentUpsertInput>;

/** The agent's edit: quotes (edits), or a patch in the formats agents are trained on (the table's patch, inside edit to keep the tool list short). */
export const AgentEditInput = EditInput.extend({
  reason: CallerReason,
  edits: EditInput.shape.edits.optional(),
  patch: PatchInput.shape.patch.optional().describe('Instead of edits.'),
});
export type AgentEditInput = z.infer<typeof AgentEditInput>;
