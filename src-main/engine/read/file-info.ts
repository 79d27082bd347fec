/** file_info: what a file is, from its (cached) line index and a sniff of its head. */
import { sniffBinary } from '../text/binary-sniff.ts';
import { encodingOf, type Encoding } from '../text/encoding-detect.ts';
import { etagOf } from '../index/identity.ts';
import { openIndex, type OpenOptions } from '../index/store.ts';
import type { LineIndex, NewlineCounts, NewlineStyle } from '../index/line-index.ts';

export interface FileInfoResult {
  path: string;
  version: { etag: string; size: number; mtimeMs: number };
  size: number;
  lines: number;
  newlines: number;
  encoding: Encoding;
  /** confidence (0..1) of a detected legacy encoding */
  encodingConfidence?: number;
  bom: boolean;
  newlineStyle: NewlineStyle;
  /** line endings by kind; newlineStyle is the dominant one */
  newlineCounts: NewlineCounts;
  finalNewline: boolean;
  /**
   * Validity of the text (UTF-8, or UTF-16 in a UTF-16 layout), and in the UTF-8
   * layout the whole-file counts the encoding verdict is made from: ill-formed
   * sequences (each one U+FFFD in a read) and valid multi-byte characters.
   */
  utf8: { valid: boolean; firstInvalidOffset: number | null; invalidSequences: number | null; multibyteChars: number | null };
  binary: { isBinary: boolean; type: string | null; ext: string | null; reason: string };
  index: { memoryBytes: number; blocks: number; buildMs: number; fromCache: boolean };
}

export async function fileInfo(path: string, opts: OpenOptions = {}): Promise<FileInfoResult> {
  return fileInfoOf(await openIndex(path, opts));
}

/** file_info of a complete index (a local file's, or a remote value's: engine/backend/remote.ts). */
export async function fileInfoOf(index: LineIndex): Promise<FileInfoResult> {
  const id = index.identity;
  const verdict = await sniffBinary(id.path, id.size);
  const valid = index.facts.firstInvalid === null;
  const etag = etagOf(id);
  const enc = encodingOf(verdict, index, etag);
  return {
    path: id.path,
    version: { etag, size: id.size, mtimeMs: id.mtimeMs },
    size: id.size,
    lines: index.lineCount,
    newlines: index.newlines,
    encoding: enc.encoding,
    ...(enc.confidence !== undefined ? { encodingConfidence: enc.confidence } : {}),
    bom: index.bom,
    newlineStyle: index.newlineStyle,
    newlineCounts: index.newlineCounts,
    finalNewline: index.finalNewline,
    utf8: {
      valid,
      firstInvalidOffset: index.facts.firstInvalid,
      invalidSequences: index.facts.utf8?.invalid ?? null,
      multibyteChars: index.facts.utf8?.multibyte ?? null,
    },
    binary: { isBinary: verdict.isBinary, type: verdict.type, ext: verdict.ext, reason: verdict.reason },
    index: { memoryBytes: index.memoryBytes, blocks: index.blocks, buildMs: index.buildMs, fromCache: index.fromCache },
  };
}
