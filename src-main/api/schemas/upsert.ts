/** upsert: where an edit goes (position, section or JSON path), its preconditions, and what it did. */
import * as z from 'zod';
import { LineByteRange, Version, int } from './common.ts';

const Units = z.enum(['lines', 'bytes']);

const InsertTarget = z.object({ insert: z.object({ at: int().describe('Before this line (last+1: at the end).'), units: Units.optional() }) });
const ReplaceTarget = z.object({ replace: z.object({ start: int(), end: int(), units: Units.optional() }) });
const DeleteTarget = z.object({ delete: z.object({ start: int(), end: int(), units: Units.optional() }) });
const AppendTarget = z.object({
  append: z.object({ at_end: z.literal(true), units: Units.optional() }),
});
const WholeFileTarget = z.object({ whole_file: z.literal(true).describe('With if_match, or if_none_match to create.') });

export const UpsertTarget = z.union([InsertTarget, ReplaceTarget, DeleteTarget, AppendTarget, WholeFileTarget]);
export type UpsertTarget = z.infer<typeof UpsertTarget>;

/** What an upsert may name: a position (UpsertTarget, what proposals store), or a section or JSON path resolved to one. */
export const UpsertAnyTarget = z.union([
  ...UpsertTarget.options,
  z.object({
    section: z.object({
      path: z.string().min(1),
      position: z.enum(['replace', 'insert', 'append']),
      include_heading: z.boolean().optional(),
    }),
  }),
  z.object({
    json: z.object({
      path: z.string().min(1),
      op: z.enum(['set', 'insert', 'delete']),
      value: z.unknown().optional(),
      index: int().optional(),
      jsonl_line: int().optional(),
    }),
  }),
]);

/** One of several positional edits of one upsert: a target and its content. */
const withContent = {
  content: z.string().optional(),
  path: z.string().min(1).optional().describe('Another file (with its if_match).'),
  if_match: z.string().optional(),
};
// Line units only: byte edits and appends go one per call (target).
const LineSpan = z.object({ start: int(), end: int() });
export const UpsertEditInput = z.union([
  z.object({ insert: z.object({ at: int() }), ...withContent }),
  z.object({ replace: LineSpan, ...withContent }),
  z.object({ delete: LineSpan, ...withContent }),
]);
export type UpsertEditInput = z.infer<typeof UpsertEditInput>;

export const UpsertInput = z.object({
  path: z.string().min(1),
  target: UpsertAnyTarget.optional().describe('Lines 1-based inclusive, e.g. {replace: {start: 3, end: 4}}.'),
  content: z.string().optional(),
  targets: z.array(UpsertEditInput).optional().describe('Several line edits {insert|replace|delete, content} on the version read, all or none.'),
  if_none_match: z.literal('*').optional().describe('"*": create a new file.'),
  if_match: z.string().optional().describe("Your read's version.etag."),
  expected_sha256: z.string().optional(),
  if_not_modified_since: z.union([z.number(), z.string()]).optional(),
  expected_range_sha256: z.string().optional(),
  anchors: z.array(z.string()).optional().describe('LINE#HASH of changed lines.'),
  expected_section_sha256: z.string().optional(),
  normalize_newlines: z.boolean().optional(),
  dry_run: z.boolean().optional().describe('Preview only.'),
});
export type UpsertInput = z.infer<typeof UpsertInput>;

const Affected = z.object({
  bytes: z.object({ removed: z.number().int(), inserted: z.number().int() }),
  lines: z.object({ removed: z.number().int(), inserted: z.number().int() }),
});

export const UpsertFileOutput = z.object({
  path: z.string(),
  applied: z.boolean(),
  dry_run: z.boolean(),
  version_before: Version,
  version_after: Version.nullable(),
  range_before: LineByteRange,
  range_after: LineByteRange,
  affected: Affected,
  preconditions: z.object({
    checked: z.array(z.string()),
    whole_file: z.enum(['matched', 'differed', 'not_checked']),
    range: z.enum(['matched', 'not_checked']),
  }),
  preview: z.string().describe('Unified diff of the region with 3 lines of context.'),
  notes: z.array(z.string()),
  created: z.boolean().optional().describe('if_none_match: the file was created.'),
  loose_matches: z
    .array(
      z.object({
        edit: z.number().int(),
        start_line: z.number().int(),
        end_line: z.number().int(),
        // indentation, trailing_whitespace, inner_whitespace, punctuation, final_newline (engine/write/quote-edit.ts LooseMatch)
        differs: z.array(z.string()),
        reindented: z.boolean(),
      }),
    )
    .optional(),
  hunks: z
    .array(z.object({ edit: z.number().int(), range_before: LineByteRange, range_after: LineByteRange, affected: Affected }))
    .optional()
    .describe('Several edits: where each one went, in file order (edit = its index in targets).'),
  elapsed_ms: z.number(),
});
/** One file's answer; several files: the first file's, with every file's in files (all or nothing). */
export const UpsertOutput = UpsertFileOutput.extend({
  files: z.array(UpsertFileOutput).optional().describe("Several files: each one's answer, in the order they were named."),
  group_id: z.string().optional().describe('Several files applied: the journal group (undone as one).'),
});
export type UpsertOutput = z.infer<typeof UpsertOutput>;
