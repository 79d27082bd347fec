/** The one place that maps FolioError codes to each door's notion of failure. */
import type { ErrorCode } from '../engine/errors.ts';

export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
/** The reader of stdout went away (128 + SIGPIPE, what a shell shows for `yes | head`). */
export const EXIT_BROKEN_PIPE = 141;

const HTTP_STATUS: Partial<Record<ErrorCode, number>> = {
  not_found: 404,
  permission_denied: 403,
  is_directory: 400,
  not_regular_file: 400,
  invalid_range: 400,
  invalid_input: 400,
  out_of_bounds: 416,
  beyond_end: 416,
  too_large: 413,
  binary_file: 415,
  encoding_mismatch: 415,
  precondition_required: 428,
  precondition_failed: 412,
  conflict: 409,
  redacted: 403,
  ambiguous: 409,
  no_match: 409,
  ambiguous_match: 409,
  parse_error: 422,
  cancelled: 499,
  timeout: 504,
  no_timestamps: 422,
  not_ordered: 409,
};

export function httpStatusOf(code: string): number {
  return HTTP_STATUS[code as ErrorCode] ?? 500;
}
