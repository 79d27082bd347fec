/** patch: a Codex apply_patch envelope, SEARCH/REPLACE blocks or a unified diff, over one or several files, all or none. */
import * as z from 'zod';

export const PatchInput = z.object({
  patch: z.string().min(1).describe('*** Begin Patch envelope, SEARCH/REPLACE blocks, or a unified diff.'),
  path: z.string().min(1).optional().describe('The file of SEARCH/REPLACE blocks that name none.'),
  dry_run: z.boolean().optional().describe('Preview only.'),
});
export type PatchInput = z.infer<typeof PatchInput>;
