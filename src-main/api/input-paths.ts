/**
 * The file names in an operation's input, checked before anything touches the
 * file system, so a name no file system can hold is `invalid_input` naming the
 * field and the reason, the same from every door, instead of whatever the first
 * fs call happens to throw (Node's ERR_INVALID_ARG_VALUE for a NUL byte, an
 * ENAMETOOLONG io_error, or a silent U+FFFD where a lone surrogate was: a lone
 * surrogate has no UTF-8 form, so Node would name a different file).
 */
import { isRemoteLocator } from '../engine/backend/locator.ts';
import { FolioError } from '../engine/errors.ts';

/** The one test of a remote locator (pg://, az://, s3://), for doors that may not import the engine. */
export { isRemoteLocator };

/** NAME_MAX on Linux and macOS: bytes of one path component. */
export const NAME_MAX_BYTES = 255;
/** PATH_MAX on Linux (4096) less its terminating NUL: bytes of a whole path. */
export const PATH_MAX_BYTES = 4095;

export type PathProblem = 'nul_byte' | 'lone_surrogate' | 'name_too_long' | 'path_too_long';

// With the u flag a well-formed surrogate pair is one code point, so this matches only lone halves.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** What makes `path` a name no file can have, or null. Remote locators (pg://, az://, s3://) are not file names: only NUL and lone surrogates count there. */
export function pathProblemOf(path: string): { reason: PathProblem; message: string } | null {
  if (path.includes('\0')) return { reason: 'nul_byte', message: 'contains a NUL byte' };
  if (LONE_SURROGATE.test(path)) return { reason: 'lone_surrogate', message: 'contains a lone UTF-16 surrogate (no UTF-8 form)' };
  if (isRemoteLocator(path)) return null;
  const bytes = Buffer.byteLength(path, 'utf8');
  if (bytes > PATH_MAX_BYTES) return { reason: 'path_too_long', message: `is ${bytes} bytes long (at most ${PATH_MAX_BYTES})` };
  for (const part of path.split(/[\\/]/)) {
    const n = Buffer.byteLength(part, 'utf8');
    if (n > NAME_MAX_BYTES) return { reason: 'name_too_long', message: `has a name of ${n} bytes (at most ${NAME_MAX_BYTES} per name)` };
  }
  return null;
}

/** The file names of an input: `path`, `to`, each of `paths` (merge, query), and the `path` of each of `targets` / `edits` (several-file upserts and edits). */
function namedPaths(input: Record<string, unknown>): [field: string, path: string][] {
  const out: [string, string][] = [];
  for (const f of ['path', 'to']) if (typeof input[f] === 'string') out.push([f, input[f]]);
  if (Array.isArray(input.paths)) input.paths.forEach((p: unknown, i) => typeof p === 'string' && out.push([`paths.${i}`, p]));
  for (const list of ['targets', 'edits']) {
    const items = input[list];
    if (!Array.isArray(items)) continue;
    items.forEach((t: unknown, i) => {
      const p = (t as { path?: unknown } | null)?.path;
      if (typeof p === 'string') out.push([`${list}.${i}.path`, p]);
    });
  }
  return out;
}

/** Throws invalid_input (details: field, path, reason) for the first file name of `input` that no file can have. */
export function checkInputPaths(name: string, input: unknown): void {
  if (!input || typeof input !== 'object') return;
  for (const [field, path] of namedPaths(input as Record<string, unknown>)) {
    const problem = pathProblemOf(path);
    if (problem) {
      const shown = JSON.stringify(path.length > 80 ? `${path.slice(0, 80)}…` : path);
      throw new FolioError('invalid_input', `invalid input for ${name}: ${field} ${shown} ${problem.message}`, {
        operation: name,
        field,
        reason: problem.reason,
      });
    }
  }
}
