/** edit: change a file by quoting the text to replace (Claude Code's Edit / MultiEdit), all edits or none. */
import { z } from 'zod';

export const QuotedEditInput = z.object({
  path: z.string().min(1).optional().describe('Another file than path: several files, all or none.'),
  old_text: z.string().min(1).describe("Text to replace, exactly as in the file (a \\n stands for the file's newline). Must occur once, unless replace_all."),
  new_text: z.string().describe('Its replacement.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence (at least one).'),
});

export const EditInput = z.object({
  path: z.string().min(1).optional(),
  edits: z.array(QuotedEditInput).min(1).describe('Applied together on one version, all or none; they must not overlap.'),
  if_match: z.string().optional().describe('Optional: the etag of your read. The quotes themselves are the precondition.'),
  dry_run: z.boolean().optional().describe('Validate and preview, write nothing.'),
});
export type EditInput = z.infer<typeof EditInput>;
