/**
 * What a read asks for and what it answers, in the engine's own (camelCase)
 * terms. The snake_case wire shape is the api's ReadOutput schema, mapped from
 * these in api/read-wire.ts and nowhere else.
 */
import type { Encoding, Version } from './file-facts.ts';
import type { NewlineStyle } from '../index/line-index.ts';
import type { InvalidUtf8Policy } from '../text/window.ts';

export const READ_LIMITS = {
  /** default byte window */
  defaultWindowBytes: 64 * 1024,
  /** hard cap of content bytes in one answer (not `full`) */
  maxWindowBytes: 256 * 1024,
  /** default char budget of a page */
  defaultPageChars: 50_000,
  /** largest file `full: true` returns */
  maxFullBytes: 8 * 1024 * 1024,
};

export type ReadRequest =
  | { mode: 'lines'; ranges: { start: number; end: number }[] }
  | { mode: 'bytes'; startByte: number; maxBytes?: number }
  | { mode: 'exact'; startByte: number; endByte: number }
  | { mode: 'page'; page: number; pageChars?: number }
  | { mode: 'head'; lines: number }
  | { mode: 'tail'; lines: number }
  | { mode: 'full' };

export interface ReadOptions {
  hashlines?: boolean;
  invalidUtf8?: InvalidUtf8Policy;
  /** read a file sniffed as binary anyway (decoded with replacement) */
  allowBinary?: boolean;
  /**
   * Decode with this encoding rather than the detected one (detection can be wrong:
   * French windows-1252 reads as iso-8859-2): 'utf-8' or an ASCII-compatible legacy
   * encoding for a file read by bytes; a UTF-16 file is read as the UTF-16 it is.
   */
  encoding?: string;
  /** content cap for this call (bytes), at most READ_LIMITS.maxWindowBytes */
  maxBytes?: number;
  /** largest file `full` returns for this call (a workspace cap), at most READ_LIMITS.maxFullBytes */
  maxFullBytes?: number;
}

/** A line longer than the window, and which side of it the answer cut. */
export interface LineCut {
  lineNo: number;
  lineStartByte: number;
  /** byte offset just past the line's content (its '\n' or the end of the file) */
  lineEndByte: number;
  startsMidLine: boolean;
  endsMidLine: boolean;
}

/** One of several line ranges read at once, with its own text. */
export interface RangeContent {
  startLine: number;
  endLine: number;
  startByte: number;
  endByte: number;
  content: string;
  clamped: boolean;
}

/** An exact-bytes edge moved, and why. */
export interface Adjustment {
  edge: 'start' | 'end';
  from: number;
  to: number;
  reason: string;
}

export interface ByteSpan {
  startByte: number;
  endByte: number;
}

export interface ReadResult {
  path: string;
  version: Version;
  encoding: Encoding;
  encodingConfidence?: number;
  bom: boolean;
  newlineStyle: NewlineStyle | null;
  totalLines: number | null;
  indexing: { bytesDone: number; totalBytes: number } | null;
  mode: ReadRequest['mode'];
  content: string;
  /** 1-based first and last line the content touches (null for an empty answer) */
  startLine: number | null;
  endLine: number | null;
  startByte: number;
  endByte: number;
  hashlines: boolean;
  notes: string[];
  truncated: boolean;
  lineCut?: LineCut;
  invalidUtf8?: { replaced: number; firstOffset: number };
  ranges?: RangeContent[];
  nextStartByte?: number | null;
  fileSize?: number;
  requestedRange?: ByteSpan;
  actualRange?: ByteSpan;
  adjustments?: Adjustment[];
  isPartial?: boolean;
  percentOfFile?: number;
  page?: number;
  nextPage?: number | null;
  /** code points of a page's content */
  chars?: number;
  /** a page that continues a line the page before cut */
  startsMidLine?: boolean;
  /** a page that ends inside a line (the next page continues it) */
  endsMidLine?: boolean;
  /** a page that is one whole line over the budget (within the cap, so not cut) */
  overBudget?: boolean;
}

/**
 * All the text an answer holds, whatever its shape: several line ranges carry
 * their text in ranges[i].content (content is then empty), every other answer in
 * content. For callers that look at the text (redaction, token counts); it takes
 * the engine's result and the wire answer alike.
 */
export function answerText(r: { content: string; ranges?: { content: string }[] }): string {
  return r.ranges ? r.ranges.map((x) => x.content).join('') : r.content;
}
