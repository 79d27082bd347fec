/**
 * Follow mode against a real file through the real read and file_info ops: the
 * new version's end is shown even when the editor asks for a neighbouring window
 * while the follow read is in flight (a layout change as the review rail opens, a
 * scroll event): an e2e run saw the view keep the old end after an append.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

const HUMAN = { kind: 'human', name: 'test' } as const;
/** Reads wait while `held` is set; file_info and the rest go straight through. */
let held: Promise<void> | null = null;
const readsAsked: unknown[] = [];

vi.mock('../../src-renderer/transport.ts', () => ({
  call: async (op: string, input: Record<string, unknown>) => {
    if (op === 'recent_add' || op === 'recent_list') return { entries: [] };
    if (op === 'read') {
      readsAsked.push(input);
      if (held) await held;
    }
    return handle(op as 'read', input as never, HUMAN);
  },
}));

const { useViewerStore } = await import('../../src-renderer/stores/viewer-store.ts');

const tmp = engineTempDir();
const lineOf = (n: number) => `2024-05-01T00:00:00Z INFO request id=${n} served in ${n % 97} ms`;
const linesFrom = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => lineOf(first + i) + '\n').join('');

/** Resolves once the store's state satisfies `ok` (checked on every change). */
function until(ok: (s: ReturnType<typeof useViewerStore.getState>) => boolean): Promise<void> {
  if (ok(useViewerStore.getState())) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = useViewerStore.subscribe((s) => {
      if (!ok(s)) return;
      stop();
      resolve();
    });
  });
}

beforeAll(() => {
  // The store's change poll checks whether the page is visible.
  vi.stubGlobal('document', { visibilityState: 'visible' });
});
afterAll(() => {
  useViewerStore.getState().setFollowing(false);
  vi.unstubAllGlobals();
});

describe('viewer follow mode', () => {
  it('shows the appended end even when a neighbouring window is asked for while the follow read is in flight', async () => {
    const path = tmp.path('follow.log');
    writeFileSync(path, linesFrom(1, 20_000));
    const store = useViewerStore.getState();
    await store.openFile(path);
    await until((s) => s.window !== null && s.info?.lines === 20_000);
    store.setFollowing(true);
    await until((s) => s.window?.endLine === 20_000 && s.reveal.kind === 'line');

    let release!: () => void;
    held = new Promise((resolve) => (release = resolve));
    readsAsked.length = 0;
    appendFileSync(path, linesFrom(20_001, 20_300));
    // Follow takes the new file_info, then reads the window at its end (held here)...
    const followed = useViewerStore.getState().refresh();
    await until((s) => s.info?.lines === 20_300);
    await vi.waitUntil(() => readsAsked.length > 0);
    // ...while the editor, still showing the old end, asks for the window below it (FileView's reportViewport).
    const neighbour = useViewerStore.getState().shiftWindowTo(20_000 - 15);
    held = null;
    release();
    await Promise.all([followed, neighbour]);

    const s = useViewerStore.getState();
    expect(s.following).toBe(true);
    expect(s.window?.endLine).toBe(20_300);
    expect(s.window?.text.split('\n').at(-1)).toBe(lineOf(20_300));
    expect(s.reveal).toMatchObject({ kind: 'line', lineNo: 20_300, at: 'bottom' });
  });
});
