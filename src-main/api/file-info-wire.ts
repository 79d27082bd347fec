/**
 * The file_info answer on the wire: the engine's camelCase FileInfoResult mapped
 * to the snake_case FileInfo schema, in one place (like read-wire.ts for reads),
 * so `folio info --json`, MCP, HTTP and the app all get the same field names.
 */
import type { FileInfoResult } from '../engine/read/file-info.ts';
import type { FileInfo } from './schemas.ts';

/** `r` as the wire answer. `version` keeps its own names (they are the file version's, also in journal records). */
export function fileInfoWireOf(r: FileInfoResult): FileInfo {
  return {
    path: r.path,
    version: r.version,
    size: r.size,
    lines: r.lines,
    newlines: r.newlines,
    encoding: r.encoding,
    ...(r.encodingConfidence !== undefined ? { encoding_confidence: r.encodingConfidence } : {}),
    bom: r.bom,
    newline_style: r.newlineStyle,
    newline_counts: { lf: r.newlineCounts.lf, crlf: r.newlineCounts.crlf, cr: r.newlineCounts.cr },
    final_newline: r.finalNewline,
    utf8: {
      valid: r.utf8.valid,
      first_invalid_offset: r.utf8.firstInvalidOffset,
      invalid_sequences: r.utf8.invalidSequences,
      multibyte_chars: r.utf8.multibyteChars,
    },
    binary: { is_binary: r.binary.isBinary, type: r.binary.type, ext: r.binary.ext, reason: r.binary.reason },
    index: { memory_bytes: r.index.memoryBytes, blocks: r.index.blocks, build_ms: r.index.buildMs, from_cache: r.index.fromCache },
  };
}
