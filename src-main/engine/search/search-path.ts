/** search over a path: resolves the range (lines or bytes), waits for the index, and adds the version. */
import { FolioError } from '../errors.ts';
import { binaryFileError, factsOf, type Version } from '../read/file-facts.ts';
import { openIndex } from '../index/store.ts';
import { searchFile, type SearchOptions, type SearchResult } from './search.ts';

export interface SearchPathOptions extends Omit<SearchOptions, 'startByte' | 'endByte'> {
  startByte?: number;
  endByte?: number;
  /** 1-based first line to search (instead of startByte) */
  startLine?: number;
  /** 1-based last line to search, inclusive (instead of endByte) */
  endLine?: number;
  /** false: never start hashing the file for its version (a directory search answers no version) */
  hash?: boolean;
}

/** Invalid UTF-8 of a file searched as UTF-8: matched as U+FFFD (whole-file counts, from the index). */
export interface SearchInvalidUtf8 {
  invalidSequences: number;
  firstOffset: number;
}

export async function searchPath(
  path: string,
  opts: SearchPathOptions,
): Promise<SearchResult & { path: string; version: Version; totalLines: number | null; encoding: string; invalidUtf8?: SearchInvalidUtf8 }> {
  const facts = await factsOf(path, opts.hash === false ? { hash: false } : {});
  if (facts.verdict.isBinary) throw binaryFileError(facts);
  const index = await openIndex(path, { signal: opts.signal, onProgress: opts.onProgress });
  let { startByte, endByte } = opts;
  if (opts.startLine !== undefined) {
    if (startByte !== undefined) throw new FolioError('invalid_input', 'give start_line or start_byte, not both', {});
    if (!Number.isInteger(opts.startLine) || opts.startLine < 1) {
      throw new FolioError('invalid_range', `start_line must be >= 1, got ${opts.startLine}`, { start_line: opts.startLine });
    }
    startByte = index.lineStart(opts.startLine - 1);
    if (startByte < 0)
      throw new FolioError('out_of_bounds', `line ${opts.startLine} is past the end (${index.lineCount} lines)`, {
        start_line: opts.startLine,
        total_lines: index.lineCount,
      });
  }
  if (opts.endLine !== undefined) {
    if (endByte !== undefined) throw new FolioError('invalid_input', 'give end_line or end_byte, not both', {});
    if (!Number.isInteger(opts.endLine) || opts.endLine < 1) {
      throw new FolioError('invalid_range', `end_line must be >= 1, got ${opts.endLine}`, { end_line: opts.endLine });
    }
    const e = index.lineStart(opts.endLine);
    endByte = e < 0 ? index.size : e;
  }
  if (startByte !== undefined && endByte !== undefined && startByte > endByte) {
    throw new FolioError('invalid_range', `search range ${startByte}-${endByte} is invalid: start after end`, { start_byte: startByte, end_byte: endByte });
  }
  const result = await searchFile(index, { ...opts, startByte, endByte, encoding: facts.encoding });
  // A file read as UTF-8 with bad bytes says so: lines holding them are matched with U+FFFD in their place.
  const { firstInvalid, utf8 } = index.facts;
  const asUtf8 = facts.encoding === 'utf-8' || facts.encoding === 'unknown';
  const invalidUtf8 = asUtf8 && firstInvalid !== null && utf8 ? { invalidSequences: utf8.invalid, firstOffset: firstInvalid } : undefined;
  return {
    path: facts.identity.path,
    version: facts.version,
    totalLines: index.lineCount,
    encoding: facts.encoding,
    ...(invalidUtf8 ? { invalidUtf8 } : {}),
    ...result,
  };
}
