/** edit: change a file by quoting the text to replace (Claude Code's Edit / MultiEdit), all edits or none. */
import * as z from 'zod';

export const QuotedEditInput = z.object({
  path: z.string().min(1).optional().describe('Another file.'),
  old_text: z.string().min(1).describe('Once unless replace_all.'),
  new_text: z.string(),
  replace_all: z.boolean().optional(),
});

export const EditInput = z.object({
  path: z.string().min(1).optional(),
  edits: z.array(QuotedEditInput).min(1).describe('All or none.'),
  if_match: z.string().optional(),
  dry_run: z.boolean().optional().describe('Preview only.'),
});
export type EditInput = z.infer<typeof EditInput>;
