/**
 * A merge's `match` runs in worker threads (engine/search/line-filter.ts), a batch
 * of lines at a time: windows joined by their cursors still equal grep over the
 * whole merge whatever the window size and the density of matches (cursors fall
 * inside batches read ahead), a follow from end_cursor still sees the lines
 * written since, and a regex that backtracks for hours (the `i` flag the app sends
 * by default keeps V8 off its linear engine) neither stops other calls nor runs
 * past its budget: `timeout`, or `cancelled` at once when the caller goes away.
 */
import { appendFileSync, unlinkSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { closeLineFilterPools } from '../../src-main/engine/search/line-filter.ts';
import { openMerge } from '../../src-main/engine/search/merge.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { MERGE_LOG_START, writeMergeLog } from '../fixtures/merge-logs.ts';

const tmp = engineTempDir();
const ME = { kind: 'human', name: 'test' } as const;
const iso = (ms: number) => new Date(ms).toISOString();

afterAll(closeLineFilterPools);

interface Row {
  file: number;
  line: number;
  text: string;
}

/** Every line of the merge, in windows without match. */
async function mergeAll(paths: string[]): Promise<Row[]> {
  const rows: Row[] = [];
  let w = await handle('merge', { paths, lines: 10_000 }, ME);
  rows.push(...w.lines.map(({ file, line, text }) => ({ file, line, text })));
  while (w.next_cursor) {
    w = await handle('merge', { paths, cursor: w.next_cursor, lines: 10_000 }, ME);
    rows.push(...w.lines.map(({ file, line, text }) => ({ file, line, text })));
  }
  return rows;
}

/** The matching lines in windows of `size`, each from the last one's cursor. */
async function matchedInWindows(paths: string[], match: string, flags: string, size: number): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | undefined;
  for (;;) {
    const w = await handle('merge', { paths, match, ...(flags ? { match_flags: flags } : {}), lines: size, ...(cursor ? { cursor } : {}) }, ME);
    rows.push(...w.lines.map(({ file, line, text }) => ({ file, line, text })));
    if (w.next_cursor) expect(w.lines.length).toBe(size);
    if (!w.next_cursor) return rows;
    cursor = w.next_cursor;
  }
}

describe('merge with match, in batches', () => {
  const paths = [tmp.path('a.log'), tmp.path('b.log'), tmp.path('c.log')];
  writeMergeLog(paths[0]!, { lines: 2_500, seed: 41, traceEvery: 5 });
  writeMergeLog(paths[1]!, { lines: 1_500, seed: 42, crlf: true });
  writeMergeLog(paths[2]!, { lines: 3_000, seed: 43, finalNewline: false, traceEvery: 17 });

  it('windows of any size joined by cursors equal grep over the whole merge, for dense, sparse and no matches', async () => {
    const whole = await mergeAll(paths);
    // Densities from every line to none: cursors land before, inside and after the batches read ahead.
    const patterns: [string, string][] = [
      ['.', ''],
      ['info|debug', 'i'],
      ['ERROR', ''],
      ['request 1\\d{3} ', ''],
      ['svc-0.*request 299\\b', ''],
      ['^nothing$', 'i'],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...patterns), fc.integer({ min: 40, max: 3_000 }), async ([match, flags], size) => {
        const re = new RegExp(match, flags);
        const want = whole.filter((r) => re.test(r.text));
        const got = await matchedInWindows(paths, match, flags, size);
        expect(got).toEqual(want);
      }),
      { numRuns: 12, seed: 4242 },
    );
  });

  it('tests the lines the merge hands out: CRLF, a lone CR, empty lines, a 3 MiB line, a BOM, no final newline', async () => {
    const odd = [tmp.path('odd1.log'), tmp.path('odd2.log')];
    const big = 'x'.repeat(3 << 20);
    const rows1 = [
      '\ufeff2026-01-01T00:00:00.000Z INFO bom first',
      '2026-01-01T00:00:00.001Z INFO carriage\rreturn inside',
      '',
      `2026-01-01T00:00:00.002Z WARN long ${big} tail-é`,
      '    at end-of-trace',
      '2026-01-01T00:00:00.004Z INFO last without newline é',
    ];
    writeFileSync(odd[0]!, rows1.join('\r\n'));
    writeFileSync(odd[1]!, ['2026-01-01T00:00:00.001Z ERROR other', '', '2026-01-01T00:00:00.003Z INFO é tail-é', ''].join('\n'));
    const whole = await mergeAll(odd);
    expect(whole).toHaveLength(9);
    for (const [match, flags] of [
      ['tail-é$', ''],
      ['^$', ''],
      ['\\r', ''],
      ['^\ufeff', ''],
      ['É$', 'i'],
      ['newline', ''],
      ['.', 's'],
    ] as const) {
      const re = new RegExp(match, flags);
      const want = whole.filter((r) => re.test(r.text));
      for (const size of [1, 2, 100]) expect(await matchedInWindows(odd, match, flags, size), `${match} in windows of ${size}`).toEqual(want);
    }
  });

  it('a file removed under the merge is not_found, naming it', async () => {
    const gone = [tmp.path('gone1.log'), tmp.path('gone2.log')];
    writeMergeLog(gone[0]!, { lines: 300, seed: 81 });
    writeMergeLog(gone[1]!, { lines: 300, seed: 82 });
    const merge = await openMerge(gone, { match: 'INFO' });
    try {
      unlinkSync(gone[1]!);
      await expect(
        (async () => {
          while (await merge.nextMatch());
        })(),
      ).rejects.toMatchObject({ code: 'not_found', details: { path: gone[1] } });
    } finally {
      merge.close();
    }
  });

  it('goes on from end_cursor to the matching lines written since', async () => {
    const grow = [tmp.path('g1.log'), tmp.path('g2.log')];
    writeMergeLog(grow[0]!, { lines: 900, seed: 51, traceEvery: 4 });
    writeMergeLog(grow[1]!, { lines: 700, seed: 52 });
    let w = await handle('merge', { paths: grow, match: 'warn', match_flags: 'i', lines: 10_000 }, ME);
    expect(w.next_cursor).toBeNull();
    expect(w.end_cursor).not.toBeNull();
    const later = (k: number) => iso(MERGE_LOG_START + 3_600_000 + k);
    appendFileSync(grow[0]!, `${later(1)} WARN g1 new\n${later(2)} INFO g1 quiet\n`);
    appendFileSync(grow[1]!, `${later(3)} warn g2 new\n`);
    w = await handle('merge', { paths: grow, match: 'warn', match_flags: 'i', cursor: w.end_cursor!, lines: 10 }, ME);
    expect(w.lines.map((l) => l.text)).toEqual([`${later(1)} WARN g1 new`, `${later(3)} warn g2 new`]);
    expect(w.end_cursor).not.toBeNull();
  });
});

