/** file_info: what a file is, from its (cached) line index and a sniff of its head. */
import { sniffBinary } from './binary-sniff.ts';
import { etagOf } from './file-identity.ts';
import { openIndex, type OpenOptions } from './index-store.ts';
import type { NewlineStyle } from './line-index.ts';

export interface FileInfoResult {
  path: string;
  version: { etag: string; size: number; mtimeMs: number };
  size: number;
  lines: number;
  newlines: number;
  encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'binary' | 'unknown';
  bom: boolean;
  newlineStyle: NewlineStyle;
  finalNewline: boolean;
  utf8: { valid: boolean; firstInvalidOffset: number | null };
  binary: { isBinary: boolean; type: string | null; ext: string | null; reason: string };
  index: { memoryBytes: number; blocks: number; buildMs: number; fromCache: boolean };
}

export async function fileInfo(path: string, opts: OpenOptions = {}): Promise<FileInfoResult> {
  const index = await openIndex(path, opts);
  const id = index.identity;
  const verdict = await sniffBinary(id.path, id.size);
  const valid = index.facts.firstInvalid === null;
  const encoding: FileInfoResult['encoding'] = verdict.isBinary
    ? 'binary'
    : verdict.bomEncoding === 'utf-16le' || verdict.bomEncoding === 'utf-16be'
      ? verdict.bomEncoding
      : valid
        ? 'utf-8'
        : 'unknown';
  return {
    path: id.path,
    version: { etag: etagOf(id), size: id.size, mtimeMs: id.mtimeMs },
    size: id.size,
    lines: index.lineCount,
    newlines: index.newlines,
    encoding,
    bom: verdict.bomEncoding !== null,
    newlineStyle: index.newlineStyle,
    finalNewline: index.finalNewline,
    utf8: { valid, firstInvalidOffset: index.facts.firstInvalid },
    binary: { isBinary: verdict.isBinary, type: verdict.type, ext: verdict.ext, reason: verdict.reason },
    index: { memoryBytes: index.memoryBytes, blocks: index.blocks, buildMs: index.buildMs, fromCache: index.fromCache },
  };
}
