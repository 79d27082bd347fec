/** The app's own operations: recent files (per user) and showing a file in app windows. */
import * as z from 'zod';

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

// app windows

export const AppOpenInput = z.object({
  path: z.string().min(1).describe('The file to show.'),
  lines: z
    .object({ start: z.number().int().positive(), end: z.number().int().positive() })
    .optional()
    .describe('Lines to land on, selected (1-based, inclusive): a folio://open link given to `folio open`.'),
});
export const AppOpenOutput = z.object({
  path: z.string().describe('The absolute path sent to the windows.'),
  windows: z.number().int().nonnegative().describe('How many app windows connected to this server were told to show it (0: none is open).'),
});

// the log viewer's highlight rules (per user) and marked lines (per file, per user)

export const HighlightColor = z.enum(['yellow', 'green', 'blue', 'orange', 'pink', 'purple', 'red', 'cyan']);
export const HighlightRule = z.object({
  pattern: z.string().min(1).max(1000).describe('A JavaScript regex (the search dialect, case-sensitive), or literal text.'),
  literal: z.boolean().describe('The pattern is literal text, not a regex.'),
  color: HighlightColor,
  enabled: z.boolean(),
});
export type HighlightRule = z.infer<typeof HighlightRule>;
export const HighlightsListInput = z.object({});
export const HighlightsSetInput = z.object({ rules: z.array(HighlightRule).describe('The whole list, in order; each must run in linear time.') });
export const HighlightsOutput = z.object({ rules: z.array(HighlightRule) });

export const MarksListInput = z.object({ path: z.string().min(1) });
export const MarkSetInput = z.object({
  path: z.string().min(1),
  line: z.number().int().min(1).describe('1-based line number.'),
  marked: z.boolean().describe('true marks the line, false unmarks it.'),
});
export const MarksOutput = z.object({
  path: z.string().describe('The real path the marks are kept under.'),
  lines: z.array(z.number().int()).describe('Marked lines, ascending.'),
  lost: z
    .array(z.number().int())
    .optional()
    .describe(
      "Present when the file changed and some marks' line text was not found near them (the line was edited or deleted): those marks, which stay at their number moved by the lines inserted or deleted above.",
    ),
});
