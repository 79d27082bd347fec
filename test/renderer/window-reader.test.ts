/**
 * The viewer's window reader over the real read op, on files with lines longer
 * than the read cap: windows reach past such a line (shown cut), every read
 * moves forward, and the number of reads per window is bounded.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { LONG_LINE_HEAD_BYTES, MAX_READS_PER_WINDOW, lineSizeLabelOf, readLineWindow, type WindowRead } from '../../src-renderer/model/window-reader.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

const tmp = engineTempDir();
const HUMAN = { kind: 'human', name: 'test' } as const;
const short = (n: number) => `2024-05-01T00:00:00Z INFO line=${n} hello`;

function fileWith(name: string, lines: number, longAt: Map<number, number>): { path: string; lineOf(n: number): string } {
  const lineOf = (n: number) => (longAt.has(n) ? `{"n":${n},"big":"${'x'.repeat(longAt.get(n)!)}"}` : short(n));
  const path = tmp.path(name);
  writeFileSync(path, Array.from({ length: lines }, (_, i) => lineOf(i + 1) + '\n').join(''));
  return { path, lineOf };
}

function counted(path: string): { read: WindowRead; calls: () => number } {
  let calls = 0;
  return {
    read: (input) => {
      calls++;
      return handle('read', { path, ...input }, HUMAN);
    },
    calls: () => calls,
  };
}

describe('readLineWindow', () => {
  it('reaches past a line longer than the cap, showing its head and listing it as cut', async () => {
    const f = fileWith('one-long.log', 3000, new Map([[1500, 1_310_000]]));
    const { read, calls } = counted(f.path);
    const win = (await readLineWindow(read, 1000, 2000))!;
    expect(win.startLine).toBe(1000);
    expect(win.endLine).toBe(2000);
    const rows = win.text.split('\n');
    expect(rows).toHaveLength(1001);
    expect(rows[0]).toBe(short(1000));
    expect(rows[499]).toBe(short(1499));
    expect(rows[500]).toBe(f.lineOf(1500).slice(0, LONG_LINE_HEAD_BYTES));
    expect(rows[501]).toBe(short(1501));
    expect(rows[1000]).toBe(short(2000));
    expect(win.cutLines).toEqual([{ lineNo: 1500, startByte: expect.any(Number), lineBytes: f.lineOf(1500).length, shownChars: LONG_LINE_HEAD_BYTES }]);
    expect(calls()).toBeLessThanOrEqual(3);
  });

  it('starting on a long line cuts it too', async () => {
    const f = fileWith('starts-long.log', 100, new Map([[10, 400_000]]));
    const win = (await readLineWindow(counted(f.path).read, 10, 20))!;
    expect(win.text.split('\n').slice(1)).toEqual(Array.from({ length: 10 }, (_, i) => short(11 + i)));
    expect(win.cutLines.map((c) => c.lineNo)).toEqual([10]);
  });

  it('many long lines in a row: bounded reads, forward progress, a bigger head when asked', async () => {
    const longAt = new Map(Array.from({ length: 40 }, (_, i) => [100 + i, 300_000 + i] as [number, number]));
    const f = fileWith('many-long.log', 200, longAt);
    const { read, calls } = counted(f.path);
    const win = (await readLineWindow(read, 90, 200, (n) => (n === 101 ? 4 * LONG_LINE_HEAD_BYTES : LONG_LINE_HEAD_BYTES)))!;
    expect(calls()).toBeLessThanOrEqual(MAX_READS_PER_WINDOW);
    expect(win.endLine).toBeGreaterThan(100);
    expect(win.endLine).toBeLessThan(200);
    const rows = win.text.split('\n');
    expect(rows).toHaveLength(win.endLine - 90 + 1);
    expect(rows[11]).toBe(f.lineOf(101).slice(0, 4 * LONG_LINE_HEAD_BYTES));
    // The next window goes on from where this one stopped.
    const next = (await readLineWindow(read, win.endLine + 1, 200))!;
    expect(next.startLine).toBe(win.endLine + 1);
    expect(next.endLine).toBeGreaterThan(win.endLine);
  });

  it('sizes read as people say them', () => {
    expect(lineSizeLabelOf(1_250_000)).toBe('1.25 MB');
    expect(lineSizeLabelOf(300_000)).toBe('300 kB');
    expect(lineSizeLabelOf(512)).toBe('512 bytes');
  });
});
