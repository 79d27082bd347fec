/**
 * The person's recently opened files, per user (not per workspace): one small
 * JSON file in the config directory, `$FOLIO_CONFIG_DIR` (tests), else
 * `$XDG_CONFIG_HOME/folio`, else `~/.config/folio`. Most recent first, one entry
 * per real path, at most RECENT_MAX. Written whole and atomically under the
 * engine's file lock, so the app and `folio serve` running at once never lose an
 * entry or leave half a file. An entry whose file is gone stays listed, marked
 * `missing`, so the person sees what happened instead of a silently shorter list.
 */
import { mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../../engine/write/atomic-write.ts';
import { fromFsError } from '../../engine/errors.ts';
import { withFileLock } from '../../engine/index/file-lock.ts';

export const RECENT_MAX = 20;

export interface RecentEntry {
  /** the real path (symlinks resolved) when it was opened */
  path: string;
  /** ISO 8601 */
  opened_at: string;
  /** the path is no longer a regular file (deleted, moved, replaced by a directory) */
  missing: boolean;
}

interface StoredEntry {
  path: string;
  opened_at: string;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FOLIO_CONFIG_DIR) return env.FOLIO_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'folio');
}

export function recentFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'recent.json');
}

/** The stored entries; a missing or unreadable file is an empty list (it is only a convenience). */
function loadStored(file: string): StoredEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  const entries = (parsed as { entries?: unknown } | null)?.entries;
  if (!Array.isArray(entries)) return [];
  return entries.filter(
    (e): e is StoredEntry =>
      typeof e === 'object' && e !== null && typeof (e as StoredEntry).path === 'string' && typeof (e as StoredEntry).opened_at === 'string',
  );
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const withMissing = (entries: StoredEntry[]): RecentEntry[] => entries.map((e) => ({ ...e, missing: !isRegularFile(e.path) }));

export function listRecent(env: NodeJS.ProcessEnv = process.env): RecentEntry[] {
  return withMissing(loadStored(recentFilePath(env)).slice(0, RECENT_MAX));
}

/** Record `path` as opened now (first in the list); returns the new list. `path` must exist (not_found otherwise). */
export async function addRecent(path: string, opts: { env?: NodeJS.ProcessEnv; now?: Date } = {}): Promise<RecentEntry[]> {
  const env = opts.env ?? process.env;
  let real: string;
  try {
    real = realpathSync(path);
  } catch (err) {
    throw fromFsError(err, path);
  }
  const file = recentFilePath(env);
  mkdirSync(configDir(env), { recursive: true, mode: 0o700 });
  const entries = await withFileLock(file, () => {
    const next = [{ path: real, opened_at: (opts.now ?? new Date()).toISOString() }, ...loadStored(file).filter((e) => e.path !== real)].slice(0, RECENT_MAX);
    writeFileAtomic(file, Buffer.from(JSON.stringify({ version: 1, entries: next }, null, 2) + '\n'), 0o600);
    return next;
  });
  return withMissing(entries);
}
