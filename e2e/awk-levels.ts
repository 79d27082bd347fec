/**
 * awk's count of a log's rows by level, as the `query` operation names them
 * (docs/API.md, "Queries over log fields"): a row is a stamped line, its level the
 * word after the stamp in lower case, TRACE counted as debug. The independent
 * reference the query panel's level counts are checked against.
 */
import { execFileSync } from 'node:child_process';

/** An ISO-stamped line, as awk matches it. */
export const AWK_STAMPED = '/^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T/';

export function awkLevelCounts(file: string): Record<string, number> {
  const out = execFileSync(
    'awk',
    [`${AWK_STAMPED} { l = tolower($2); if (l == "trace") l = "debug"; n[l]++ } END { for (l in n) printf "%s\\t%d\\n", l, n[l] }`, file],
    { encoding: 'utf8', maxBuffer: 16 << 20, env: { ...process.env, LC_ALL: 'C' } },
  );
  return Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((row) => row.split('\t'))
      .map(([level, n]) => [level!, Number(n)]),
  );
}
