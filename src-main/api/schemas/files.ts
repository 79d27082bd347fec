/** file_info: what a file is (size, lines, encoding, newlines, binary verdict) and its version. */
import * as z from 'zod';
import { NewlineStyle, Version } from './common.ts';

export const FileInfoInput = z.object({
  path: z.string().min(1),
});
export type FileInfoInput = z.infer<typeof FileInfoInput>;

export const FileInfo = z.object({
  path: z.string(),
  version: Version,
  size: z.number().int().nonnegative(),
  lines: z.number().int().nonnegative().describe('Line count: newlines, plus one if the last line has no final newline.'),
  newlines: z.number().int().nonnegative().describe('Count of "\\n" bytes (what wc -l prints).'),
  encoding: z
    .string()
    .describe(
      "'utf-8', 'utf-16le', 'utf-16be', 'binary', 'unknown', or a detected legacy encoding such as 'windows-1252', 'iso-8859-1', 'shift_jis', 'gb18030', 'euc-jp', 'koi8-r'.",
    ),
  encoding_confidence: z.number().min(0).max(1).optional().describe('Confidence (0..1) of a detected legacy encoding.'),
  bom: z.boolean().describe('The file starts with a byte-order mark.'),
  newline_style: NewlineStyle.describe('The dominant line ending; inserted text follows it.'),
  newline_counts: z.object({ lf: z.number().int(), crlf: z.number().int(), cr: z.number().int() }).describe('LF alone, CR LF, CR alone.'),
  final_newline: z.boolean(),
  utf8: z.object({
    valid: z.boolean(),
    first_invalid_offset: z.number().int().nullable(),
    invalid_sequences: z.number().int().nullable().describe('Whole file: ill-formed sequences (one U+FFFD each).'),
    multibyte_chars: z.number().int().nullable().describe('Whole file: valid 2-4 byte characters.'),
  }),
  binary: z.object({
    is_binary: z.boolean(),
    type: z.string().nullable().describe('Detected type (MIME) when known.'),
    ext: z.string().nullable(),
    reason: z.string(),
  }),
  index: z.object({
    memory_bytes: z.number().int().nonnegative(),
    blocks: z.number().int().nonnegative(),
    build_ms: z.number().nonnegative(),
    from_cache: z.boolean(),
  }),
  backend: z
    .object({
      scheme: z.string(),
      version: z.string().describe("The backend's own version: xmin@ctid for PostgreSQL, the ETag for an object."),
      index_from: z
        .enum(['sidecar', 'stream', 'memory', 'extended'])
        .describe(
          'Where the line index came from: the sidecar kept with the value, a stream of it, this process, or the last version extended over appended bytes.',
        ),
    })
    .optional()
    .describe('Only for a remote locator (pg://, az://, s3://).'),
  compressed: z
    .object({
      format: z.enum(['gzip', 'zstd', 'bzip2']),
      compressed_bytes: z.number().int().nonnegative(),
      etag: z.string().describe("The compressed file's own etag: the if_match of a delete_file or move_file of it."),
    })
    .optional()
    .describe("A compressed file, read decompressed from Folio's cache: size, lines and version are of the decompressed text. Not writable."),
});
export type FileInfo = z.infer<typeof FileInfo>;
