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

export const AppOpenInput = z.object({ path: z.string().min(1).describe('The file to show.') });
export const AppOpenOutput = z.object({
  path: z.string().describe('The absolute path sent to the windows.'),
  windows: z.number().int().nonnegative().describe('How many app windows connected to this server were told to show it (0: none is open).'),
});
