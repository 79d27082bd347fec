/** SearchInput (the wire shape) to the engine's search options. */
import type { SearchPathOptions } from '../engine/search/search-path.ts';
import type { SearchInput } from './schemas.ts';
import { FolioError } from '../engine/errors.ts';

export function toSearchOptions(input: SearchInput): SearchPathOptions {
  const treeOnly = (['glob', 'context', 'cursor'] as const).filter((f) => input[f] !== undefined);
  if (treeOnly.length) {
    throw new FolioError('invalid_input', `${treeOnly.join(', ')}: only for a directory search; ${input.path} is searched as one file`, {
      fields: treeOnly,
      path: input.path,
    });
  }
  return {
    pattern: input.pattern,
    flags: input.flags,
    startByte: input.start_byte,
    endByte: input.end_byte,
    startLine: input.start_line,
    endLine: input.end_line,
    maxMatches: input.max,
    maxLineChars: input.max_line_chars,
    countOnly: input.count_only,
  };
}
