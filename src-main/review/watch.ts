/**
 * Watching the review state, for doors that push changes (the renderer). The
 * listener fires when this process changes the document and when another
 * process's change is seen on disk (fs.watch on the state directory, debounced,
 * then a refresh that fires only if the document really changed). Edits the CLI
 * journaled as records (applied-log.ts) are folded into the document when seen.
 */
import { mkdirSync, watch as fsWatch, type FSWatcher } from 'node:fs';
import { appliedDirOf, appliedRecordsOf } from './applied-log.ts';
import { storeOf, type ChangeListener } from './store.ts';

const DEBOUNCE_MS = 25;

export function watch(root: string, listener: ChangeListener): () => void {
  const store = storeOf(root);
  mkdirSync(store.changesDir, { recursive: true });
  const off = store.onChange(listener);
  let timer: NodeJS.Timeout | null = null;
  const applied = appliedDirOf(store.dir);
  mkdirSync(applied, { recursive: true });
  const poke = () => {
    timer ??= setTimeout(() => {
      timer = null;
      store.refresh(); // emits 'change' to every listener if something new was loaded
      // A CLI edit journaled as a record (applied-log.ts): fold it in now (a commit, which emits 'change').
      if (appliedRecordsOf(store.dir).length) store.locked(() => undefined).catch(() => undefined);
    }, DEBOUNCE_MS);
  };
  const watchers: FSWatcher[] = [store.changesDir, store.dir, applied].map((dir) => fsWatch(dir, { persistent: false }, poke));
  return () => {
    off();
    for (const w of watchers) w.close();
    if (timer) clearTimeout(timer);
  };
}
