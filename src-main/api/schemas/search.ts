/** search: regex over a file or a range of it, one result per matching line. */
import { z } from 'zod';
import { Version, int } from './common.ts';

export const SearchInput = z.object({
  path: z.string().min(1),
  pattern: z.string().min(1).describe('JavaScript regex.'),
  flags: z.string().optional().describe('Of imsu.'),
  start_byte: int().optional(),
  end_byte: int().optional(),
  start_line: int().optional(),
  end_line: int().optional(),
  max: int().optional(),
  max_line_chars: int().optional(),
  count_only: z.boolean().optional().describe('Like grep -c.'),
});
export type SearchInput = z.infer<typeof SearchInput>;

export const SearchOutput = z.object({
  path: z.string(),
  version: Version,
  total_lines: z.number().int().nullable(),
  matches: z.array(
    z.object({
      line: z.number().int(),
      byte_offset: z.number().int(),
      column: z.number().int(),
      text: z.string(),
      text_truncated: z.boolean(),
    }),
  ),
  count: z.number().int(),
  truncated: z.boolean(),
  next_start_byte: z.number().int().nullable(),
  scanned: z
    .object({ start_byte: z.number().int(), end_byte: z.number().int() })
    .describe('The byte range searched: start snapped to its line start, end to the end of its line.'),
  elapsed_ms: z.number(),
});
export type SearchOutput = z.infer<typeof SearchOutput>;
