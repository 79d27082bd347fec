/**
 * What the page was opened with: `?file=` (the file to show, set by `folio serve
 * FILE` or by the Electron main process). The API token of `folio serve` is not a
 * launch parameter: the server trades it for a cookie on the first load.
 */
export interface LaunchParams {
  file: string | null;
}

export function launchParamsOf(search: string): LaunchParams {
  const params = new URLSearchParams(search);
  return { file: params.get('file') || null };
}
