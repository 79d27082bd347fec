/**
 * The search answer on the wire: the engine's search result (with the path,
 * version and line count searchPath adds) mapped to the snake_case SearchOutput
 * schema, in one place (like read-wire.ts for reads).
 */
import type { searchPath } from '../engine/search/search-path.ts';
import type { SearchOutput } from './schemas.ts';

export type SearchAnswer = Awaited<ReturnType<typeof searchPath>>;

/** `r` as the wire answer; field by field, so nothing of the engine's leaks out unnamed. */
export function searchWireOf(r: SearchAnswer): SearchOutput {
  return {
    path: r.path,
    version: r.version,
    total_lines: r.totalLines,
    encoding: r.encoding,
    ...(r.invalidUtf8 ? { invalid_utf8: { invalid_sequences: r.invalidUtf8.invalidSequences, first_offset: r.invalidUtf8.firstOffset } } : {}),
    matches: r.matches.map((m) => ({ line: m.line, byte_offset: m.byteOffset, column: m.column, text: m.text, text_truncated: m.textTruncated })),
    count: r.count,
    truncated: r.truncated,
    next_start_byte: r.nextStartByte,
    scanned: { start_byte: r.scanned.startByte, end_byte: r.scanned.endByte },
    elapsed_ms: r.elapsedMs,
  };
}
