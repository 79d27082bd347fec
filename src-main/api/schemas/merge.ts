/**
 * merge: several logs as one view in time order, a window at a time (issue 31).
 * Browser-safe (no Node built-ins).
 */
import * as z from 'zod';
import { Version, int } from './common.ts';
import { TimeFormat } from './time.ts';

/** Lines a window holds at most. */
export const MERGE_MAX_LINES = 10_000;

const Time = z.union([z.string().min(1), z.number()]);

export const MergeInput = z.object({
  paths: z.array(z.string().min(1)).min(1).describe('The logs, in the order that breaks ties (equal times: the earlier file first).'),
  from: Time.optional().describe('Start at the first line stamped at or after this time (as time_seek takes it), found by bisection in each file.'),
  to: Time.optional().describe('End after the last line stamped at or before this time.'),
  cursor: z.string().min(1).optional().describe('next_cursor of the previous window: go on from there (from is then ignored; give the same paths and to).'),
  match: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Only the lines this JavaScript regex matches (as grep after the merge); a window then holds that many matching lines. Give it with every cursor.',
    ),
  match_flags: z.string().optional().describe('Flags of match, of imsu (i: ignore case).'),
  lines: int().min(1).max(MERGE_MAX_LINES).optional().describe(`Lines in this window (default 200, at most ${MERGE_MAX_LINES}).`),
});

export const MergeLine = z.object({
  file: int().describe("Index of the line's file in paths."),
  path: z.string().describe('That file, as given in paths.'),
  line: int().describe('1-based line number in that file.'),
  time: z.string().nullable().describe("The line's time, ISO 8601 UTC (an unstamped line: the stamped line's above it; null before the file's first stamp)."),
  text: z.string().describe('The line without its terminator.'),
});

export const MergeOutput = z.object({
  files: z.array(
    z.object({
      path: z.string(),
      version: Version,
      format: TimeFormat.nullable().describe('How its lines are stamped (null: an empty file).'),
    }),
  ),
  lines: z.array(MergeLine),
  next_cursor: z.string().nullable().describe('Send as cursor for the next window; null: the merged view (up to `to`) has ended.'),
  end_cursor: z
    .string()
    .nullable()
    .describe(
      'Once the view has ended at the end of its files (next_cursor null, no `to` cutting it): a cursor at those ends; send it later as cursor for the lines written since (follow). null otherwise.',
    ),
  bytes_read: int().describe('Bytes read from the files for this window (the bisection of `from` aside).'),
  elapsed_ms: z.number(),
});

export const MergeFilesInput = z.object({
  paths: z.array(z.string().min(1)).min(1).describe('Files, directories (their regular files, not below) and globs (picomatch: logs/*.log, logs/**/*.log).'),
});

export const MergeFilesOutput = z.object({
  paths: z.array(z.string()).describe("The files to merge, in order: a file as given; a directory's or a glob's files whose lines are stamped, by name."),
});
