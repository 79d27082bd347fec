/**
 * Opens the launch file (`?file=` or `?path=`, landing on `&lines=A-B`) as soon as this module is evaluated. main.tsx
 * imports it first, so the first read and file_info leave before React and the
 * rest of the bundle are evaluated, and the first lines paint as soon as React
 * has mounted. When `folio serve` put the file's first window in the page
 * (src-main/doors/http/first-window.ts), that answer is used instead of reading
 * it again: its rows are already painted from the HTML. A link whose lines are
 * not lines, or past the file's end, opens nothing: the path box says why.
 */
import { linesProblemOf, type LineRange } from '../src-main/api/folio-link.ts';
import type { ReadOutput } from '../src-main/api/schemas.ts';
import { launchParamsOf } from './launch-params.ts';
import { useOpenProblemStore } from './stores/open-problem-store.ts';
import { useViewerStore } from './stores/viewer-store.ts';
import { call } from './transport.ts';

performance.mark('folio:start-open');
const { file, lines, problem } = launchParamsOf(window.location.search);
if (problem) useOpenProblemStore.getState().show(problem);
else if (file && lines) void openAtLines(file, lines);
else if (file) void useViewerStore.getState().openFile(file, firstReadOf(file));

/**
 * A link's file at its lines, once file_info says they are in it (the jump
 * needs file_info anyway). A file that cannot be read is opened all the same:
 * the viewer shows why.
 */
async function openAtLines(path: string, range: LineRange): Promise<void> {
  try {
    const rangeProblem = linesProblemOf(range, path, (await call('file_info', { path })).lines);
    if (rangeProblem) return useOpenProblemStore.getState().show(rangeProblem);
  } catch {
    // openFile below asks again and shows the error
  }
  void useViewerStore.getState().openFile(path, firstReadOf(path));
  // Made once file_info answers (the store keeps a jump asked for before it).
  void useViewerStore.getState().showLines(range);
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
