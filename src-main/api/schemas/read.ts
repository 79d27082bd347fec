/** read: the window an agent or the app asks for, and the answer on the wire (snake_case only). */
import * as z from 'zod';
import { NewlineStyle, Version, int } from './common.ts';

export const LineRange = z.object({
  start: int(),
  end: int(),
});

export const ReadInput = z
  .object({
    path: z.string().min(1),
    ranges: z.array(LineRange).min(1).max(1000).optional().describe('1-based, inclusive.'),
    offset: int().optional(),
    limit: int().optional(),
    start_byte: int().optional().describe('Snapped to a line start.'),
    max_bytes: int().optional(),
    end_byte: int().optional().describe('Exclusive.'),
    page: int().optional().describe('1-based.'),
    page_chars: int().optional(),
    time: z.string().min(1).optional().describe('First line at/after this log time.'),
    head: int().optional().describe('With tail: both ends.'),
    tail: int().optional(),
    full: z.boolean().optional().describe('Up to 8 MiB.'),
    hashlines: z.boolean().optional().describe('LINE#HASH| anchors for upsert.'),
    invalid_utf8: z.enum(['replace', 'error']).optional(),
    allow_binary: z.boolean().optional(),
    encoding: z.string().optional(),
    section: z.string().min(1).optional().describe('Markdown heading path "A > B".'),
    json_path: z.string().min(1).optional().describe('JSONPath (RFC 9535) "$..b[?@.n > 1]" or JSON Pointer "/a/0".'),
    jsonl_line: int().optional().describe('JSON Lines: line N.'),
    tokenizer: z.enum(['o200k_base', 'cl100k_base']).optional(),
    token_start: int().optional(),
    token_end: int().optional(),
    page_tokens: int().optional(),
  })
  .describe(
    'One mode (none: page 1); pairs: offset+limit, time+limit, start_byte+max_bytes or +end_byte, token_start+token_end (0-based, end exclusive), page_tokens+page.',
  );
export type ReadInput = z.infer<typeof ReadInput>;

export const ReadOutput = z.object({
  path: z.string(),
  source: z.enum(['file', 'object-storage', 'db']).optional().describe('Where the bytes live (every read answers it).'),
  content_type: z.string().optional().describe('MIME type with the charset read: text/plain; charset=utf-8, application/json, text/markdown; …'),
  version: Version,
  encoding: z
    .string()
    .describe("'utf-8', 'utf-16le', 'utf-16be', 'binary', 'unknown', or a detected legacy encoding such as 'windows-1252', 'shift_jis', 'koi8-r'."),
  encoding_confidence: z.number().min(0).max(1).optional().describe('Confidence (0..1) of a detected legacy encoding.'),
  bom: z.boolean(),
  newline_style: NewlineStyle.nullable(),
  total_lines: z.number().int().nullable().describe('Null while a big file is still being indexed (see indexing).'),
  indexing: z
    .object({
      bytes_done: z.number(),
      total_bytes: z.number(),
      stage: z
        .enum(['indexing', 'decompressing'])
        .optional()
        .describe('decompressing: a compressed file is being decompressed into the cache (bytes are compressed bytes).'),
    })
    .nullable()
    .describe('Progress of indexing a big file; null once it is indexed.'),
  mode: z.enum(['lines', 'bytes', 'exact', 'page', 'head', 'tail', 'full', 'json']),
  content: z
    .string()
    .describe(
      'The text, exactly as in the file (without a BOM), or with LINE#HASH| prefixes when hashlines is on. Empty when several line ranges were read: each is in ranges[i].content.',
    ),
  start_line: z.number().int().nullable(),
  end_line: z.number().int().nullable(),
  start_byte: z.number().int(),
  end_byte: z.number().int(),
  hashlines: z.boolean(),
  notes: z.array(z.string()),
  gap: z
    .object({ start_line: z.number().int(), end_line: z.number().int(), lines: z.number().int(), bytes: z.number().int() })
    .optional()
    .describe('head + tail: the lines between them, not shown.'),
  truncated: z.boolean(),
  line_cut: z
    .object({
      line: z.number().int(),
      line_start_byte: z.number().int(),
      line_end_byte: z.number().int(),
      starts_mid_line: z.boolean(),
      ends_mid_line: z.boolean(),
    })
    .optional()
    .describe('Present when a line longer than the window was cut: continue with start_byte = next_start_byte.'),
  invalid_utf8: z.object({ replaced: z.number().int(), first_offset: z.number().int() }).optional(),
  ranges: z
    .array(
      z.object({
        start: z.number().int(),
        end: z.number().int(),
        start_byte: z.number().int(),
        end_byte: z.number().int(),
        content: z.string(),
        clamped: z.boolean(),
      }),
    )
    .optional()
    .describe('Present when several (disjoint, after merging) line ranges were read: each with its own text. One range is the answer itself.'),
  next_start_byte: z.number().int().nullable().optional(),
  file_size: z.number().int().optional(),
  requested_range: z.object({ start_byte: z.number().int(), end_byte: z.number().int() }).optional(),
  actual_range: z.object({ start_byte: z.number().int(), end_byte: z.number().int() }).optional(),
  adjustments: z.array(z.object({ edge: z.enum(['start', 'end']), from: z.number().int(), to: z.number().int(), reason: z.string() })).optional(),
  is_partial: z.boolean().optional(),
  percent_of_file: z.number().optional(),
  page: z.number().int().optional().describe('Char-budget pages: this page (1-based).'),
  next_page: z.number().int().nullable().optional().describe('Char-budget pages: the next page, null on the last.'),
  chars: z.number().int().optional().describe("Char-budget pages: characters (code points) of this page's content."),
  starts_mid_line: z.boolean().optional().describe('Pages: continues a line cut by the page before.'),
  ends_mid_line: z.boolean().optional().describe('Pages: the next page continues this line.'),
  over_budget: z.boolean().optional().describe('Pages: one whole line over page_chars.'),
  section: z
    .object({
      path: z.string().describe('Full heading path of the section.'),
      level: z.number().int(),
      line: z.number().int(),
      end_line: z.number().int(),
      start_byte: z.number().int(),
      end_byte: z.number().int(),
      sha256: z.string().describe('SHA-256 of the whole section: send it as expected_section_sha256 with a section upsert.'),
    })
    .optional(),
  json: z
    .object({
      json_path: z.string(),
      jsonl_line: z.number().int().optional(),
      matches: z.array(
        z.object({
          pointer: z.string().describe('JSON Pointer of the value.'),
          value: z.unknown().optional().describe('The value (absent when omitted for size).'),
          text: z.string().optional().describe('Its exact source text.'),
          omitted: z.boolean().optional().describe('Left out: the answer reached its byte cap; read start_byte-end_byte or a narrower path.'),
          start_line: z.number().int(),
          end_line: z.number().int(),
          start_byte: z.number().int(),
          end_byte: z.number().int(),
        }),
      ),
    })
    .optional(),
  tokens: z
    .object({
      tokenizer: z.string(),
      count: z.number().int().describe("gpt-tokenizer's count of content."),
      start_token: z.number().int().optional().describe('Token modes: line-granular offset of the first returned line.'),
      end_token: z.number().int().optional().describe('Token modes: offset after the last returned line; the next token_start.'),
      total_tokens: z.number().int().nullable().optional().describe('Tokens of the whole file once it has been counted to its end, else null.'),
      page: z.number().int().optional(),
      next_page: z.number().int().nullable().optional(),
      page_tokens: z.number().int().optional(),
    })
    .optional(),
});
export type ReadOutput = z.infer<typeof ReadOutput>;
