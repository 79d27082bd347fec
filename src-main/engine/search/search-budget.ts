/**
 * The time budget of one search, and the `timeout` error that ends a search over
 * it. A regex the linear-time engine cannot run (backreferences, lookarounds, the
 * 'i' and 'u' flags: regex-engine.mjs) can backtrack for hours on one line; the
 * budget bounds it (search.ts terminates the worker). The error says how far the
 * search got, so an agent can resume past it or narrow the range.
 */
import { FolioError } from '../errors.ts';
import type { LineIndex } from '../index/line-index.ts';
import { BytesMissing } from '../index/byte-source.ts';

/** Default budget; FOLIO_SEARCH_TIMEOUT_MS (tests, config) overrides it. */
export const DEFAULT_SEARCH_TIMEOUT_MS = 10_000;
const MAX_SEARCH_TIMEOUT_MS = 24 * 3600_000;

/** The budget in ms: the caller's option, else FOLIO_SEARCH_TIMEOUT_MS, else the default. */
export function searchBudgetMs(option: number | undefined): number {
  const fromEnv = process.env.FOLIO_SEARCH_TIMEOUT_MS;
  const value = option ?? (fromEnv ? Number(fromEnv) : DEFAULT_SEARCH_TIMEOUT_MS);
  if (!Number.isInteger(value) || value < 1 || value > MAX_SEARCH_TIMEOUT_MS) {
    const field = option === undefined ? 'FOLIO_SEARCH_TIMEOUT_MS' : 'timeoutMs';
    throw new FolioError('invalid_input', `${field} must be an integer in 1..${MAX_SEARCH_TIMEOUT_MS}, got ${option ?? fromEnv}`, {
      field,
      value: option ?? fromEnv,
    });
  }
  return value;
}

/** How far one piece of a search got: its range, the bytes searched from its start, the matching lines seen. */
export interface PieceProgress {
  start: number;
  end: number;
  bytesDone: number;
  matches: number;
}

/**
 * Lines before byte `offset` (a line start, or inside the line not yet finished), or
 * undefined when the index cannot tell without bytes it does not hold: a remote
 * value's block that was never fetched or was dropped from the cache. The budget's
 * timer builds the error, outside any step that could fetch them.
 */
function linesBefore(index: LineIndex, offset: number): number | undefined {
  if (offset >= index.size) return index.lineCount;
  try {
    return index.lineAt(offset);
  } catch (err) {
    if (err instanceof BytesMissing) return undefined;
    throw err;
  }
}

/** The `timeout` error for a search of [start, end) that ran out of its budget with `pieces` done so far. */
export function searchTimeoutError(
  index: LineIndex,
  search: { pattern: string; flags: string; start: number; end: number; budgetMs: number },
  pieces: PieceProgress[],
): FolioError {
  let bytes = 0;
  let lines: number | undefined = 0;
  let matches = 0;
  for (const p of pieces) {
    const done = Math.min(p.bytesDone, p.end - p.start);
    bytes += done;
    const [to, from] = [linesBefore(index, p.start + done), linesBefore(index, p.start)];
    lines = lines === undefined || to === undefined || from === undefined ? undefined : lines + to - from;
    matches += p.matches;
  }
  return new FolioError(
    'timeout',
    `search of /${search.pattern}/${search.flags} in ${index.path} ran out of its ${search.budgetMs} ms budget after ${bytes} of ${search.end - search.start} bytes`,
    {
      path: index.path,
      pattern: search.pattern,
      flags: search.flags,
      budget_ms: search.budgetMs,
      start_byte: search.start,
      end_byte: search.end,
      bytes_scanned: bytes,
      lines_scanned: lines,
      matches_found: matches,
      hint: 'the regex backtracks too much (backreferences, lookarounds, nested quantifiers): simplify it, drop the i/u flags, or search a smaller range (start_line/end_line)',
    },
  );
}
