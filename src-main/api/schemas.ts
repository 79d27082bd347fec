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
  encoding: z.string().describe("'utf-8', 'utf-16le', 'utf-16be', 'binary', 'unknown', or a detected legacy encoding such as 'windows-1252', 'iso-8859-1', 'shift_jis', 'gb18030', 'euc-jp', 'koi8-r'."),
  encodingConfidence: z.number().min(0).max(1).optional().describe('Confidence (0..1) of a detected legacy encoding.'),
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

// ---------------------------------------------------------------------------
// read

const int = () => z.number().int();

export const LineRange = z.object({
  start: int().describe('First line, 1-based.'),
  end: int().describe('Last line, inclusive.'),
});

export const ReadInput = z
  .object({
    path: z.string().min(1).describe('File to read.'),
    ranges: z.array(LineRange).min(1).max(1000).optional().describe('Line ranges, 1-based inclusive; several per call, overlaps merged. Ask for everything you need at once.'),
    offset: int().optional().describe('Shorthand for ranges: first line (1-based); with limit.'),
    limit: int().optional().describe('Shorthand for ranges: number of lines from offset.'),
    start_byte: int().optional().describe('Byte window start (snapped to its line start), or exact range start with end_byte.'),
    max_bytes: int().optional().describe('Byte window size, default 65536, capped at 262144; rounded to whole lines.'),
    end_byte: int().optional().describe('Exact byte range end (exclusive), adjusted to UTF-8 character boundaries.'),
    page: int().optional().describe('Page number (1-based) of char-budget pages; the default mode is page 1.'),
    page_chars: int().optional().describe('Page budget in characters, default 50000.'),
    head: int().optional().describe('First N lines.'),
    tail: int().optional().describe('Last N lines.'),
    full: z.boolean().optional().describe('The whole file, only if it is at most 8 MiB.'),
    hashlines: z.boolean().optional().describe('Prefix each line with LINE#HASH| (3 hex digits) to use as anchors in upserts.'),
    invalid_utf8: z.enum(['replace', 'error']).optional().describe("Invalid UTF-8: 'replace' with U+FFFD and report (default) or 'error' (encoding_mismatch)."),
    allow_binary: z.boolean().optional().describe('Read a binary file anyway (decoded with replacement).'),
    section: z.string().min(1).optional().describe('Markdown: the section under this heading path, heading texts joined with " > " (e.g. "Install > Linux"); the path may start at any level. A duplicate path takes a 1-based suffix: "Install > Linux[2]". See the outline operation.'),
    json_path: z.string().min(1).optional().describe('JSON: the values at this JSONPath ("$.a.b", "$.items[*][id,name]") or JSON Pointer ("/a/b/0"), each with its exact text, byte and line range.'),
    jsonl_line: int().optional().describe('JSON Lines: with json_path, the path inside line N (1-based).'),
    tokenizer: z.enum(['o200k_base', 'cl100k_base']).optional().describe('Count tokens of the answer with this tokenizer (default o200k_base for token modes): tokens {tokenizer, count}.'),
    token_start: int().optional().describe('Token range of the file, 0-based, with token_end (exclusive): whole lines covering it. Tokens are counted line by line.'),
    token_end: int().optional().describe('End of the token range (exclusive).'),
    page_tokens: int().optional().describe('Pages of whole lines of at most this many tokens (and at most 262144 bytes); with page (default 1).'),
  })
  .describe('Read a window of a file. Give one mode: ranges (or offset+limit), start_byte (+max_bytes) for a byte window, start_byte+end_byte for exact bytes, page, head, tail, full, section (markdown), json_path (JSON), token_start+token_end or page_tokens (+page); none means page 1.');
export type ReadInput = z.infer<typeof ReadInput>;

const ReadVersion = Version;

