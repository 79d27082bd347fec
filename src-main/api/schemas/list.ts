/** list: the files and directories under a directory, depth-limited and capped. */
import * as z from 'zod';
import { int } from './common.ts';

export const ListInput = z.object({
  path: z.string().min(1),
  glob: z.string().min(1).optional().describe('e.g. "**/*.md"'),
  depth: int().optional().describe('Default 3.'),
  max: int().optional().describe('Default 1000.'),
});
export type ListInput = z.infer<typeof ListInput>;

export const ListOutput = z.object({
  path: z.string().describe('The listed directory (resolved); entry paths are relative to it.'),
  entries: z.array(
    z.object({
      path: z.string(),
      kind: z.enum(['text', 'binary', 'directory']),
      size: z.number().int().describe('Bytes; 0 for a directory.'),
      mtime: z.string().describe('Last modification, ISO 8601.'),
      depth: z.number().int().describe("1 for the directory's own entries."),
      lines: z.number().int().nullable().describe('Line count when the file is already indexed (after a read or file_info), else null.'),
      etag: z.string().nullable().describe('The version, as read answers it: if_match for move, delete or upsert. Null for a directory.'),
    }),
  ),
  truncated: z.boolean().describe('More entries exist than max.'),
  elapsed_ms: z.number(),
});
export type ListOutput = z.infer<typeof ListOutput>;
