/**
 * A long-lived process (`folio mcp`, `folio serve`) journals an agent's auto edit
 * of a file as a record (applied-log.ts) instead of an Automerge commit, so the
 * agent's answer does not wait for the review document. The records are folded
 * into the document once the writes pause: IDLE_MS after the last one, under the
 * review lock, as any process that loads the document would fold them first.
 * Until then readers see them settled in memory (settled-view.ts), and any
 * locked review operation folds them before it runs.
 *
 * A failed fold is not an error of anything: the records stay for the next one.
 * The timer does not keep a process alive; a process that exits first leaves the
 * records to the next process that loads the document.
 */
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathsOf } from './applied-log.ts';

const IDLE_MS = Number(process.env.FOLIO_FOLD_IDLE_MS) || 2000;
const timers = new Map<string, NodeJS.Timeout>();

/** Fold `root`'s records IDLE_MS after the last call for it. */
export function foldWhenIdle(root: string): void {
  const abs = resolve(root);
  clearTimeout(timers.get(abs));
  const timer = setTimeout(() => {
    timers.delete(abs);
    fold(abs).catch(() => undefined);
  }, IDLE_MS);
  timer.unref();
  timers.set(abs, timer);
}

async function fold(root: string): Promise<void> {
  const applied = pathsOf(root).appliedDir;
  // The workspace was removed meanwhile (a test's temp folder): nothing to fold, and nothing to recreate.
  if (!existsSync(applied) || !readdirSync(applied).some((n) => n.endsWith('.json'))) return;
  const { storeOf } = await import('./store.ts');
  await storeOf(root).locked(() => undefined);
}
