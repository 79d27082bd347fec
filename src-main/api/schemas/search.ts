/** search: regex over a file or a range of it, one result per matching line. */
import { z } from 'zod';
import { Version, int } from './common.ts';

export const SearchInput = z.object({
  path: z.string().min(1),
  pattern: z.string().min(1).describe('JavaScript regular expression, matched against each line.'),
  flags: z.string().optional().describe("Regex flags, any of 'imsu'."),
  start_byte: int().optional().describe('Search from this byte (snapped to its line start); use a previous next_start_byte to continue.'),
  end_byte: int().optional(),
  start_line: int().optional().describe('Search from this line (1-based).'),
  end_line: int().optional().describe('Search up to this line (inclusive).'),
  max: int().optional().describe('Cap on matching lines returned, default 100, at most 10000.'),
  max_line_chars: int().optional().describe('Matched lines are cut to this many characters around the match, default 400.'),
  count_only: z.boolean().optional().describe('Only count matching lines (like grep -c).'),
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
