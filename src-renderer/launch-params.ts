/**
 * What the page was opened with: `?file=` or `?path=` (the file to show, set by
 * `folio serve FILE`, the Electron main process or a copied link) and `lines=A-B`
 * (the lines to land on, selected). The API token of `folio serve` is not a
 * launch parameter: the server trades it for a cookie on the first load.
 */
import { lineRangeOf, notLinesProblemOf, type LineRange } from '../src-main/api/folio-link.ts';

export interface LaunchParams {
  file: string | null;
  lines: LineRange | null;
  /** why the page's link opens nothing (its lines are not lines), shown instead of opening it */
  problem: string | null;
}

export function launchParamsOf(search: string): LaunchParams {
  const params = new URLSearchParams(search);
  const file = params.get('file') || params.get('path') || null;
  const linesText = params.get('lines') ?? '';
  const lines = lineRangeOf(linesText);
  if (file && linesText !== '' && !lines) return { file: null, lines: null, problem: notLinesProblemOf(linesText) };
  return { file, lines, problem: null };
}
