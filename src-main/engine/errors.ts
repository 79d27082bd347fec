/**
 * The one error type of Folio. Every failure an agent or a person can act on is a
 * FolioError with a code from a closed union and a `details` object that says what
 * to do next (the current version, the range that was valid, the read to send).
 * Doors map codes to exit status / MCP isError / HTTP status in one place
 * (src-main/api/error-map.ts). Inside, a few decisions read a code by name: the
 * review layer's STALE_CODES (review/stale-codes.ts: which errors make a proposal
 * a conflict or an undo refused), the remote layer (a precondition_failed or
 * not_found of a backend), and the directory search (timeout, cancelled and
 * invalid_input end the walk instead of skipping a file).
 */
export const ERROR_CODES = [
  'not_found',
  'permission_denied',
  'is_directory',
  'not_regular_file',
  'invalid_range',
  'invalid_input',
  'out_of_bounds',
  'beyond_end',
  'too_large',
  'binary_file',
  'encoding_mismatch',
  'precondition_required',
  'precondition_failed',
  'conflict',
  'redacted',
  'ambiguous',
  'no_match',
  'ambiguous_match',
  'parse_error',
  'cancelled',
  'timeout',
  'io_error',
  'no_timestamps',
  'not_ordered',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class FolioError extends Error {
  override readonly name = 'FolioError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  toJSON(): { code: ErrorCode; message: string } & Record<string, unknown> {
    return { code: this.code, message: this.message, ...this.details };
  }
}

export function isFolioError(err: unknown): err is FolioError {
  return err instanceof FolioError;
}

/** Maps a Node fs error on `path` to the FolioError an agent can act on. */
export function fromFsError(err: unknown, path: string): FolioError {
  if (err instanceof FolioError) return err;
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new FolioError('not_found', `no such file: ${path}`, { path });
    case 'EACCES':
    case 'EPERM':
      return new FolioError('permission_denied', `permission denied: ${path}`, { path });
    case 'EISDIR':
      return new FolioError('is_directory', `is a directory, not a file: ${path}`, { path });
    // A name no file can have: the api checks inputs first (api/input-paths.ts); these
    // catch a name that got past it (one built by the engine, a symlink's target).
    case 'ENAMETOOLONG':
      return new FolioError('invalid_input', `name too long: ${path}`, { path, reason: 'name_too_long' });
    case 'ERR_INVALID_ARG_VALUE':
      if (path.includes('\0')) return new FolioError('invalid_input', `the path contains a NUL byte: ${JSON.stringify(path)}`, { path, reason: 'nul_byte' });
      break;
  }
  return new FolioError('io_error', `${e?.code ?? 'error'} on ${path}: ${e?.message ?? String(err)}`, {
    path,
    errno: e?.code,
  });
}
