/**
 * The filter view's checkpoints (filter-store.ts), through the real `search` op on
 * a real file: after a far jump, paging down leaves checkpoints of its own, so
 * jumping back into what was paged through refetches from a checkpoint near the row
 * instead of counting its way there again. Before, a page only left a checkpoint
 * when it passed the last one in the list, which the whole-file count had already
 * put at the file's end. Rows shown are checked against the file's own lines.
 */
import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

const HUMAN = { kind: 'human', name: 'test' } as const;
/** Each search call's input, in order. */
const asked: { start_byte: number; count_only: boolean }[] = [];

vi.mock('../../src-renderer/transport.ts', async () => {
  const actual = await vi.importActual<typeof import('../../src-renderer/transport.ts')>('../../src-renderer/transport.ts');
  return {
    ...actual,
    call: async (op: string, input: Record<string, unknown>) => {
      if (op === 'search') asked.push({ start_byte: input.start_byte as number, count_only: input.count_only === true });
      return handle(op as 'search', input as never, HUMAN);
    },
  };
});

const { useFilterStore, PAGE_ROWS, WINDOW_ROWS } = await import('../../src-renderer/stores/filter-store.ts');
const { useViewerStore } = await import('../../src-renderer/stores/viewer-store.ts');

const tmp = engineTempDir();
const path = tmp.path('app.log');
/** 120,000 lines; every other one (the even ones, 0-based) passes: row r is line 2r + 1 (1-based). */
const LINES = 120_000;
const lines = Array.from({ length: LINES }, (_, i) => `2024-05-01T00:00:00Z ${i % 2 === 0 ? 'ERROR' : 'INFO'} request ${i}`);
writeFileSync(path, lines.join('\n') + '\n');
const ROWS = LINES / 2;

const filter = () => useFilterStore.getState();
/** Until the store has stopped fetching and counting. */
const settled = () =>
  new Promise<void>((resolve) => {
    const done = (s: ReturnType<typeof filter>) => !s.loading && !s.counting;
    if (done(filter())) return resolve();
    const stop = useFilterStore.subscribe((s) => {
      if (done(s)) {
        stop();
        resolve();
      }
    });
  });
/** Scroll the list to rows first..last, as the list does, and wait until they are in. */
async function show(first: number, last: number): Promise<void> {
  await filter().showRows(first, last);
  await settled();
}
function expectRowsAreTheFilesLines(): void {
  const { rows, rowsStart } = filter();
  expect(rows.length).toBeGreaterThan(0);
  for (const i of [0, Math.floor(rows.length / 2), rows.length - 1]) {
    expect(rows[i]!.line).toBe(2 * (rowsStart + i) + 1);
    expect(rows[i]!.text).toBe(lines[2 * (rowsStart + i)]);
  }
}

beforeAll(async () => {
  const info = await handle('file_info', { path }, HUMAN);
  useViewerStore.setState({ path, info: info as never, error: null });
  filter().setTerms([{ pattern: 'ERROR', exclude: false }]);
  await filter().apply();
  await settled();
});

describe('filter checkpoints after a far jump', () => {
  it('paging down from a far jump leaves checkpoints, and a jump back refetches from one near the row without counting', async () => {
    expect(filter().total).toBe(ROWS);
    // A far jump (a scrollbar dragged two thirds down): narrowed by counting.
    await show(30_000, 30_100);
    expect(filter().rowsStart).toBeLessThanOrEqual(30_000);
    expectRowsAreTheFilesLines();
    // Page down, as scrolling does, until the rows around 40,000 have left the window.
    while (filter().rowsStart + filter().rows.length < 40_000 + WINDOW_ROWS + PAGE_ROWS) {
      const end = filter().rowsStart + filter().rows.length;
      await show(end - 50, end + 50);
    }
    expect(filter().rowsStart).toBeGreaterThan(40_000);
    // Every stretch paged through has checkpoints at most 2 × PAGE_ROWS apart (a page's end is skipped only
    // within 1,000 rows of another checkpoint): no jump into it goes far enough to count (JUMP_FETCH_ROWS).
    const paged = filter().checkpoints.filter((c) => c.row >= 30_000 && c.row <= filter().rowsStart);
    const gaps = paged.slice(1).map((c, i) => c.row - paged[i]!.row);
    expect(paged.length, JSON.stringify(filter().checkpoints)).toBeGreaterThan(5);
    expect(Math.max(...gaps), JSON.stringify(paged)).toBeLessThanOrEqual(2 * PAGE_ROWS);
    // Jump back: a fetch from a checkpoint within 2 × PAGE_ROWS before the row, no counting.
    asked.length = 0;
    await show(40_000, 40_100);
    expect(asked.filter((a) => a.count_only)).toEqual([]);
    expect(filter().rowsStart).toBeLessThanOrEqual(40_000);
    expect(filter().rowsStart).toBeGreaterThan(40_000 - 2 * PAGE_ROWS);
    expectRowsAreTheFilesLines();
  });
});
