/**
 * Pieces every operation's schema uses: the file version, newline styles, the
 * error body, and a line+byte span. Browser-safe (no Node built-ins).
 */
import * as z from 'zod';

export const Version = z.object({
  etag: z.string().describe('Opaque version tag; send it back as if_match on upsert.'),
  size: z.number().int().nonnegative(),
  mtimeMs: z.number(),
  sha256: z.string().optional().describe('Whole-file SHA-256 when known.'),
});
export type Version = z.infer<typeof Version>;

export const NewlineStyle = z.enum(['none', 'lf', 'crlf', 'cr', 'mixed']);
export type NewlineStyle = z.infer<typeof NewlineStyle>;

export const ErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string() }).passthrough(),
});

/** Shorthand for a whole-number field. */
export const int = () => z.number().int();

/** Lines (1-based, inclusive) and bytes (end exclusive) of a region, as upserts and the journal report it. */
export const LineByteRange = z.object({
  start_line: z.number().int(),
  end_line: z.number().int(),
  start_byte: z.number().int(),
  end_byte: z.number().int(),
});