describe('a match that backtracks', () => {
  // `(a+)+$` on a's and a '!' backtracks 2^n times: with the `i` flag V8 cannot restart it on its linear engine.
  const evil = tmp.path('evil.log');
  const calm = tmp.path('calm.log');
  writeFileSync(evil, `2026-01-01T00:00:00.000Z INFO ${'a'.repeat(40)}!\n2026-01-01T00:00:01.000Z INFO fine\n`);
  writeMergeLog(calm, { lines: 200, seed: 61 });
  const pathological = { match: '(a+)+$', match_flags: 'i' };

  it('stops other calls for none of its time, and ends in timeout at its budget, naming where', async () => {
    const before = process.env.FOLIO_SEARCH_TIMEOUT_MS;
    process.env.FOLIO_SEARCH_TIMEOUT_MS = '3000';
    try {
      const order: string[] = [];
      const stuck = handle('merge', { paths: [evil, calm], ...pathological }, ME).then(
        () => order.push('merge answered'),
        (err: unknown) => {
          order.push('merge failed');
          return err;
        },
      );
      // Calls made while the regex runs answer first: the thread that answers them is free.
      const read = await handle('read', { path: calm, offset: 1, limit: 3 }, ME);
      order.push('read');
      expect([read.start_line, read.end_line]).toEqual([1, 3]);
      const other = await handle('merge', { paths: [calm], match: 'ERROR', lines: 5 }, ME);
      order.push('other merge');
      expect(other.lines.every((l) => l.text.includes('ERROR'))).toBe(true);
      const err = await stuck;
      expect(order).toEqual(['read', 'other merge', 'merge failed']);
      expect(err).toMatchObject({ code: 'timeout', details: { field: 'match', budget_ms: 3000, path: evil, line: 1 } });
    } finally {
      if (before === undefined) delete process.env.FOLIO_SEARCH_TIMEOUT_MS;
      else process.env.FOLIO_SEARCH_TIMEOUT_MS = before;
    }
  });

  it('answers cancelled as soon as its caller aborts, and the next match runs', async () => {
    const controller = new AbortController();
    const stuck = handle('merge', { paths: [evil, calm], ...pathological }, ME, { signal: controller.signal });
    controller.abort();
    await expect(stuck).rejects.toMatchObject({ code: 'cancelled' });
    const next = await handle('merge', { paths: [calm], match: 'warn', match_flags: 'i', lines: 3 }, ME);
    expect(next.lines).toHaveLength(3);
  });
});
