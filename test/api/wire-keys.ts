/** What the wire tests check an answer's field names with. */

/** Keys of `v` and everything under it, except inside `version` (its names are the file version's own) and JSON values. */
export function keysOf(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) keysOf(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      if (k !== 'version' && k !== 'value') keysOf(x, out);
    }
  }
  return out;
}

/** lower_snake_case: what every wire field name is. */
export const SNAKE_CASE = /^[a-z0-9]+(_[a-z0-9]+)*$/;
