/**
 * search: regex over a file or a range of it, one result per matching line;
 * search_tree: the same over every file under a directory (or those matching a
 * glob), with the path of each match, per-file counts and a cursor.
 */
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
  // Directory search only (path is a directory):
  glob: z.string().min(1).optional().describe('Directory search: only files whose path relative to `path` matches this glob, e.g. "src/**/*.ts".'),
  context: z.number().int().min(0).max(20).optional().describe('Directory search: this many lines before and after each match (context_before/context_after).'),
  cursor: z.string().min(1).optional().describe("Directory search: continue from a previous answer's next_cursor."),
});
export type SearchInput = z.infer<typeof SearchInput>;

const SearchMatch = z.object({
  line: z.number().int(),
  byte_offset: z.number().int(),
  column: z.number().int(),
  text: z.string(),
  text_truncated: z.boolean(),
});

export const SearchOutput = z.object({
  path: z.string(),
  version: Version,
  total_lines: z.number().int().nullable(),
  matches: z.array(SearchMatch),
  count: z.number().int(),
  truncated: z.boolean(),
  next_start_byte: z.number().int().nullable(),
  scanned: z
    .object({ start_byte: z.number().int(), end_byte: z.number().int() })
    .describe('The byte range searched: start snapped to its line start, end to the end of its line.'),
  elapsed_ms: z.number(),
});
export type SearchOutput = z.infer<typeof SearchOutput>;

export const SearchTreeMatch = SearchMatch.extend({
  path: z.string().describe('The file, relative to the searched directory.'),
  context_before: z.array(z.string()).optional().describe('With context: up to that many lines before the match (files under 64 MiB).'),
  context_after: z.array(z.string()).optional().describe('With context: up to that many lines after the match.'),
});

/** A directory search: matches of every file, in walk order (depth first, names sorted), capped; next_cursor continues. */
export const SearchTreeOutput = z.object({
  path: z.string().describe('The searched directory (resolved); match and file paths are relative to it.'),
  glob: z.string().nullable(),
  files: z
    .array(z.object({ path: z.string(), count: z.number().int() }))
    .describe('Files with matching lines in this answer and how many (count_only: in the whole tree).'),
  matches: z.array(SearchTreeMatch),
  count: z.number().int().describe('Matching lines in this answer (count_only: in the whole tree).'),
  files_searched: z.number().int(),
  bytes_searched: z.number().int(),
  truncated: z.boolean(),
  next_cursor: z.string().nullable().describe('When truncated: pass as cursor to continue ("<path>:<byte>").'),
  elapsed_ms: z.number(),
});
export type SearchTreeOutput = z.infer<typeof SearchTreeOutput>;
