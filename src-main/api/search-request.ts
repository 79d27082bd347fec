/** SearchInput (the wire shape) to the engine's search options. */
import type { SearchPathOptions } from '../engine/search/search-path.ts';
import type { SearchInput } from './schemas.ts';

export function toSearchOptions(input: SearchInput): SearchPathOptions {
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
