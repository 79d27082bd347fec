/**
 * Directory search and list on the wire: the input as engine options, the engine's
 * answers as the snake_case SearchTreeOutput and ListOutput schemas, field by field
 * (like search-wire.ts for one file).
 */
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { FolioError, fromFsError } from '../engine/errors.ts';
import type { ListResult } from '../engine/read/list-files.ts';
import type { TreeSearchOptions, TreeSearchResult } from '../engine/search/tree-search.ts';
import type { ListOutput, SearchInput, SearchTreeOutput } from './schemas.ts';

/** The real path of the directory `path` (relative to `base`), or not_found / invalid_input. */
export function realDirectoryOf(base: string, path: string): string {
  const asked = resolve(base, path);
  let real: string;
  try {
    real = realpathSync.native(asked);
  } catch (err) {
    throw fromFsError(err, asked);
  }
  if (!statSync(real).isDirectory()) {
    throw new FolioError('invalid_input', `${path} is not a directory (search a single file with search)`, { path, resolved: real });
  }
  return real;
}

/** True when `path` (relative to `base`) names a directory; false for anything else, missing included. */
export function isDirectoryPath(base: string, path: string): boolean {
  try {
    return statSync(resolve(base, path)).isDirectory();
  } catch {
    return false;
  }
}

const FILE_ONLY = ['start_byte', 'end_byte', 'start_line', 'end_line'] as const;

/** SearchInput of a directory search as the engine's options (a file range makes no sense over a tree). */
export function toTreeSearchOptions(input: SearchInput): TreeSearchOptions {
  const given = FILE_ONLY.filter((f) => input[f] !== undefined);
  if (given.length) {
    throw new FolioError('invalid_input', `${given.join(', ')} select a range of one file; a directory search continues with cursor`, { fields: given });
  }
  return {
    pattern: input.pattern,
    flags: input.flags,
    glob: input.glob,
    maxMatches: input.max,
    maxLineChars: input.max_line_chars,
    countOnly: input.count_only,
    context: input.context,
    cursor: input.cursor,
  };
}

export function searchTreeWireOf(r: TreeSearchResult, glob: string | undefined): SearchTreeOutput {
  return {
    path: r.root,
    glob: glob ?? null,
    files: r.files.map((f) => ({ path: f.path, count: f.count, etag: f.etag })),
    matches: r.matches.map((m) => ({
      path: m.path,
      line: m.line,
      byte_offset: m.byteOffset,
      column: m.column,
      text: m.text,
      text_truncated: m.textTruncated,
      ...(m.contextBefore ? { context_before: m.contextBefore, context_after: m.contextAfter ?? [] } : {}),
    })),
    count: r.count,
    files_searched: r.filesSearched,
    bytes_searched: r.bytesSearched,
    truncated: r.truncated,
    next_cursor: r.nextCursor,
    elapsed_ms: r.elapsedMs,
  };
}

export function listWireOf(r: ListResult): ListOutput {
  return {
    path: r.root,
    entries: r.entries.map((e) => ({
      path: e.path,
      kind: e.kind,
      size: e.size,
      mtime: new Date(e.mtimeMs).toISOString(),
      depth: e.depth,
      lines: e.lines,
      etag: e.etag,
    })),
    truncated: r.truncated,
    elapsed_ms: r.elapsedMs,
  };
}
