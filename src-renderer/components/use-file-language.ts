/**
 * The language a file is coloured with, decided once per file: by its name, or
 * for a name that says nothing by the first window of it that was read (so a
 * log without an extension stays a log as the reader pages through it, and its
 * diffs are coloured the same).
 */
import { isSameFile } from '../model/change-order.ts';
import { languageOf } from '../model/language-of.ts';
import { useViewerStore } from '../stores/viewer-store.ts';

/** path → the language its first read window decided; kept for the session (a few bytes per file opened). */
const decided = new Map<string, string>();

function languageOfOpenFile(path: string | null, windowText: string | undefined): string {
  if (path === null) return languageOf(null);
  const known = decided.get(path);
  if (known) return known;
  const id = languageOf(path, windowText ?? '');
  // Until a window arrives a nameless file is only provisionally plain text.
  if (windowText !== undefined) decided.set(path, id);
  return id;
}

/** The open file's language, for the file view; re-renders only when it changes. */
export function useOpenFileLanguage(): string {
  return useViewerStore((s) => languageOfOpenFile(s.path, s.window?.text));
}

/** The language of a proposal's file, for its diffs: the open file's when it is that file, else by its name. */
export function languageOfProposalFile(path: string): string {
  for (const [opened, id] of decided) if (isSameFile(opened, path)) return id;
  return languageOf(path);
}
