/**
 * What the "go to" box understands: a line ("5,000,000"), a byte offset
 * ("@123456" or "b123456", 0-based), a fraction of the file ("50%", by lines), or
 * a time in a log ("2024-05-01 12:30", "12:30:05", "May  1 12:30"; the engine's
 * time_seek reads it against the file's stamps).
 */
import { lineNoOf } from './line-window.ts';

export type GoToTarget = { kind: 'line'; lineNo: number } | { kind: 'byte'; byte: number } | { kind: 'time'; time: string };

/** What the go-to box says when it cannot use what was typed. */
export const GOTO_HELP = 'not a line number, byte offset @N, percent or time (2024-05-01 12:30, 12:30:05)';

/** Text that reads as a time, not a line: a date, a clock, a month name, an Apache date. */
const TIME_LIKE = /^(?:\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}|[A-Z][a-z]{2} +\d{1,2} \d{1,2}:\d{2}|\d{2}\/[A-Z][a-z]{2}\/\d{4}:)/;

export function goToTargetOf(typed: string, totalLines: number, fileBytes: number): GoToTarget | null {
  const text = typed.trim();
  if (TIME_LIKE.test(text)) return { kind: 'time', time: text };
  const byte = /^[@bB]\s*([\d,_]+)$/.exec(text);
  if (byte) {
    const offset = Number(byte[1]!.replace(/[,_]/g, ''));
    return Number.isFinite(offset) && fileBytes > 0 ? { kind: 'byte', byte: Math.min(offset, fileBytes - 1) } : null;
  }
  const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(text);
  if (percent) return totalLines > 0 ? { kind: 'line', lineNo: lineOfPercent(Number(percent[1]), totalLines) } : null;
  // While the line count is unknown (a big file being indexed), the store clamps once it is known.
  const lineNo = lineNoOf(text, totalLines > 0 ? totalLines : Number.MAX_SAFE_INTEGER);
  return lineNo === null ? null : { kind: 'line', lineNo };
}

/** The line `percent` of the way through the file: 0% is line 1, 100% the last line. */
export function lineOfPercent(percent: number, totalLines: number): number {
  const last = Math.max(1, totalLines);
  const fraction = Math.min(100, Math.max(0, percent)) / 100;
  return 1 + Math.round(fraction * (last - 1));
}
