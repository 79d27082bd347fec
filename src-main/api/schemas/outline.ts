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

export const OutlineOutput = z.object({
  path: z.string(),
  version: Version,
  total_lines: z.number().int(),
  front_matter: OutlineFrontMatter.nullable().describe('YAML (---) or TOML (+++) front matter at the top: not a heading, not markdown.'),
  headings: z.array(OutlineHeading),
  elapsed_ms: z.number(),
});
export type OutlineOutput = z.infer<typeof OutlineOutput>;
