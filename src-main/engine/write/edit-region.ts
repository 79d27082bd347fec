/**
 * Where an upsert writes: its target (lines or bytes, insert / replace / delete /
 * append) resolved on the file's line index to a byte region and the bytes that go
 * there, in the file's encoding and newline style.
 *
 * Line targets are 1-based and inclusive. Content given for line targets is whole
 * lines: a missing final newline is added (in the file's style), except at the end
 * of a file that has no final newline, which keeps having none. Byte targets must
 * lie on character boundaries and outside the BOM.
 *
 * Append in line units (the default) adds lines: the text gets a final newline if
 * it lacks one, and a newline goes before it when the file's last line had none
 * (`a\nb` + `c` = `a\nb\nc\n`). In byte units it writes exactly what it is given.
 * A whole-file target replaces everything after the BOM with the content as given.
 */
import { FolioError } from '../errors.ts';
import type { LineIndex } from '../index/line-index.ts';
import type { TextCodec } from '../text/codec.ts';
import { readBytes } from '../text/window.ts';

export type Units = 'lines' | 'bytes';

export type UpsertTarget =
  | { kind: 'insert'; at: number; units: Units }
  | { kind: 'replace'; start: number; end: number; units: Units }
  | { kind: 'delete'; start: number; end: number; units: Units }
  | { kind: 'append'; units?: Units }
  /** the whole text (after a byte-order mark): a whole-file replace, or a new file's text */
  | { kind: 'whole' };

/** What is written: the content and how to encode it (see UpsertRequest). */
export interface RegionRequest {
  target: UpsertTarget;
  content: string;
  normalizeNewlines?: boolean;
  contentBytes?: Uint8Array;
}

/** Bytes [start, end) of the file are replaced by `content`. */
export interface EditRegion {
  start: number;
  end: number;
  content: Buffer;
  /** 1-based lines of the old region (end < start for an empty one) */
  startLine: number;
  endLine: number;
}

function invalidRange(message: string, details: Record<string, unknown>): FolioError {
  return new FolioError('invalid_range', message, details);
}

function nlOf(style: string, content: string): string {
  if (style === 'crlf') return '\r\n';
  if (style === 'lf' || style === 'none' || style === 'cr') return '\n';
  return content.includes('\r\n') ? '\r\n' : '\n'; // mixed: keep what the content uses
}

function normalize(content: string, style: string, on: boolean): string {
  if (!on || style === 'mixed') return content;
  return content.replace(/\r\n|\r|\n/g, nlOf(style, content));
}

/** Why `pos` is not a character boundary of the file, or null if it is one. */
function notBoundary(path: string, pos: number, size: number, codec: TextCodec): string | null {
  if (codec.unit === 2 && pos % 2 === 1) return 'odd: UTF-16 code units are 2 bytes, at even offsets';
  if (pos <= 0 || pos >= size) return null;
  if (codec.unit === 2) return codec.snapBack(path, 0, pos) === pos ? null : 'inside a UTF-16 surrogate pair';
  const b = readBytes(path, pos, pos + 1)[0]!;
  return (b & 0xc0) !== 0x80 ? null : 'inside a multi-byte character';
}

/** Start byte of 1-based line `line` (line total+1 means the end of the file). */
export function lineStartByte(index: LineIndex, line: number, bomLen: number): number {
  if (line === 1) return Math.min(bomLen, index.size);
  const s = index.lineStart(line - 1);
  return s < 0 ? index.size : s;
}

/** The byte region `req.target` names in the indexed file, and the encoded content for it. */
export function editRegionOf(index: LineIndex, req: RegionRequest, codec: TextCodec): EditRegion {
  const { target } = req;
  const style = index.newlineStyle;
  const bomLen = index.bomLength;
  const size = index.size;
  const total = index.lineCount;
  const finalNewline = index.finalNewline;
  const nl = nlOf(style, req.content);
  let text = normalize(req.content, style, req.normalizeNewlines !== false);
  const raw = req.contentBytes;
  const encode = (t: string): Buffer => (raw ? Buffer.from(raw) : codec.encode(t));
  const endsWithNl = (t: string) => t.endsWith('\n') || t.endsWith('\r');
  if (target.kind === 'append') {
    if (target.units !== 'bytes' && !raw && text !== '') {
      if (size > bomLen && !finalNewline) text = nl + text;
      if (!endsWithNl(text)) text += nl;
    }
    return { start: size, end: size, content: encode(text), startLine: total + 1, endLine: total };
  }
  if (target.kind === 'whole') {
    const start = Math.min(bomLen, size);
    return { start, end: size, content: encode(text), startLine: 1, endLine: total };
  }
  if (target.kind === 'delete' && req.content !== '') {
    throw new FolioError('invalid_input', 'delete takes no content', { content_length: req.content.length });
  }
  if (target.units === 'bytes') {
    const check = (name: string, v: number) => {
      if (!Number.isInteger(v) || v < 0) throw invalidRange(`${name} must be a whole number >= 0, got ${v}`, { [name]: v });
      if (v > size) throw new FolioError('out_of_bounds', `${name} ${v} is past the end of the file (${size} bytes)`, { [name]: v, size });
      if (v < bomLen) throw invalidRange(`${name} ${v} is inside the byte-order mark`, { [name]: v });
      const why = notBoundary(index.path, v, size, codec);
      if (why) throw invalidRange(`${name} ${v} is not a character boundary: ${why}`, { [name]: v, encoding: codec.encoding });
    };
    let start: number;
    let end: number;
    if (target.kind === 'insert') {
      check('at', target.at);
      start = end = target.at;
    } else {
      check('start', target.start);
      check('end', target.end);
      if (target.start > target.end)
        throw invalidRange(`byte range ${target.start}-${target.end} is invalid: start after end`, { start: target.start, end: target.end });
      start = target.start;
      end = target.end;
    }
    return {
      start,
      end,
      content: encode(text),
      startLine: index.lineAt(start) + 1,
      endLine: end > start ? index.lineAt(end - 1) + 1 : index.lineAt(start),
    };
  }
  // Line units.
  if (target.kind === 'insert') {
    const at = target.at;
    if (!Number.isInteger(at) || at < 1) throw invalidRange(`insert line must be >= 1, got ${at}`, { at });
    if (at > total + 1) {
      throw new FolioError('out_of_bounds', `cannot insert before line ${at}: the file has ${total} lines (insert at ${total + 1} to add at the end)`, {
        at,
        total_lines: total,
      });
    }
    const pos = lineStartByte(index, at, bomLen);
    if (text !== '') {
      if (at <= total) {
        if (!endsWithNl(text)) text += nl;
      } else if (size > bomLen && !finalNewline) {
        text = nl + text; // the old last line needs its end before the new lines
      } else if (!endsWithNl(text)) {
        text += nl;
      }
    }
    return { start: pos, end: pos, content: encode(text), startLine: at, endLine: at - 1 };
  }
  const { start: a, end: b } = target;
  if (!Number.isInteger(a) || !Number.isInteger(b) || a < 1 || b < a) {
    throw invalidRange(`line range ${a}-${b} is invalid: lines are 1-based and start <= end`, { start: a, end: b });
  }
  if (b > total) {
    throw new FolioError('out_of_bounds', `line range ${a}-${b} goes past the end of the file (${total} lines)`, { start: a, end: b, total_lines: total });
  }
  const start = lineStartByte(index, a, bomLen);
  const end = b < total ? lineStartByte(index, b + 1, bomLen) : size;
  if (text !== '' && !endsWithNl(text) && (b < total || finalNewline)) text += nl;
  return { start, end, content: encode(text), startLine: a, endLine: b };
}
