/** outline: the headings of a markdown file, usable as read/upsert sections. */
import * as z from 'zod';
import { Version, int } from './common.ts';

export const OutlineInput = z.object({
  path: z.string().min(1),
  max_level: int().min(1).max(6).optional(),
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

export const OutlineFrontMatter = z.object({
  kind: z.enum(['yaml', 'toml']),
  section: z.string().describe('The section name that reads or upserts it: "front matter".'),
  line: z.number().int(),
  end_line: z.number().int().describe('The closing delimiter line.'),
  start_byte: z.number().int(),
  end_byte: z.number().int(),
  sha256: z.string().describe('SHA-256 of the bytes [start_byte, end_byte), delimiters included.'),
});

/** A log's outline (a stamped file that is not markdown): its time span and lines per level per time bucket, compact. */
export const OutlineLog = z.object({
  format: z.string().describe('How its lines are stamped: iso8601, syslog, apache, epoch_s, epoch_ms.'),
  first_time: z.string(),
  last_time: z.string(),
  bucket_ms: z.number().int(),
  levels: z.array(z.string()).describe('The order of the counts in each bucket: error, warn, info, debug, other.'),
  buckets: z
    .array(z.object({ time: z.string().describe('Its start, ISO 8601 UTC: read {time, limit} reads from there.'), counts: z.array(z.number().int()) }))
    .describe('At most 24, in time order.'),
  lines: z.number().int(),
  out_of_order_at_line: z.number().int().nullable().describe('Where stamps first go back in time (null: in order).'),
});

export const OutlineOutput = z.object({
  path: z.string(),
  version: Version,
  total_lines: z.number().int(),
  front_matter: OutlineFrontMatter.nullable().describe('YAML (---) or TOML (+++) front matter at the top: not a heading, not markdown.'),
  headings: z.array(OutlineHeading),
  log: OutlineLog.optional().describe('A stamped file that is not markdown: its histogram instead of headings.'),
  elapsed_ms: z.number(),
});
export type OutlineOutput = z.infer<typeof OutlineOutput>;
