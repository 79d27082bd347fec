/**
 * What the page was opened with: `?file=` (the file to show, set by `folio serve
 * FILE` or by the Electron main process) and `?token=` (the API token of
 * `folio serve`; absent in Electron, which talks over IPC).
 */
export interface LaunchParams {
  file: string | null;
  token: string | null;
}

export function launchParamsOf(search: string): LaunchParams {
  const params = new URLSearchParams(search);
  return { file: params.get('file') || null, token: params.get('token') || null };
}
