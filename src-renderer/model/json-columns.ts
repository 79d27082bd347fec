/**
 * JSON Lines fields as columns (lnav's and Datadog's log tables): the top-level
 * fields of the lines in view, the ones chosen shown beside each line. Only the
 * lines in view are parsed, never the file.
 */

/** Lines longer than this are not parsed for columns (the window may hold them cut anyway). */
const MAX_COLUMN_LINE_CHARS = 64 * 1024;
/** A cell's most characters; longer values end in … (the JSON view shows them whole). */
export const MAX_CELL_CHARS = 40;

/** The fields shown when none were chosen: the first present of each group, in this order. */
const DEFAULT_GROUPS = [
  ['time', 'timestamp', 'ts', '@timestamp', 'date'],
  ['level', 'lvl', 'severity', 'loglevel'],
  ['msg', 'message', 'event'],
];

/** The line's JSON object, or null (not an object, not JSON, too long). */
export function jsonObjectOf(line: string): Record<string, unknown> | null {
  if (line.length > MAX_COLUMN_LINE_CHARS) return null;
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The fields of the objects, in the order first seen. */
export function keysSeenOf(objects: readonly (Record<string, unknown> | null)[]): string[] {
  const seen = new Set<string>();
  for (const o of objects) if (o) for (const key of Object.keys(o)) seen.add(key);
  return [...seen];
}

/** The default columns among `keys`: time, level, message when present, else the first three fields. */
export function defaultColumnsOf(keys: readonly string[]): string[] {
  const present = new Set(keys);
  const chosen = DEFAULT_GROUPS.map((group) => group.find((k) => present.has(k))).filter((k): k is string => k !== undefined);
  return chosen.length > 0 ? chosen : keys.slice(0, 3);
}

/** A field's value as a cell shows it: strings as they are (jq -r's), other values as JSON, a missing field empty; one row, at most MAX_CELL_CHARS. */
export function cellTextOf(value: unknown): string {
  if (value === undefined) return '';
  const text = (typeof value === 'string' ? value : JSON.stringify(value)).replace(/[\r\n\t]+/g, ' ');
  return text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS - 1)}…` : text;
}
