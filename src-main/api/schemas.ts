/**
 * Zod schemas of every operation's input and output: THE contract. Types used by
 * the renderer and the doors are inferred from here, never re-declared.
 * This module must stay importable from the browser (no Node built-ins).
 */
import { z } from 'zod';

export const Version = z.object({
  etag: z.string().describe('Opaque version tag; send it back as if_match on upsert.'),
  size: z.number().int().nonnegative(),
  mtimeMs: z.number(),
  sha256: z.string().optional().describe('Whole-file SHA-256 when known.'),
});
export type Version = z.infer<typeof Version>;

export const FileInfoInput = z.object({
  path: z.string().min(1).describe('Path of the file (absolute, or relative to the working directory).'),
});
export type FileInfoInput = z.infer<typeof FileInfoInput>;

export const NewlineStyle = z.enum(['none', 'lf', 'crlf', 'cr', 'mixed']);
export type NewlineStyle = z.infer<typeof NewlineStyle>;

export const FileInfo = z.object({
  path: z.string(),
  version: Version,
  size: z.number().int().nonnegative(),
  lines: z.number().int().nonnegative().describe('Line count: newlines, plus one if the last line has no final newline.'),
  newlines: z.number().int().nonnegative().describe('Count of "\\n" bytes (what wc -l prints).'),
  encoding: z.enum(['utf-8', 'utf-16le', 'utf-16be', 'binary', 'unknown']),
  bom: z.boolean().describe('The file starts with a byte-order mark.'),
  newlineStyle: NewlineStyle,
  finalNewline: z.boolean(),
  utf8: z.object({ valid: z.boolean(), firstInvalidOffset: z.number().int().nullable() }),
  binary: z.object({
    isBinary: z.boolean(),
    type: z.string().nullable().describe('Detected type (MIME) when known.'),
    ext: z.string().nullable(),
    reason: z.string(),
  }),
  index: z.object({
    memoryBytes: z.number().int().nonnegative(),
    blocks: z.number().int().nonnegative(),
    buildMs: z.number().nonnegative(),
    fromCache: z.boolean(),
  }),
});
export type FileInfo = z.infer<typeof FileInfo>;

export const ErrorBody = z.object({
  error: z.object({ code: z.string(), message: z.string() }).passthrough(),
});
