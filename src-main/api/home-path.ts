/** `~` in the paths of an operation's input (handle.ts and quick-handle.ts expand it after checking the input). */
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * `~` and `~/…` in `path`, `to` and each of `paths` (merge, query) as the home directory, as a shell would have
 * done for a path typed on a command line (the app's path box, an agent's
 * call). Done before any guard looks at the path, so policy sees the real one.
 * `~user` is left alone.
 */
export function withHomeExpanded<T>(input: T): T {
  if (!input || typeof input !== 'object') return input;
  const fields = input as Record<string, unknown>;
  const expanded = (value: unknown) => (typeof value === 'string' && (value === '~' || value.startsWith('~/')) ? join(homedir(), value.slice(1)) : value);
  const paths = Array.isArray(fields.paths) ? fields.paths.map(expanded) : fields.paths;
  const samePaths = !Array.isArray(fields.paths) || (paths as unknown[]).every((p, i) => p === (fields.paths as unknown[])[i]);
  if (expanded(fields.path) === fields.path && expanded(fields.to) === fields.to && samePaths) return input;
  return {
    ...fields,
    ...('path' in fields ? { path: expanded(fields.path) } : {}),
    ...('to' in fields ? { to: expanded(fields.to) } : {}),
    ...(samePaths ? {} : { paths }),
  } as T;
}
