/**
 * What the page was opened with: `?file=` or `?path=` (the file to show, set by
 * `folio serve FILE`, the Electron main process or a copied link) and `lines=A-B`
 * (the lines to land on, selected). The API token of `folio serve` is not a
 * launch parameter: the server trades it for a cookie on the first load.
 */
import { lineRangeOf, type LineRange } from './model/view-link.ts';

export interface LaunchParams {
  file: string | null;
  lines: LineRange | null;
}

export function launchParamsOf(search: string): LaunchParams {
  const params = new URLSearchParams(search);
  return { file: params.get('file') || params.get('path') || null, lines: lineRangeOf(params.get('lines') ?? '') };
}
