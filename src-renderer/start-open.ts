/**
 * Opens the launch file (`?file=` or `?path=`, landing on `&lines=A-B`) as soon as this module is evaluated. main.tsx
 * imports it first, so the first read and file_info leave before React and the
 * rest of the bundle are evaluated, and the first lines paint as soon as React
 * has mounted. When `folio serve` put the file's first window in the page
 * (src-main/doors/http/first-window.ts), that answer is used instead of reading
 * it again: its rows are already painted from the HTML.
 */
import type { ReadOutput } from '../src-main/api/schemas.ts';
import { launchParamsOf } from './launch-params.ts';
import { useViewerStore } from './stores/viewer-store.ts';

performance.mark('folio:start-open');
const { file, lines } = launchParamsOf(window.location.search);
if (file) {
  void useViewerStore.getState().openFile(file, firstReadOf(file));
  // Made once file_info answers (the store keeps a jump asked for before it).
  if (lines) void useViewerStore.getState().showLines(lines);
}

/** The first window the page came with, if it is of `file`. */
function firstReadOf(file: string): ReadOutput | undefined {
  const text = document.getElementById('folio-first-window')?.textContent;
  if (!text) return undefined;
  try {
    const first = JSON.parse(text) as { path?: string; read?: ReadOutput };
    return first.path === file ? first.read : undefined;
  } catch {
    return undefined;
  }
}