export const ReadOutput = z.object({
  path: z.string(),
  version: ReadVersion,
  encoding: z.string().describe("'utf-8', 'utf-16le', 'utf-16be', 'binary', 'unknown', or a detected legacy encoding such as 'windows-1252', 'shift_jis', 'koi8-r'."),
  encoding_confidence: z.number().min(0).max(1).optional().describe('Confidence (0..1) of a detected legacy encoding.'),
  bom: z.boolean(),
  newline_style: NewlineStyle.nullable(),
  total_lines: z.number().int().nullable().describe('Null while a big file is still being indexed (see indexing).'),
  indexing: z.object({ bytesDone: z.number(), totalBytes: z.number() }).nullable(),
  mode: z.enum(['lines', 'bytes', 'exact', 'page', 'head', 'tail', 'full', 'json']),
  content: z
    .string()
    .describe('The text, exactly as in the file (without a BOM), or with LINE#HASH| prefixes when hashlines is on. Empty when several line ranges were read: each is in ranges[i].content.'),
  start_line: z.number().int().nullable(),
  end_line: z.number().int().nullable(),
  start_byte: z.number().int(),
  end_byte: z.number().int(),
  hashlines: z.boolean(),
  notes: z.array(z.string()),
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
  adjustments: z
    .array(z.object({ edge: z.enum(['start', 'end']), from: z.number().int(), to: z.number().int(), reason: z.string() }))
    .optional(),
  is_partial: z.boolean().optional(),
  percent_of_file: z.number().optional(),
  page: z.number().int().optional(),
  lineStart: z.number().int().optional(),
  lineEnd: z.number().int().optional(),
  totalLines: z.number().int().nullable().optional(),
  nextPage: z.number().int().nullable().optional(),
  chars: z.number().int().optional(),
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

// ---------------------------------------------------------------------------
// outline (markdown)

export const OutlineInput = z.object({
  path: z.string().min(1).describe('Markdown file.'),
  max_level: int().min(1).max(6).optional().describe('Only headings up to this level (sections still end where the next heading of any listed-or-not level of the same or higher rank starts).'),
});
export type OutlineInput = z.infer<typeof OutlineInput>;

export const OutlineHeading = z.object({
  level: z.number().int(),
  text: z.string(),
  path: z.string().describe('Heading texts from the outermost section down, joined with " > "; usable as read/upsert section.'),
  line: z.number().int(),
  heading_end_line: z.number().int().describe('Last line of the heading itself (a setext heading has two).'),
  end_line: z.number().int().describe('Last line of the section.'),
  start_byte: z.number().int(),
  end_byte: z.number().int(),
  sha256: z.string().describe('SHA-256 of the section bytes [start_byte, end_byte).'),
});

export const OutlineOutput = z.object({
  path: z.string(),
  version: Version,
  total_lines: z.number().int(),
  headings: z.array(OutlineHeading),
  elapsed_ms: z.number(),
});
export type OutlineOutput = z.infer<typeof OutlineOutput>;

// ---------------------------------------------------------------------------
// search

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
  scanned: z.object({ startByte: z.number().int(), endByte: z.number().int() }),
  elapsed_ms: z.number(),
});
export type SearchOutput = z.infer<typeof SearchOutput>;

// ---------------------------------------------------------------------------
// upsert

const Units = z.enum(['lines', 'bytes']).describe('lines (1-based, inclusive) or bytes (0-based, end exclusive); default lines');

export const UpsertTarget = z.union([
  z.object({ insert: z.object({ at: int().describe('Insert before this line (total+1: at the end) or at this byte.'), units: Units.optional() }) }),
  z.object({ replace: z.object({ start: int(), end: int(), units: Units.optional() }) }),
  z.object({ delete: z.object({ start: int(), end: int(), units: Units.optional() }) }),
  z.object({ append: z.object({ at_end: z.literal(true) }) }),
]);
export type UpsertTarget = z.infer<typeof UpsertTarget>;

/** What an upsert may name: a position (UpsertTarget, what proposals store), or a section or JSON path resolved to one. */
export const UpsertAnyTarget = z.union([
  ...UpsertTarget.options,
  z.object({
    section: z.object({
      path: z.string().min(1).describe('Heading path, as in read section.'),
      position: z.enum(['replace', 'insert', 'append']).describe('replace the section, insert right after its heading, or append at its end (before the next heading).'),
      include_heading: z.boolean().optional().describe('replace only: true (default) replaces the heading line(s) too; false keeps them and replaces the body.'),
    }),
  }),
  z.object({
    json: z.object({
      path: z.string().min(1).describe('JSONPath or JSON Pointer of one value.'),
      op: z.enum(['set', 'insert', 'delete']).describe('set (creates a missing member/item whose parent exists), insert into the array at path, or delete.'),
      value: z.unknown().optional().describe('The JSON value for set and insert.'),
      index: int().optional().describe('insert: position in the array (default: the end).'),
      jsonl_line: int().optional().describe('JSON Lines: the line (1-based) the path is inside.'),
    }),
  }),
]);

