/**
 * SQL over logs (issue 31): one read-only SELECT over the table `log`, whose rows
 * are the lines of one or more files with the fields Folio reads from them.
 * Browser-safe (no Node built-ins).
 */
import * as z from 'zod';
import { int } from './common.ts';

export const QueryInput = z.object({
  paths: z.array(z.string().min(1)).min(1).describe('The log files; several make one table, told apart by its file column.'),
  sql: z
    .string()
    .min(1)
    .describe(
      'One SELECT over the table log: file, line (1-based), offset (byte), lines (the row spans: a stamped line and the unstamped lines under it), ' +
        'time (ISO 8601 UTC or null), level (error, warn, info, debug, other), message, raw, fields (JSON of the keys), then one column per key ' +
        "of key=value pairs and JSON bodies seen in the first rows (others: json_extract(fields, '$.key')). SQLite syntax.",
    ),
  limit: int().min(1).max(100_000).optional().describe('At most this many rows back (default 1000); capped says there were more.'),
});

const Cell = z.union([z.string(), z.number(), z.null()]);

export const QueryOutput = z.object({
  columns: z.array(z.string()),
  rows: z.array(z.array(Cell)),
  row_count: int(),
  capped: z.boolean().describe('More rows matched than limit: add LIMIT/GROUP BY or raise limit.'),
  links: z
    .array(z.object({ path: z.string(), line: int() }).nullable())
    .nullable()
    .describe("Per row, the line it came from (a read's start_line) when the query selected the log's line (and file, over several files); else null."),
  key_columns: z.array(z.string()).describe('The key columns the table had.'),
  elapsed_ms: z.number(),
});
