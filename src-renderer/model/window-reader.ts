/**
 * Reading a window of whole lines when some lines are longer than the read cap
 * (262,144 bytes). A line-range read stops before such a line (or returns only
 * its first cap's worth), so one read cannot stand for the window: this reads on
 * from where each answer stopped, and takes only the head of a long line (a
 * byte read from its first byte, which the engine cuts with `line_cut`). Every
 * read moves forward at least one line, and the number of reads is bounded, so a
 * window never re-reads the same place and never stops before a long line.
 */
import type { ReadInput, ReadOutput } from '../../src-main/api/schemas.ts';

/** A line shown cut: only its first bytes are in the window's text. */
export interface CutLine {
  lineNo: number;
  /** the line's first byte in the file (0-based) */
  startByte: number;
  /** the line's length in bytes, without its newline */
  lineBytes: number;
  /** how many characters of it the window holds */
  shownChars: number;
}

export interface AssembledWindow {
  startLine: number;
  endLine: number;
  text: string;
  etag: string;
  cutLines: CutLine[];
}

export type WindowRead = (input: Omit<ReadInput, 'path'>) => Promise<ReadOutput>;

/** How much of a long line a window shows unless asked for more (show more quadruples it, up to the cap). */
export const LONG_LINE_HEAD_BYTES = 16_384;
/** The most of a long line a window shows (the read cap); the side view pages through the rest. */
export const MAX_LONG_LINE_HEAD_BYTES = 262_144;
/** Reads one window may take; past it the window ends where it got to, and the next window goes on from there. */
export const MAX_READS_PER_WINDOW = 12;

const withoutFinalNewline = (text: string) => text.replace(/\r?\n$/, '');

/**
 * The lines `startLine`..`endLine` (or fewer, when the read budget runs out),
 * with each line longer than the cap cut to `headBytesOf(lineNo)` bytes.
 * Null when nothing could be read from `startLine` (past the end).
 */
export async function readLineWindow(
  read: WindowRead,
  startLine: number,
  endLine: number,
  headBytesOf: (lineNo: number) => number = () => LONG_LINE_HEAD_BYTES,
): Promise<AssembledWindow | null> {
  const pieces: string[] = [];
  const cutLines: CutLine[] = [];
  let etag = '';
  let next = startLine;
  let reads = 0;
  let resumeByte: number | null = null;

  while (next <= endLine && reads < MAX_READS_PER_WINDOW) {
    reads++;
    // After an answer cut by the cap the next line starts at a known byte: read its head by bytes, which a long line cannot overrun.
    const byBytes = resumeByte !== null;
    const answer: ReadOutput = byBytes
      ? await read({ start_byte: resumeByte!, max_bytes: headBytesOf(next) })
      : await read({ ranges: [{ start: next, end: endLine }] });
    etag = answer.version.etag;
    resumeByte = null;
    if (answer.start_line === null || answer.end_line === null || answer.start_line !== next) break;
    const cut = answer.line_cut;
    if (cut && cut.line === next && !cut.starts_mid_line) {
      const head = answer.content.slice(0, headBytesOf(next));
      pieces.push(withoutFinalNewline(head));
      cutLines.push({ lineNo: next, startByte: cut.line_start_byte, lineBytes: cut.line_end_byte - cut.line_start_byte, shownChars: head.length });
      next++;
      continue;
    }
    pieces.push(withoutFinalNewline(answer.content));
    next = answer.end_line + 1;
    // A byte read ends where its budget did; a line-range read that was not cut is the rest of the window.
    if (!byBytes && !answer.truncated) break;
    if (!byBytes) resumeByte = answer.end_byte;
  }
  if (pieces.length === 0) return null;
  return { startLine, endLine: next - 1, text: pieces.join('\n'), etag, cutLines };
}

/** "1.25 MB" (decimal units, as people say a line's size). */
export function lineSizeLabelOf(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(bytes < 10_000 ? 2 : bytes < 100_000 ? 1 : 0)} kB`;
  return `${(bytes / 1_000_000).toFixed(2)} MB`;
}