export const UpsertInput = z.object({
  path: z.string().min(1),
  target: UpsertAnyTarget.describe('Where: {insert: {at}}, {replace: {start, end}}, {delete: {start, end}}, {append: {at_end: true}}, {section: {path, position}} (markdown) or {json: {path, op, value}}.'),
  content: z.string().optional().describe('New text (not for delete). For line targets it is whole lines; a final newline is added if missing.'),
  if_match: z.string().optional().describe('Precondition: the etag from your read (version.etag).'),
  expected_sha256: z.string().optional().describe('Precondition: SHA-256 of the whole file.'),
  if_not_modified_since: z.union([z.number(), z.string()]).optional().describe('Precondition: the file was not modified after this time (ms since epoch or ISO 8601).'),
  expected_range_sha256: z.string().optional().describe('Range precondition: SHA-256 of the bytes being replaced or deleted.'),
  anchors: z.array(z.string()).optional().describe('Range precondition: hashline anchors like "12#a3f" from a read with hashlines. When range preconditions match, the edit applies even if other parts of the file changed.'),
  expected_section_sha256: z.string().optional().describe('Section targets: the section sha256 from outline or a section read; the edit applies only if the section is unchanged.'),
  normalize_newlines: z.boolean().optional().describe("Convert the content's newlines to the file's style (default true)."),
  dry_run: z.boolean().optional().describe('Validate and preview, write nothing.'),
});
export type UpsertInput = z.infer<typeof UpsertInput>;

const LineByteRange = z.object({
  start_line: z.number().int(),
  end_line: z.number().int(),
  start_byte: z.number().int(),
  end_byte: z.number().int(),
});

export const UpsertOutput = z.object({
  path: z.string(),
  applied: z.boolean(),
  dry_run: z.boolean(),
  version_before: Version,
  version_after: Version.nullable(),
  range_before: LineByteRange,
  range_after: LineByteRange,
  affected: z.object({
    bytes: z.object({ removed: z.number().int(), inserted: z.number().int() }),
    lines: z.object({ removed: z.number().int(), inserted: z.number().int() }),
  }),
  preconditions: z.object({
    checked: z.array(z.string()),
    whole_file: z.enum(['matched', 'differed', 'not_checked']),
    range: z.enum(['matched', 'not_checked']),
  }),
  preview: z.string().describe('Unified diff of the region with 3 lines of context.'),
  notes: z.array(z.string()),
  elapsed_ms: z.number(),
});
export type UpsertOutput = z.infer<typeof UpsertOutput>;

// ---------------------------------------------------------------------------
// review (proposals, journal, undo/redo; state under <root>/.folio/review)

export const ReviewActor = z.object({ kind: z.enum(['human', 'agent']), name: z.string() });
export const ProposalStatus = z.enum(['pending', 'applied', 'rejected', 'conflict']);

export const ReviewProposal = z.object({
  id: z.string(),
  status: ProposalStatus,
  path: z.string().describe('Relative to the workspace root when inside it.'),
  actor: ReviewActor.describe('Who proposed the edit.'),
  target: UpsertTarget,
  preconditions: z.object({
    if_match: z.string().optional(),
    expected_sha256: z.string().optional(),
    if_not_modified_since: z.number().optional(),
    expected_range_sha256: z.string().optional(),
    anchors: z.array(z.string()).optional(),
  }),
  normalize_newlines: z.boolean(),
  preview: z.string().describe('Unified diff of the dry run made when the proposal was stored.'),
  version_seen: Version,
  content_bytes: z.number().int(),
  content_sha256: z.string(),
  edited: z.boolean().describe('A person replaced the content before approving.'),
  content: z.string().optional().describe('The proposed text (review_show only).'),
  edited_content: z.string().optional().describe('The text that was applied instead (review_show only).'),
  created_at: z.string(),
  decided_by: ReviewActor.nullable(),
  decided_at: z.string().nullable(),
  reason: z.string().nullable().describe('Why it was rejected, when given.'),
  conflict: z.record(z.string(), z.unknown()).nullable().describe('On conflict: the engine error (code, message, failed, current_version, read, ...).'),
  journal_id: z.string().nullable(),
});
export type ReviewProposal = z.infer<typeof ReviewProposal>;

export const JournalEvent = z.object({
  action: z.enum(['apply', 'undo', 'redo']),
  seq: z.number().int(),
  by: ReviewActor,
  at: z.string(),
  version_before: Version,
  version_after: Version,
});

