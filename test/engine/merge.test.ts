/**
 * The merge of logs (engine/search/merge.ts) and its windows (the merge
 * operation): the merged lines equal a stable sort by time of every file's lines
 * (an unstamped line taking the time of the line above), windows joined by their
 * cursors equal the whole merge, and a window from a time in the middle of big
 * files reads a few chunks, not the files.
 */
import { appendFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { handle, operations } from '../../src-main/api/handle.ts';
import { openIndex } from '../../src-main/engine/index/store.ts';
import { openMerge } from '../../src-main/engine/search/merge.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { MERGE_LOG_START, writeMergeLog } from '../fixtures/merge-logs.ts';

const tmp = engineTempDir();
const ME = { kind: 'human', name: 'test' } as const;
const iso = (ms: number) => new Date(ms).toISOString();

interface Row {
  file: number;
  line: number;
  time: string | null;
  text: string;
}

/** Every line of the merge, from the engine's iterator. */
async function mergeAll(paths: string[], opts: { from?: string; to?: string } = {}): Promise<Row[]> {
  const m = await openMerge(paths, { ...opts, indexOf: (p) => openIndex(p) });
  try {
    const rows: Row[] = [];
    for (let l = m.next(); l; l = m.next()) {
      rows.push({
        file: l.fileIdx,
        line: l.lineNo,
        time: Number.isFinite(l.timeMs) ? iso(l.timeMs) : null,
        text: l.buf.toString('utf8', l.start, l.contentEnd),
      });
    }
    return rows;
  } finally {
    m.close();
  }
}

/** The oracle: each file's lines with their times (an unstamped line: the one above's), all files' lines in one stable sort by time. */
function sortedByTime(texts: string[][]): Row[] {
  const all: (Row & { ms: number })[] = [];
  texts.forEach((lines, file) => {
    let ms = -Infinity;
    lines.forEach((text, i) => {
      const stamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/.exec(text);
      if (stamp) ms = Date.parse(stamp[0]);
      all.push({ file, line: i + 1, time: Number.isFinite(ms) ? iso(ms) : null, text, ms });
    });
  });
  return all.sort((x, y) => x.ms - y.ms).map(({ ms: _ms, ...row }) => row);
}

describe('merge of logs', () => {
  it('equals a stable sort by time of all lines, traces under their line (random files)', async () => {
    const line = fc.record({
      tick: fc.integer({ min: 0, max: 2 }),
      trace: fc.integer({ min: 0, max: 2 }),
      word: fc.constantFrom('INFO a', 'WARN b b', 'ERROR c'),
    });
    const file = fc.record({ lines: fc.array(line, { maxLength: 40 }), crlf: fc.boolean(), finalNewline: fc.boolean(), preamble: fc.boolean() });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(file, { minLength: 1, maxLength: 4 }), async (specs) => {
        run++;
        const texts: string[][] = [];
        const paths = specs.map((spec, f) => {
          let ms = MERGE_LOG_START;
          const lines: string[] = spec.preamble && spec.lines.length > 0 ? ['# started'] : [];
          for (const l of spec.lines) {
            ms += l.tick;
            lines.push(`${iso(ms)} ${l.word}`);
            for (let t = 0; t < l.trace; t++) lines.push(`  at frame ${t}`);
          }
          texts.push(lines);
          const eol = spec.crlf ? '\r\n' : '\n';
          const path = tmp.path(`p${run}-${f}.log`);
          writeFileSync(path, lines.join(eol) + (spec.finalNewline && lines.length > 0 ? eol : ''));
          return path;
        });
        expect(await mergeAll(paths)).toEqual(sortedByTime(texts));
      }),
      { numRuns: 60 },
    );
  });

  it('reads the first stamp of a file that starts with a UTF-8 BOM', async () => {
    const bom = tmp.path('bom.log');
    const plain = tmp.path('plain-1.log');
    writeFileSync(bom, '\uFEFF2026-01-01T00:00:00.002Z INFO b1\n2026-01-01T00:00:00.003Z INFO b2\n');
    writeFileSync(plain, '2026-01-01T00:00:00.001Z INFO p1\n2026-01-01T00:00:00.002Z INFO p2\n');
    const rows = await mergeAll([bom, plain]);
    expect(rows.map((r) => [r.file, r.line, r.time])).toEqual([
      [1, 1, '2026-01-01T00:00:00.001Z'],
      [0, 1, '2026-01-01T00:00:00.002Z'],
      [1, 2, '2026-01-01T00:00:00.002Z'],
      [0, 2, '2026-01-01T00:00:00.003Z'],
    ]);
  });

  describe('windows', () => {
    const paths = [tmp.path('w1.log'), tmp.path('w2.log'), tmp.path('w3.log')];
    writeMergeLog(paths[0]!, { lines: 4_000, seed: 21, traceEvery: 3 });
    writeMergeLog(paths[1]!, { lines: 3_000, seed: 22, crlf: true, traceEvery: 11 });
    writeMergeLog(paths[2]!, { lines: 5_000, seed: 23, finalNewline: false });

    it('joined by their cursors equal the whole merge, cut anywhere (inside traces too)', async () => {
      const whole = await mergeAll(paths);
      for (const size of [1, 7, 333, 5_000]) {
        const rows: Row[] = [];
        let cursor: string | undefined;
        let windows = 0;
        for (;;) {
          const w = await handle('merge', { paths, lines: size, ...(cursor ? { cursor } : {}) }, ME);
          windows++;
          if (windows === 1) expect(operations.merge.output.parse(w)).toEqual(w);
          rows.push(...w.lines.map(({ path: _p, ...row }) => row));
          expect(w.lines.length).toBe(w.next_cursor ? size : w.lines.length);
          if (!w.next_cursor) break;
          cursor = w.next_cursor;
          if (size < 100 && windows >= 400) break; // enough small windows: compare the prefix
        }
        expect(rows).toEqual(whole.slice(0, rows.length));
        if (size >= 100) expect(rows.length).toBe(whole.length);
      }
    });

    it('from a time to a time, joined by cursors, equal the engine from --from to --to', async () => {
      const from = iso(MERGE_LOG_START + 1_234);
      const to = iso(MERGE_LOG_START + 2_345);
      const want = await mergeAll(paths, { from, to });
      expect(want.length).toBeGreaterThan(100);
      expect(want[0]!.time! >= from && want.at(-1)!.time! <= to).toBe(true);
      const rows: (Row & { path: string })[] = [];
      let w = await handle('merge', { paths, from, to, lines: 97 }, ME);
      rows.push(...w.lines);
      while (w.next_cursor) {
        w = await handle('merge', { paths, to, cursor: w.next_cursor, lines: 97 }, ME);
        rows.push(...w.lines);
      }
      expect(rows.map(({ path: _p, ...r }) => r)).toEqual(want);
      expect(w.files.map((f) => f.format)).toEqual(['iso8601', 'iso8601', 'iso8601']);
      expect(w.files[0]!.version.size).toBe(statSync(paths[0]!).size);
    });

    it('with match, windows of matching lines joined by cursors equal the whole merge filtered like grep', async () => {
      const whole = await mergeAll(paths);
      const cases: [string, string | undefined, (t: string) => boolean][] = [
        ['ERROR|WARN', undefined, (t) => /ERROR|WARN/.test(t)],
        ['^    at handler', undefined, (t) => t.startsWith('    at handler')],
        ['error', 'i', (t) => /error/i.test(t)],
        ['request 17\\d\\b', undefined, (t) => /request 17\d\b/.test(t)],
      ];
      for (const [match, flags, keep] of cases) {
        const want = whole.filter((r) => keep(r.text));
        expect(want.length).toBeGreaterThan(5);
        for (const size of [1, 97, 10_000]) {
          const rows: Row[] = [];
          let cursor: string | undefined;
          let windows = 0;
          for (;;) {
            const w = await handle('merge', { paths, match, ...(flags ? { match_flags: flags } : {}), lines: size, ...(cursor ? { cursor } : {}) }, ME);
            windows++;
            rows.push(...w.lines.map(({ path: _p, ...row }) => row));
            expect(w.lines.length).toBe(w.next_cursor ? size : w.lines.length);
            if (!w.next_cursor || (size === 1 && windows >= 50)) break;
            cursor = w.next_cursor;
          }
          expect(rows).toEqual(want.slice(0, rows.length));
          if (size > 1) expect(rows.length).toBe(want.length);
        }
      }
    });

    it('refuses a match that is no regex and flags other than imsu, naming the field', async () => {
      await expect(handle('merge', { paths, match: 'a(b' }, ME)).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'match' } });
      await expect(handle('merge', { paths, match: 'a', match_flags: 'g' }, ME)).rejects.toMatchObject({
        code: 'invalid_input',
        details: { field: 'match_flags' },
      });
      await expect(handle('merge', { paths, match: 'a', match_flags: 'ii' }, ME)).rejects.toMatchObject({ code: 'invalid_input' });
    });

    it('refuses a cursor of another set of files, and a cursor past a file that shrank', async () => {
      const w = await handle('merge', { paths, lines: 10 }, ME);
      await expect(handle('merge', { paths: paths.slice(0, 2), cursor: w.next_cursor! }, ME)).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(handle('merge', { paths, cursor: 'bm90IGEgY3Vyc29y' }, ME)).rejects.toMatchObject({ code: 'invalid_input' });
      const small = [tmp.path('s1.log'), tmp.path('s2.log')];
      writeMergeLog(small[0]!, { lines: 50, seed: 1 });
      writeMergeLog(small[1]!, { lines: 50, seed: 2 });
      const ws = await handle('merge', { paths: small, lines: 60 }, ME);
      writeFileSync(small[1]!, '2026-01-01T00:00:00.000Z INFO x\n');
      await expect(handle('merge', { paths: small, cursor: ws.next_cursor! }, ME)).rejects.toMatchObject({ code: 'conflict' });
    });

    it('answers not_found, no_timestamps and invalid_input as typed errors', async () => {
      await expect(handle('merge', { paths: [paths[0]!, tmp.path('none.log')] }, ME)).rejects.toMatchObject({ code: 'not_found' });
      const plain = tmp.path('plain.txt');
      writeFileSync(plain, 'no\nstamps\nhere\n');
      await expect(handle('merge', { paths: [plain] }, ME)).rejects.toMatchObject({ code: 'no_timestamps' });
      await expect(handle('merge', { paths: [paths[0]!], from: 'soon' }, ME)).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(handle('merge', { paths: [] }, ME)).rejects.toMatchObject({ code: 'invalid_input' });
    });
  });

  it('refuses a cursor into a file rotated (made anew) or cut and written on past it (copytruncate): conflict, reason replaced', async () => {
    const rot = [tmp.path('r1.log'), tmp.path('r2.log')];
    writeMergeLog(rot[0]!, { lines: 200, seed: 71 });
    writeMergeLog(rot[1]!, { lines: 200, seed: 72 });
    const w = await handle('merge', { paths: rot, lines: 10_000 }, ME);
    expect(w.end_cursor).not.toBeNull();
    // Appended to: the cursor goes on.
    appendFileSync(rot[0]!, `${iso(MERGE_LOG_START + 600_000)} INFO appended\n`);
    const more = await handle('merge', { paths: rot, cursor: w.end_cursor!, lines: 10 }, ME);
    expect(more.lines.map((l) => l.text)).toEqual([`${iso(MERGE_LOG_START + 600_000)} INFO appended`]);
    // Rotated: renamed away, a new file at the path, longer than the cursor's byte.
    renameSync(rot[0]!, `${rot[0]}.1`);
    writeMergeLog(rot[0]!, { lines: 400, seed: 73, startMs: MERGE_LOG_START + 900_000 });
    await expect(handle('merge', { paths: rot, cursor: more.end_cursor! }, ME)).rejects.toMatchObject({
      code: 'conflict',
      details: { path: rot[0], reason: 'replaced' },
    });
    // copytruncate: the same inode cut and written on past the cursor's byte.
    const w2 = await handle('merge', { paths: rot, lines: 10_000 }, ME);
    writeMergeLog(rot[1]!, { lines: 400, seed: 74, startMs: MERGE_LOG_START + 950_000 });
    await expect(handle('merge', { paths: rot, cursor: w2.end_cursor! }, ME)).rejects.toMatchObject({
      code: 'conflict',
      details: { path: rot[1], reason: 'replaced' },
    });
  });

  it('goes on after the files grow: end_cursor, and the cursor of a window a file had run out in', async () => {
    const grow = [tmp.path('g1.log'), tmp.path('g2.log'), tmp.path('g3-empty.log')];
    writeMergeLog(grow[0]!, { lines: 300, seed: 31, traceEvery: 4 });
    writeMergeLog(grow[1]!, { lines: 40, seed: 32, crlf: true });
    writeFileSync(grow[2]!, '');
    const before = await mergeAll(grow);
    // Windows of 100 to the end, keeping each one's start cursor (g2 runs out in the first).
    const starts: (string | undefined)[] = [undefined];
    let w = await handle('merge', { paths: grow, lines: 100 }, ME);
    expect(w.end_cursor).toBeNull();
    while (w.next_cursor) {
      starts.push(w.next_cursor);
      w = await handle('merge', { paths: grow, cursor: w.next_cursor, lines: 100 }, ME);
    }
    expect(w.end_cursor).not.toBeNull();
    // A writer appends to each file, later stamps than any before (and a trace under g1's).
    const later = (k: number) => iso(MERGE_LOG_START + 60_000 + k);
    appendFileSync(grow[0]!, `${later(1)} INFO g1 new\n    at more (/x.js:1:1)\n${later(3)} WARN g1 newer\n`);
    appendFileSync(grow[1]!, `${later(1)} INFO g2 new\r\n${later(2)} INFO g2 newer\r\n`);
    appendFileSync(grow[2]!, `${later(0)} INFO g3 first\n`);
    const after = await mergeAll(grow);
    expect(after.length).toBe(before.length + 6);
    const fromEnd = await handle('merge', { paths: grow, cursor: w.end_cursor!, lines: 100 }, ME);
    expect(fromEnd.lines.map(({ path: _p, ...r }) => r)).toEqual(after.slice(before.length));
    expect(fromEnd.next_cursor).toBeNull();
    // The last window again from its start: its lines and the new ones, g2's included though it had run out.
    const k = starts.length - 1;
    const again = await handle('merge', { paths: grow, cursor: starts[k]!, lines: 1_000 }, ME);
    expect(again.lines.map(({ path: _p, ...r }) => r)).toEqual(after.slice(k * 100));
    // Nothing new: the end cursor gives no lines and itself again.
    const quiet = await handle('merge', { paths: grow, cursor: fromEnd.end_cursor!, lines: 10 }, ME);
    expect(quiet.lines).toEqual([]);
    expect(quiet.end_cursor).toBe(fromEnd.end_cursor);
    // A view cut by `to` has no end to go on from.
    const cut = await handle('merge', { paths: grow, to: iso(MERGE_LOG_START + 10), lines: 10_000 }, ME);
    expect(cut.next_cursor).toBeNull();
    expect(cut.end_cursor).toBeNull();
  });

  it('starts a window at a time in the middle of 3 × 64 MiB by bisection, reading a few chunks', async () => {
    const big = [tmp.path('big1.log'), tmp.path('big2.log'), tmp.path('big3.log')];
    big.forEach((p, i) => writeMergeLog(p, { bytes: 64 << 20, seed: 100 + i, traceEvery: 50 }));
    // The line index is built once per file (and persisted); every window after that reads only near its cursor.
    await Promise.all(big.map((p) => openIndex(p)));
    const total = big.reduce((n, p) => n + statSync(p).size, 0);
    const from = iso(MERGE_LOG_START + 400_000);
    const w = await handle('merge', { paths: big, from, lines: 500 }, ME);
    expect(w.lines.length).toBe(500);
    expect(w.lines[0]!.time! >= from).toBe(true);
    expect(w.lines[0]!.line).toBeGreaterThan(100_000);
    // Reads start at 64 KiB a file and double as a file goes on (to 1 MiB): 500 lines need the first.
    expect(w.bytes_read).toBeLessThanOrEqual(3 * 256 * 1024);
    expect(w.bytes_read * 500).toBeLessThan(total);
    // Going on from its cursor reads as little.
    const next = await handle('merge', { paths: big, cursor: w.next_cursor!, lines: 500 }, ME);
    expect(next.bytes_read).toBeLessThanOrEqual(3 * 256 * 1024);
    expect(next.lines[0]!.time! >= w.lines.at(-1)!.time!).toBe(true);
  }, 120_000);
});
