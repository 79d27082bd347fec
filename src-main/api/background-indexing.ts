/**
 * The app's doors (Electron, `folio serve`) index the file they show while they
 * paint it: that indexing is background work, its threads niced so the first lines
 * come first. Every other door (the CLI, MCP over stdio) runs the index threads
 * of a command someone waits for at normal priority. The app's doors also warm
 * their search and histogram workers once a big file's index is complete
 * (engine/search/warm-workers.ts), so the first filter or histogram runs at speed.
 */
import { indexInBackground as indexThreadsInBackground } from '../engine/index/builder.ts';
import { warmScanWorkersOnOpen } from '../engine/search/warm-workers.ts';

export function indexInBackground(on: boolean): void {
  indexThreadsInBackground(on);
  warmScanWorkersOnOpen(on);
}
