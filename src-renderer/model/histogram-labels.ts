/** Labels of the histogram panel: a bucket's time span and width, per-level totals. */

/** "1 h", "5 min", "30 s", "2 d". */
export function durationLabelOf(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}

/** "2024-05-01 12:00 – 12:05" (UTC; seconds when the width needs them, the date again when the end is another day). */
export function bucketLabelOf(startMs: number, widthMs: number): string {
  const cut = widthMs % 60_000 === 0 ? 16 : 19;
  const a = new Date(startMs).toISOString().replace('T', ' ').slice(0, cut);
  const b = new Date(startMs + widthMs).toISOString().replace('T', ' ').slice(0, cut);
  return `${a} – ${a.slice(0, 10) === b.slice(0, 10) ? b.slice(11) : b}`;
}

export function levelTotalsOf<T extends Record<'error' | 'warn' | 'info' | 'debug' | 'other', number>>(buckets: T[]) {
  const t = { error: 0, warn: 0, info: 0, debug: 0, other: 0 };
  for (const b of buckets) for (const l of Object.keys(t) as (keyof typeof t)[]) t[l] += b[l];
  return t;
}
