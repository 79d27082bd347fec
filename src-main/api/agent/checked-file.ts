/**
 * Opening a file the guard checked (policy.ts), so that what is read is the file
 * that was checked: a local file is pinned (engine/index/pinned-file.ts), a remote
 * locator's value is mounted at one version. Shared by the tools and by the
 * redaction of error details, which reads the lines an error shows.
 */
import { withPinnedFile } from '../../engine/index/pinned-file.ts';
import { isRemoteLocator, onRemotePath } from '../remote-ops.ts';
import type { WorkspacePolicy } from './policy.ts';

/** How the guard pins a file it checked: hard links refused unless the workspace allows them. */
export const pinningOf = (s: { policy: WorkspacePolicy }) => ({ refuseLinks: !s.policy.allowHardlinks });

/**
 * withPinnedFile for a file the guard checked; for a remote locator (checked the
 * same way, by its name) `fn` runs with the value's bytes mounted: its version is
 * the pin, every read inside is of that version.
 */
export function withCheckedFile<T>(real: string, fn: (pinned: string) => Promise<T>, pinning: ReturnType<typeof pinningOf>): Promise<T> {
  return isRemoteLocator(real) ? onRemotePath(real, (path) => fn(path)) : withPinnedFile(real, fn, pinning);
}
