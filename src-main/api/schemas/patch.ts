/** patch: a Codex apply_patch envelope, SEARCH/REPLACE blocks or a unified diff, over one or several files, all or none. */
import * as z from 'zod';
import { FileOpOutput } from './file-ops.ts';
import { UpsertOutput } from './upsert.ts';

export const PatchInput = z.object({
  patch: z.string().min(1).describe('*** Begin Patch envelope, SEARCH/REPLACE blocks, or a unified diff.'),
  path: z.string().min(1).optional().describe('The file of SEARCH/REPLACE blocks that name none.'),
  dry_run: z.boolean().optional().describe('Preview only.'),
});
export type PatchInput = z.infer<typeof PatchInput>;

/**
 * A patch's answer: the several-file upsert's (the first file's fields, every file
 * in files) with its deletes and moves in file_ops; a patch of deletes and moves
 * alone has only those.
 */
export const PatchOutput = UpsertOutput.partial().extend({
  applied: z.boolean(),
  dry_run: z.boolean(),
  notes: z.array(z.string()),
  format: z.enum(['codex', 'search_replace', 'unified']),
  file_ops: z.array(FileOpOutput).optional().describe('Its deletes and moves, applied after the files.'),
});
export type PatchOutput = z.infer<typeof PatchOutput>;
