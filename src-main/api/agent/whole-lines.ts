/**
 * The whole line around a slice of a file, for redaction's whole-line decision: an
 * agent's answer may hold only part of a line (an exact byte range, a window inside
 * a long line, a search match cut to max_line_chars), and what is secret in it
 * depends on the rest of the line (the key name before a value). Text is read only
 * through the api-level read (readByInput) in exact byte ranges, so offsets stay in
 * the file's own encoding: a slice's character offset in its line is the length of
 * the decoded text before it.
 */
import { readByInput } from '../read-address.ts';
import type { ReadOutput } from '../schemas.ts';

/** A line longer than this either side of the slice is judged on this much context around it (a key name is never that far from its value). */
export const LINE_CONTEXT_BYTES = 1 << 20;
/** One exact read returns at most the engine's window cap; longer spans are read in steps. */
const MAX_STEPS = 16;

export interface LineBounds {
  line: number;
  /** first byte of the line */
  startByte: number;
  /** byte after its last character (before the terminator) */
  endByte: number;
  /** the line's text (without terminator) when it fit one read */
  text?: string;
}

/** Where line `lineNo` of `path` starts and ends; null past the end or when unreadable. */
export async function lineBoundsOf(path: string, lineNo: number): Promise<LineBounds | null> {
  const r: ReadOutput | null = await readByInput({ path, ranges: [{ start: lineNo, end: lineNo }] }).catch(() => null);
  if (!r || r.start_line !== lineNo) return null;
  if (r.line_cut) return { line: lineNo, startByte: r.line_cut.line_start_byte, endByte: r.line_cut.line_end_byte };
  const text = r.content.replace(/\r?\n$/, '');
  const unitBytes = r.encoding.startsWith('utf-16') ? 2 : 1;
  return { line: lineNo, startByte: r.start_byte, endByte: r.end_byte - (r.content.length - text.length) * unitBytes, text: text.replace(/\r$/, '') };
}

/** The decoded text of bytes [from, to) of `path`, read in exact ranges ('' when empty or unreadable). */
export async function textBetween(path: string, from: number, to: number): Promise<string> {
  let text = '';
  let at = from;
  for (let step = 0; at < to && step < MAX_STEPS; step++) {
    const r: ReadOutput | null = await readByInput({ path, start_byte: at, end_byte: to }).catch(() => null);
    if (!r || r.end_byte <= at) break;
    text += r.content;
    at = r.end_byte;
  }
  return text;
}

/** The text of the line around bytes [fromByte, toByte) of it: before the slice, and after it (each at most LINE_CONTEXT_BYTES). */
export async function lineAroundSlice(bounds: LineBounds, path: string, fromByte: number, toByte: number): Promise<{ before: string; after: string }> {
  const before = fromByte > bounds.startByte ? await textBetween(path, Math.max(bounds.startByte, fromByte - LINE_CONTEXT_BYTES), fromByte) : '';
  const after = toByte < bounds.endByte ? await textBetween(path, toByte, Math.min(bounds.endByte, toByte + LINE_CONTEXT_BYTES)) : '';
  return { before, after: after.replace(/\r?\n$/, '').replace(/\r$/, '') };
}
