/**
 * A log line for the side view (j, the JSON button): the JSON in it pretty-printed
 * (JSON Lines, or an object after a prefix such as `2024-05-01 INFO [worker-1] …
 * payload={…}`), else its logfmt key=value pairs as fields, else why neither.
 */
import { logfmtOf, type LogfmtPair } from './logfmt.ts';

export type PrettyJson = { ok: true; text: string; prefix: string } | { ok: false; message: string };

export type LineView =
  | { ok: true; text: string; prefix: string; fields?: undefined }
  | { ok: true; fields: LogfmtPair[]; prefix: string; text?: undefined }
  | { ok: false; message: string };

/** Lines longer than this are not parsed in the page (it would hold several copies of them). */
export const MAX_JSON_LINE_BYTES = 16 << 20;

/** Brackets tried as the start of the line's JSON: a line of many `[` is not parsed that many times. */
const MAX_CANDIDATES = 32;

/**
 * The line's JSON value pretty-printed. The whole line first (JSON Lines); else
 * every `{` or `[` is a candidate start, its value ending at the matching bracket
 * (strings skipped), and the longest that parses wins: `[worker-1]` or `[1]` before
 * a `payload={…}` is not the line's JSON. The error, when none parses, is the first
 * object's (else the first candidate's), placed by its column in the line.
 */
export function prettyJsonOf(line: string): PrettyJson {
  const trimmed = line.trim();
  if (trimmed === '') return { ok: false, message: 'The line is empty' };
  const whole = parsed(trimmed);
  if (whole.ok) return { ok: true, text: JSON.stringify(whole.value, null, 2), prefix: '' };
  let best: { start: number; end: number; value: unknown } | null = null;
  let firstError: { start: number; message: string; object: boolean } | null = null;
  let tried = 0;
  for (let start = nextBracketOf(trimmed, 0); start !== -1 && tried < MAX_CANDIDATES; tried++) {
    const end = matchingEndOf(trimmed, start);
    const attempt = parsed(trimmed.slice(start, end));
    if (attempt.ok) {
      if (!best || end - start > best.end - best.start) best = { start, end, value: attempt.value };
      // Brackets inside a parsed value are its own: go on after it.
      start = nextBracketOf(trimmed, end);
      continue;
    }
    const object = trimmed[start] === '{';
    if (!firstError || (object && !firstError.object)) firstError = { start, message: attempt.message, object };
    start = nextBracketOf(trimmed, start + 1);
  }
  if (best) return { ok: true, text: JSON.stringify(best.value, null, 2), prefix: trimmed.slice(0, best.start).trim() };
  if (firstError) return { ok: false, message: `Not JSON: ${firstError.message} (in the ${trimmed[firstError.start]}… at column ${firstError.start + 1})` };
  return { ok: false, message: `Not JSON: ${whole.message}` };
}

/** The line as the side view shows it: its JSON, else its key=value fields, else why neither (the JSON error). */
export function lineViewOf(line: string): LineView {
  const json = prettyJsonOf(line);
  if (json.ok) return json;
  const fields = logfmtOf(line.trim());
  if (fields) return { ok: true, fields: fields.pairs, prefix: fields.prefix };
  return json;
}

function parsed(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

function nextBracketOf(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) return i;
  }
  return -1;
}

/** The index after the bracket that closes the one at `start` (strings skipped), or the text's end when it is not closed. */
function matchingEndOf(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return i + 1;
    }
  }
  return text.length;
}