export const ReviewJournalEntry = z.object({
  id: z.string(),
  seq: z.number().int().describe('Global order of the first application.'),
  proposal_id: z.string().nullable(),
  actor: ReviewActor,
  decided_by: ReviewActor,
  path: z.string(),
  version_before: Version,
  version_after: Version,
  range_before: LineByteRange,
  range_after: LineByteRange,
  removed_bytes: z.number().int(),
  removed_sha256: z.string(),
  removed_in_blob: z.boolean(),
  inserted_bytes: z.number().int(),
  inserted_sha256: z.string(),
  applied_at: z.string(),
  undone: z.boolean(),
  history: z.array(JournalEvent),
});
export type ReviewJournalEntry = z.infer<typeof ReviewJournalEntry>;

export const ReviewListInput = z.object({
  status: ProposalStatus.optional().describe('Only proposals with this status.'),
  path: z.string().optional().describe('Only proposals for this file.'),
});
export const ReviewListOutput = z.object({ proposals: z.array(ReviewProposal) });

export const ReviewIdInput = z.object({ id: z.string().min(1).describe('Proposal id.') });
export const ReviewShowOutput = z.object({ proposal: ReviewProposal, entry: ReviewJournalEntry.nullable() });

export const ReviewApproveInput = z.object({
  id: z.string().min(1),
  content: z.string().optional().describe('Edit-then-approve: this text replaces the proposed one (same target and preconditions).'),
});
export const ReviewApproveOutput = z.object({
  proposal: ReviewProposal,
  entry: ReviewJournalEntry,
  preview: z.string().describe('Unified diff of what was written.'),
});

export const ReviewRejectInput = z.object({ id: z.string().min(1), reason: z.string().optional() });
export const ReviewRejectOutput = z.object({ proposal: ReviewProposal });

export const ReviewStepInput = z.object({
  id: z.string().min(1).optional().describe('Exactly this journal entry instead of the latest (it must pass the path and actor filters).'),
  path: z.string().optional().describe('Only edits of this file (default: the latest in any file).'),
  include_others: z.boolean().optional().describe('Also edits decided by other actors (default: only yours).'),
});
export const ReviewStepOutput = z.object({
  action: z.enum(['undo', 'redo']),
  entry: ReviewJournalEntry,
  version_before: Version,
  version_after: Version.nullable(),
  preview: z.string(),
});

export const ReviewHistoryInput = z.object({ path: z.string().optional() });
export const ReviewHistoryOutput = z.object({ entries: z.array(ReviewJournalEntry) });

// ---------------------------------------------------------------------------
// audit

export const AuditInput = z.object({
  path: z.string().optional().describe('Only entries for this path (as logged: the real path).'),
  since: z.union([z.number(), z.string()]).optional().describe('Only entries at or after this time (ms since epoch or ISO 8601).'),
});
export const AuditOutput = z.object({
  entries: z.array(
    z
      .object({
        time: z.string(),
        actor: z.object({ kind: z.enum(['human', 'agent']), name: z.string() }),
        op: z.string(),
        path: z.string().optional(),
        outcome: z.enum(['ok', 'error']),
        code: z.string().optional(),
        reason: z.string().optional(),
        range: z
          .object({ start_line: z.number().nullable().optional(), end_line: z.number().nullable().optional(), start_byte: z.number().optional(), end_byte: z.number().optional() })
          .optional(),
        version_before: z.string().optional(),
        version_after: z.string().optional(),
        bytes_read: z.number().optional(),
        bytes_written: z.number().optional(),
      }),
  ),
});

// ---------------------------------------------------------------------------
// recent files (per user)

export const RecentEntry = z.object({
  path: z.string().describe('The real path when it was opened.'),
  opened_at: z.string(),
  missing: z.boolean().describe('The file is gone (or no longer a regular file).'),
});
export type RecentEntry = z.infer<typeof RecentEntry>;
export const RecentListInput = z.object({});
export const RecentAddInput = z.object({ path: z.string().min(1).describe('The file just opened.') });
export const RecentOutput = z.object({ entries: z.array(RecentEntry).describe('Most recent first, one per real path.') });

// ---------------------------------------------------------------------------
// app windows

export const AppOpenInput = z.object({ path: z.string().min(1).describe('The file to show.') });
export const AppOpenOutput = z.object({
  path: z.string().describe('The absolute path sent to the windows.'),
  windows: z.number().int().nonnegative().describe('How many app windows connected to this server were told to show it (0: none is open).'),
});
