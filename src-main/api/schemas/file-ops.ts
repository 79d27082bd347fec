/** delete_file / move_file: a whole file deleted or moved, under a version precondition, journaled (undoable). */
import * as z from 'zod';
import { Version } from './common.ts';

const guards = {
  if_match: z.string().optional().describe('Precondition: the etag from your read (version.etag). This or expected_sha256 is required.'),
  expected_sha256: z.string().optional().describe('Precondition: SHA-256 of the whole file.'),
  dry_run: z.boolean().optional().describe('Check and preview, change nothing.'),
};

export const DeleteFileInput = z.object({ path: z.string().min(1), ...guards });
export type DeleteFileInput = z.infer<typeof DeleteFileInput>;

export const MoveFileInput = z.object({
  path: z.string().min(1),
  to: z.string().min(1).describe('The new name. It must not exist: a move never replaces a file. Missing folders are created where allowed.'),
  ...guards,
});
export type MoveFileInput = z.infer<typeof MoveFileInput>;

export const FileOpOutput = z.object({
  op: z.enum(['delete', 'move']),
  path: z.string(),
  to: z.string().optional().describe('move: where the file went.'),
  applied: z.boolean(),
  dry_run: z.boolean(),
  version_before: Version.describe('The version deleted or moved (with its sha256 when it was hashed).'),
  version_after: Version.nullable().describe('move: the version at the new name; delete and dry runs: null.'),
  preconditions: z.object({ checked: z.array(z.string()) }),
  preview: z.string().describe('delete: a unified diff to nothing (a summary for big or binary files); move: "rename from / rename to" lines.'),
  notes: z.array(z.string()),
  journal_id: z.string().optional().describe('The journal entry: review_undo takes the delete or move back.'),
  elapsed_ms: z.number(),
});
export type FileOpOutput = z.infer<typeof FileOpOutput>;
