/**
 * Time in logs: time_seek (the first line at or after a time, by bisection of an
 * ordered file) and histogram (line counts per level per time bucket over the
 * whole file or a byte range of it). Browser-safe (no Node built-ins).
 */
import * as z from 'zod';
import { Version, int } from './common.ts';

export const TimeFormat = z.enum(['iso8601', 'syslog', 'apache', 'epoch_s', 'epoch_ms']);

export const TimeSeekInput = z.object({
  path: z.string().min(1),
  time: z
    .union([z.string().min(1), z.number()])
    .describe(
      'A time: "2024-05-01T12:30:00Z", "2024-05-01 12:30", "12:30:05" (on the first line\'s day), "May  1 12:30:05", "01/May/2024:12:30:05 +0000"; or epoch ms.',
    ),
});

export const TimeSeekOutput = z.object({
  path: z.string(),
  version: Version,
  format: TimeFormat.describe('How the lines are stamped (detected from the first lines).'),
  target: z.string().describe('The time asked for, ISO 8601 UTC (zone-less stamps read as UTC).'),
  line: int().describe('The first line stamped at or after target (1-based).'),
  byte_offset: int(),
  time: z.string().describe("That line's time, ISO 8601 UTC."),
  probes: int().describe('Lines probed (each a small read).'),
  elapsed_ms: z.number(),
});

export const HistogramInput = z.object({
  path: z.string().min(1),
  max_buckets: int().optional().describe('At most this many buckets (default 120).'),
  bucket_ms: int().optional().describe('A bucket width of your own, in ms.'),
  start_byte: int().optional().describe("Count only lines starting in [start_byte, end_byte); buckets stay the whole file's, so slices add up."),
  end_byte: int().optional(),
});

const LevelCounts = z.object({ error: int(), warn: int(), info: int(), debug: int(), other: int() });

export const HistogramOutput = z.object({
  path: z.string(),
  version: Version,
  format: TimeFormat,
  first_time: z.string(),
  last_time: z.string(),
  origin_ms: z.number().describe('Bucket i covers [origin_ms + i·bucket_ms, origin_ms + (i+1)·bucket_ms), epoch ms.'),
  bucket_ms: int(),
  buckets: z.array(LevelCounts).describe('Lines per level (error: FATAL/CRIT/ERROR/ERR, warn, info, debug: DEBUG/TRACE, other) per bucket.'),
  unstamped: LevelCounts.describe('Lines before the first stamped line.'),
  outside: LevelCounts.describe('Lines stamped outside the first..last span (the file is not in order).'),
  lines: int(),
  order_break: z
    .object({ line: int(), byte_offset: int(), time_before: z.string(), time: z.string() })
    .nullable()
    .describe('Where stamps first go back in time (null: in order as far as sampled).'),
  scanned: z.object({ start_byte: int(), end_byte: int() }),
  elapsed_ms: z.number(),
});
