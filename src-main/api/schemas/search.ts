/**
 * search: regex over a file or a range of it, one result per matching line;
 * search_tree: the same over every file under a directory (or those matching a
 * glob), with the path of each match, per-file counts and a cursor.
 */
import * as z from 'zod';
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
  // Directory search only (path is a directory):
  glob: z.string().min(1).optional().describe('Directory: e.g. "src/**/*.ts".'),
  context: z.number().int().min(0).max(20).optional().describe('Directory: lines around each match.'),
  cursor: z.string().min(1).optional().describe('Directory: a previous next_cursor.'),
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
  encoding: z.string().optional().describe('What lines were decoded from.'),
  invalid_utf8: z
    .object({ invalid_sequences: z.number().int(), first_offset: z.number().int() })
    .optional()
    .describe('The file has invalid UTF-8: matched as U+FFFD.'),
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
    .array(z.object({ path: z.string(), count: z.number().int(), etag: z.string().nullable() }))
    .describe('Files with matching lines in this answer, how many (count_only: in the whole tree), and the version.etag searched (null: changed meanwhile).'),
  matches: z.array(SearchTreeMatch),
  count: z.number().int().describe('Matching lines in this answer (count_only: in the whole tree).'),
  files_searched: z.number().int(),
  bytes_searched: z.number().int(),
  truncated: z.boolean(),
  next_cursor: z.string().nullable().describe('When truncated: pass as cursor to continue ("<path>:<byte>").'),
  elapsed_ms: z.number(),
});
export type SearchTreeOutput = z.infer<typeof SearchTreeOutput>;
