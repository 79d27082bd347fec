/**
 * A log line as JSON, pretty-printed for the side view: the whole line parsed
 * (JSON Lines, or a JSON object after a prefix such as a timestamp), or the
 * parse error with where it happened.
 */
export type PrettyJson = { ok: true; text: string; prefix: string } | { ok: false; message: string };

/** Lines longer than this are not parsed in the page (it would hold several copies of them). */
export const MAX_JSON_LINE_BYTES = 16 << 20;

export function prettyJsonOf(line: string): PrettyJson {
  const trimmed = line.trim();
  if (trimmed === '') return { ok: false, message: 'The line is empty' };
  const first = trimmed.search(/[[{]/);
  // A whole-line JSON value first; else the object or array after a prefix ("2024-05-01 INFO {…}").
  const candidates = first > 0 ? [trimmed, trimmed.slice(first)] : [trimmed];
  let error = '';
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate);
      return { ok: true, text: JSON.stringify(value, null, 2), prefix: trimmed.slice(0, trimmed.length - candidate.length).trim() };
    } catch (err) {
      error ||= err instanceof Error ? err.message : String(err);
    }
  }
  return { ok: false, message: `Not JSON: ${error}` };
}
