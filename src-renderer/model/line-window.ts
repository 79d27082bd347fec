/**
 * Which lines of a file the viewer holds: a window of whole lines fetched with one
 * `read` (line ranges), sized so that it stays under the read cap (262,144 bytes)
 * for the file's average line length. The editor shows only the window; the line
 * numbers and the scrollbar speak of the whole file.
 */
import type { CutLine } from './window-reader.ts';

export interface LineWindow {
  /** 1-based file line of the window's first line */
  startLine: number;
  /** 1-based, inclusive */
  endLine: number;
  text: string;
  etag: string;
  /** lines longer than the read cap, of which `text` holds only the head (window-reader.ts) */
  cutLines?: CutLine[];
}

/** Most lines a window holds. */
export const MAX_WINDOW_LINES = 4000;
/** Bytes aimed at per window: under the read cap, with room for lines longer than average. */
const WINDOW_BYTE_BUDGET = 160_000;
/**
 * A window is replaced when the view comes this close (a fraction of its lines) to
 * an edge that is not the file's. Held-down PageDown moves ~40 lines per key
 * repeat; 30% of a 2,000-line window leaves ~15 pages for the next read to land.
 */
export const EDGE_MARGIN_FRACTION = 0.3;

export function windowLinesFor(fileBytes: number, totalLines: number): number {
  const avgLineBytes = totalLines > 0 ? Math.max(1, fileBytes / totalLines) : 80;
  return Math.max(200, Math.min(MAX_WINDOW_LINES, Math.floor(WINDOW_BYTE_BUDGET / avgLineBytes)));
}

/** The window to fetch so that `lineNo` sits in its middle: `[startLine, endLine]`. */
export function windowAround(lineNo: number, windowLines: number, totalLines: number): { startLine: number; endLine: number } {
  const last = Math.max(1, totalLines);
  const target = Math.min(Math.max(1, lineNo), last);
  const startLine = Math.max(1, Math.min(target - Math.floor(windowLines / 2), last - windowLines + 1));
  return { startLine, endLine: Math.min(last, startLine + windowLines - 1) };
}

/**
 * Whether the view (file lines `topLine`..`bottomLine`) is near an edge of `win`
 * beyond which the file goes on: then the neighbouring window is due.
 */
export function needsNeighbourWindow(win: LineWindow, topLine: number, bottomLine: number, totalLines: number): boolean {
  // At least one line: a window of a few long lines must still hand over at its last line.
  const margin = Math.max(1, Math.floor((win.endLine - win.startLine + 1) * EDGE_MARGIN_FRACTION));
  const nearTop = win.startLine > 1 && topLine - win.startLine < margin;
  const nearBottom = win.endLine < totalLines && win.endLine - bottomLine < margin;
  return nearTop || nearBottom;
}

/** A line number the person typed ("5,000,000", "5000000", " 42 "), clamped to the file, or null. */
export function lineNoOf(typed: string, totalLines: number): number | null {
  const digits = typed.replace(/[\s,_.]/g, '');
  if (!/^\d+$/.test(digits)) return null;
  return Math.min(Math.max(1, Number(digits)), Math.max(1, totalLines));
}
