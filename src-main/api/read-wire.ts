/**
 * The read answer on the wire: the engine's camelCase ReadResult mapped to the
 * snake_case ReadOutput schema. The one place that knows both shapes, so every
 * door (CLI --json, MCP, HTTP, the app) sends the same field names.
 */
import type { ReadResult } from '../engine/read/read.ts';
import type { ReadOutput } from './schemas.ts';

/** A read result as the api builds it: the engine's, or one for a JSON path (mode 'json'). */
export type ReadAnswer = Omit<ReadResult, 'mode'> & { mode: ReadOutput['mode'] };

/** What addressing adds to a read (already wire-shaped: built by the api from outline, JSON and token lookups). */
export type ReadAddressing = Pick<ReadOutput, 'section' | 'json' | 'tokens'>;

/** `r` (and what addressed it) as the wire answer. Optional fields are present only when the engine set them. */
export function readWireOf(r: ReadAnswer, addressing: ReadAddressing = {}): ReadOutput {
  const out: ReadOutput = {
    path: r.path,
    version: r.version,
    encoding: r.encoding,
    ...(r.encodingConfidence !== undefined ? { encoding_confidence: r.encodingConfidence } : {}),
    bom: r.bom,
    newline_style: r.newlineStyle,
    total_lines: r.totalLines,
    indexing: r.indexing && { bytes_done: r.indexing.bytesDone, total_bytes: r.indexing.totalBytes },
    mode: r.mode,
    content: r.content,
    start_line: r.startLine,
    end_line: r.endLine,
    start_byte: r.startByte,
    end_byte: r.endByte,
    hashlines: r.hashlines,
    notes: r.notes,
    truncated: r.truncated,
  };
  if (r.lineCut) {
    const c = r.lineCut;
    out.line_cut = {
      line: c.lineNo,
      line_start_byte: c.lineStartByte,
      line_end_byte: c.lineEndByte,
      starts_mid_line: c.startsMidLine,
      ends_mid_line: c.endsMidLine,
    };
  }
  if (r.invalidUtf8) out.invalid_utf8 = { replaced: r.invalidUtf8.replaced, first_offset: r.invalidUtf8.firstOffset };
  if (r.ranges)
    out.ranges = r.ranges.map((x) => ({
      start: x.startLine,
      end: x.endLine,
      start_byte: x.startByte,
      end_byte: x.endByte,
      content: x.content,
      clamped: x.clamped,
    }));
  if (r.nextStartByte !== undefined) out.next_start_byte = r.nextStartByte;
  if (r.fileSize !== undefined) out.file_size = r.fileSize;
  if (r.requestedRange) out.requested_range = { start_byte: r.requestedRange.startByte, end_byte: r.requestedRange.endByte };
  if (r.actualRange) out.actual_range = { start_byte: r.actualRange.startByte, end_byte: r.actualRange.endByte };
  if (r.adjustments) out.adjustments = r.adjustments.map((a) => ({ edge: a.edge, from: a.from, to: a.to, reason: a.reason }));
  if (r.isPartial !== undefined) out.is_partial = r.isPartial;
  if (r.percentOfFile !== undefined) out.percent_of_file = r.percentOfFile;
  if (r.page !== undefined) out.page = r.page;
  if (r.nextPage !== undefined) out.next_page = r.nextPage;
  if (r.chars !== undefined) out.chars = r.chars;
  if (r.startsMidLine !== undefined) out.starts_mid_line = r.startsMidLine;
  if (r.endsMidLine !== undefined) out.ends_mid_line = r.endsMidLine;
  if (r.overBudget) out.over_budget = true;
  if (addressing.section) out.section = addressing.section;
  if (addressing.json) out.json = addressing.json;
  if (addressing.tokens) out.tokens = addressing.tokens;
  return out;
}
