/** upsert: where an edit goes (position, section or JSON path), its preconditions, and what it did. */
import { z } from 'zod';
import { LineByteRange, Version, int } from './common.ts';

const Units = z.enum(['lines', 'bytes']).describe('lines (1-based, inclusive) or bytes (0-based, end exclusive); default lines');

const InsertTarget = z.object({
  insert: z.object({ at: int().describe('Insert before this line (total+1: at the end) or at this byte.'), units: Units.optional() }),
});
const ReplaceTarget = z.object({ replace: z.object({ start: int(), end: int(), units: Units.optional() }) });
const DeleteTarget = z.object({ delete: z.object({ start: int(), end: int(), units: Units.optional() }) });
const AppendTarget = z.object({
  append: z.object({
    at_end: z.literal(true),
    units: Units.optional().describe('lines (default): adds whole lines (a newline is added where one is missing); bytes: writes the content exactly.'),
  }),
});
const WholeFileTarget = z.object({
  whole_file: z.literal(true).describe('The whole text: replace it (with if_match), or a new file (with if_none_match: "*").'),
});

export const UpsertTarget = z.union([InsertTarget, ReplaceTarget, DeleteTarget, AppendTarget, WholeFileTarget]);
export type UpsertTarget = z.infer<typeof UpsertTarget>;

/** What an upsert may name: a position (UpsertTarget, what proposals store), or a section or JSON path resolved to one. */
export const UpsertAnyTarget = z.union([
  ...UpsertTarget.options,
  z.object({
    section: z.object({
      path: z.string().min(1).describe('Heading path, as in read section.'),
      position: z
        .enum(['replace', 'insert', 'append'])
        .describe('replace the section, insert right after its heading, or append at its end (before the next heading).'),
      include_heading: z
        .boolean()
        .optional()
        .describe('replace only: true (default) replaces the heading line(s) too; false keeps them and replaces the body.'),
    }),
  }),
  z.object({
    json: z.object({
      path: z.string().min(1).describe('JSONPath or JSON Pointer of one value.'),
      op: z.enum(['set', 'insert', 'delete']).describe('set (creates a missing member/item whose parent exists), insert into the array at path, or delete.'),
      value: z.unknown().optional().describe('The JSON value for set and insert.'),
      index: int().optional().describe('insert: position in the array (default: the end).'),
      jsonl_line: int().optional().describe('JSON Lines: the line (1-based) the path is inside.'),
    }),
  }),
]);

/** One of several positional edits of one upsert: a target and its content. */
const withContent = { content: z.string().optional() };
export const UpsertEditInput = z.union([
  InsertTarget.extend(withContent),
  ReplaceTarget.extend(withContent),
  DeleteTarget.extend(withContent),
  AppendTarget.extend(withContent),
]);
export type UpsertEditInput = z.infer<typeof UpsertEditInput>;

export const UpsertInput = z.object({
  path: z.string().min(1),
  target: UpsertAnyTarget.optional().describe(
    'Where: {insert: {at}}, {replace: {start, end}}, {delete: {start, end}}, {append: {at_end: true}}, {section: {path, position}} (markdown) or {json: {path, op, value}}.',
  ),
  content: z.string().optional().describe('New text (not for delete). For line targets it is whole lines; a final newline is added if missing.'),
  targets: z
    .array(UpsertEditInput)
    .optional()
    .describe(
      'Several edits at once instead of target + content, all or nothing: each {insert|replace|delete|append: …, content}, all placed on the version you read (line numbers are not shifted by the other edits); they must not overlap.',
    ),
  if_none_match: z.literal('*').optional().describe('Precondition for creating a file: "*" = only if the path does not exist. Give the text as content.'),
  if_match: z.string().optional().describe('Precondition: the etag from your read (version.etag).'),
  expected_sha256: z.string().optional().describe('Precondition: SHA-256 of the whole file.'),
  if_not_modified_since: z
    .union([z.number(), z.string()])
    .optional()
    .describe('Precondition: the file was not modified after this time (ms since epoch or ISO 8601).'),
  expected_range_sha256: z.string().optional().describe('Range precondition: SHA-256 of the bytes being replaced or deleted.'),
  anchors: z
    .array(z.string())
    .optional()
    .describe(
      'Range precondition: hashline anchors like "12#a3f" from a read with hashlines. When range preconditions match, the edit applies even if other parts of the file changed.',
    ),
  expected_section_sha256: z
    .string()
    .optional()
    .describe('Section targets: the section sha256 from outline or a section read; the edit applies only if the section is unchanged.'),
  normalize_newlines: z.boolean().optional().describe("Convert the content's newlines to the file's style (default true)."),
  dry_run: z.boolean().optional().describe('Validate and preview, write nothing.'),
});
export type UpsertInput = z.infer<typeof UpsertInput>;

const Affected = z.object({
  bytes: z.object({ removed: z.number().int(), inserted: z.number().int() }),
  lines: z.object({ removed: z.number().int(), inserted: z.number().int() }),
});

export const UpsertOutput = z.object({
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
  hunks: z
    .array(z.object({ edit: z.number().int(), range_before: LineByteRange, range_after: LineByteRange, affected: Affected }))
    .optional()
    .describe('Several edits: where each one went, in file order (edit = its index in targets).'),
  elapsed_ms: z.number(),
});
export type UpsertOutput = z.infer<typeof UpsertOutput>;
