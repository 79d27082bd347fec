import type { ErrorCode } from '../engine/errors.ts';

/** Engine errors that mean "the file is no longer what this edit expects" (vs. transient ones). */
export const STALE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'precondition_failed',
  'out_of_bounds',
  'invalid_range',
  'not_found',
  'is_directory',
  'not_regular_file',
  'binary_file',
  'encoding_mismatch',
  // A proposal's quote no longer found (or found twice): the file moved on under it.
  'no_match',
  'ambiguous_match',
]);
