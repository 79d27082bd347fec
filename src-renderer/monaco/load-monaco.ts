/**
 * Monaco is a separate chunk (about 5.7 MB of JavaScript, which takes longer to
 * evaluate than a first window takes to read): the file view paints its first
 * lines as plain text, then starts the import and swaps the editor in when it
 * lands. Views that cannot work without Monaco (the diff) start it at once.
 */
import { useEffect, useState } from 'react';

export type MonacoModule = typeof import('./monaco.ts');

let loading: Promise<MonacoModule> | null = null;
let loaded: MonacoModule | null = null;
const waiting = new Set<(m: MonacoModule) => void>();

/** Start the import (once); resolves with the module. */
export function loadMonaco(): Promise<MonacoModule> {
  loading ??= import('./monaco.ts').then((m) => {
    loaded = m;
    performance.mark('folio:monaco-loaded');
    for (const notify of waiting) notify(m);
    waiting.clear();
    return m;
  });
  return loading;
}

/**
 * Monaco in a component: null until the chunk arrived, then the module. With
 * `start` false it only waits for someone else to start the import.
 */
export function useMonaco(start: boolean): MonacoModule | null {
  const [module, setModule] = useState<MonacoModule | null>(loaded);
  useEffect(() => {
    if (module) return;
    if (loaded) {
      setModule(loaded);
      return;
    }
    waiting.add(setModule);
    if (start) void loadMonaco();
    return () => {
      waiting.delete(setModule);
    };
  }, [module, start]);
  return module;
}
