/** audit_log: one entry per agent operation of the workspace. */
import * as z from 'zod';

export const AuditInput = z.object({
  path: z.string().optional().describe('Only entries for this path (as logged: the real path).'),
  since: z.union([z.number(), z.string()]).optional().describe('Only entries at or after this time (ms since epoch or ISO 8601).'),
});
export const AuditOutput = z.object({
  entries: z.array(
    z.object({
      time: z.string(),
      actor: z.object({ kind: z.enum(['human', 'agent']), name: z.string() }),
      op: z.string(),
      path: z.string().optional(),
      outcome: z.enum(['ok', 'error']),
      code: z.string().optional(),
      reason: z.string().optional(),
      caller_reason: z.string().optional().describe('The reason the agent gave for the call, when it gave one.'),
      range: z
        .object({
          start_line: z.number().nullable().optional(),
          end_line: z.number().nullable().optional(),
          start_byte: z.number().optional(),
          end_byte: z.number().optional(),
        })
        .optional(),
      version_before: z.string().optional(),
      version_after: z.string().optional(),
      bytes_read: z.number().optional(),
      bytes_written: z.number().optional(),
    }),
  ),
});
