/** Marks follow their lines' text when the file changes outside them (api/app/mark-anchors.ts through view-state.ts). */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { listMarks, listMarksAnchored, setMark } from '../../src-main/api/app/view-state.ts';
import { lineSourceOf, reanchorMarks, WINDOW_LINES } from '../../src-main/api/app/mark-anchors.ts';
import { openIndex } from '../../src-main/engine/index/store.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mark-anchors-');
afterAll(() => tmp.cleanup());
let n = 0;
let env: NodeJS.ProcessEnv = {};
let dir = '';
let log = '';
beforeEach(() => {
  dir = tmp.path(`case${++n}`);
  mkdirSync(join(dir, 'files'), { recursive: true });
  env = { FOLIO_CONFIG_DIR: join(dir, 'config') };
  log = join(dir, 'files', 'app.log');
});

const line = (i: number) => `2024-05-01 INFO request ${i} done`;
const numbered = (count: number) => Array.from({ length: count }, (_, i) => line(i + 1));
const write = (lines: string[]) => writeFileSync(log, lines.join('\n') + '\n');
/** The text at 1-based `lineNo` of the file now (what sed -n Np shows). */
const textAt = (lineNo: number) => readFileSync(log, 'utf8').split('\n')[lineNo - 1];
const stored = () => JSON.parse(readFileSync(join(dir, 'config', 'marks.json'), 'utf8')).files[log];

describe('marks follow their lines', () => {
  it('lines inserted above move marks down, onto the same text, and the moved marks are kept', async () => {
    const lines = numbered(100);
    write(lines);
    for (const m of [10, 50, 90]) await setMark(log, m, true, { env });
    write([...lines.slice(0, 4), 'new a', 'new b', 'new c', ...lines.slice(4)]);
    expect(await listMarksAnchored(log, { env })).toEqual({ lines: [13, 53, 93], lost: [] });
    expect([13, 53, 93].map(textAt)).toEqual([line(10), line(50), line(90)]);
    expect(stored().lines).toEqual([13, 53, 93]);
    expect(listMarks(log, env)).toEqual([13, 53, 93]);
    // Listed again with no change: the same, nothing read anew.
    expect(await listMarksAnchored(log, { env })).toEqual({ lines: [13, 53, 93], lost: [] });
  });

  it('lines deleted above move marks up; inserts between marks move only those below', async () => {
    const lines = numbered(100);
    write(lines);
    for (const m of [10, 50, 90]) await setMark(log, m, true, { env });
    const edited = [...lines.slice(0, 2), ...lines.slice(7, 60), 'x1', 'x2', ...lines.slice(60)]; // 5 deleted above 10, 2 inserted after 60
    write(edited);
    const { lines: now, lost } = await listMarksAnchored(log, { env });
    expect(now).toEqual([5, 45, 87]);
    expect(lost).toEqual([]);
    expect(now.map(textAt)).toEqual([line(10), line(50), line(90)]);
  });

  it('an edit of the marked line itself keeps the mark on it (lost, moved by the shift above), and it follows its new text next time', async () => {
    const lines = numbered(100);
    write(lines);
    await setMark(log, 10, true, { env });
    await setMark(log, 40, true, { env });
    const edited = ['top 1', 'top 2', ...lines];
    edited[40 + 2 - 1] = 'line 40 rewritten by an editor';
    write(edited);
    expect(await listMarksAnchored(log, { env })).toEqual({ lines: [12, 42], lost: [42] });
    expect(textAt(42)).toBe('line 40 rewritten by an editor');
    write(['top 0', ...edited]);
    expect(await listMarksAnchored(log, { env })).toEqual({ lines: [13, 43], lost: [] });
    expect(textAt(43)).toBe('line 40 rewritten by an editor');
  });

  it('with copies of the marked text nearby, the mark goes to the nearest one', async () => {
    const lines = numbered(60).map((t, i) => ([20, 30, 45].includes(i + 1) ? 'same text' : t));
    write(lines);
    await setMark(log, 30, true, { env });
    write([...lines.slice(0, 5), 'ins', ...lines.slice(5)]); // copies now at 21, 31, 46: 31 is nearest to 30
    expect((await listMarksAnchored(log, { env })).lines).toEqual([31]);
    // Two marks on equal adjacent lines keep two lines.
    write(['a', 'same text', 'same text', 'b']);
    await handleFree();
    await setMark(log, 2, true, { env });
    await setMark(log, 3, true, { env });
    write(['new', 'a', 'same text', 'same text', 'b']);
    expect((await listMarksAnchored(log, { env })).lines).toEqual([3, 4]);
  });

  it('a mark past the end of a file that shrank stays at its number, lost, and can still be unmarked', async () => {
    const lines = numbered(100);
    write(lines);
    await setMark(log, 5, true, { env });
    await setMark(log, 95, true, { env });
    write(lines.slice(0, 20));
    expect(await listMarksAnchored(log, { env })).toEqual({ lines: [5, 95], lost: [95] });
    expect(await setMark(log, 95, false, { env })).toEqual([5]);
  });

  it('a text moved farther than the window is not looked for', async () => {
    const lines = numbered(WINDOW_LINES + 200);
    write(lines);
    await setMark(log, 100, true, { env });
    write([...numbered(WINDOW_LINES + 50).map((t) => `pad ${t}`), ...lines]);
    const { lines: now, lost } = await listMarksAnchored(log, { env });
    expect(lost).toEqual(now);
    expect(now).toEqual([100]);
  });

  it('old entries without fingerprints are fingerprinted where they are on the first list, then follow', async () => {
    const lines = numbered(50);
    write(lines);
    mkdirSync(join(dir, 'config'), { recursive: true });
    writeFileSync(
      join(dir, 'config', 'marks.json'),
      JSON.stringify({ version: 1, files: { [log]: { lines: [7, 30], updated_at: '2026-01-01T00:00:00.000Z' } } }),
    );
    expect(await listMarksAnchored(log, { env })).toEqual({ lines: [7, 30], lost: [] });
    expect(stored().prints).toHaveLength(2);
    write(['x', 'y', ...lines]);
    expect(await listMarksAnchored(log, { env })).toEqual({ lines: [9, 32], lost: [] });
  });

  it('marking after an outside edit re-anchors the other marks first', async () => {
    const lines = numbered(50);
    write(lines);
    await setMark(log, 20, true, { env });
    write(['x', ...lines]);
    expect(await setMark(log, 5, true, { env })).toEqual([5, 21]);
    expect(textAt(21)).toBe(line(20));
  });

  it('CRLF lines, a line longer than a read chunk, and a last line without newline are fingerprinted', async () => {
    const long = 'L'.repeat(1_500_000);
    writeFileSync(log, ['a', long, 'b', 'tail'].join('\r\n'));
    await setMark(log, 3, true, { env });
    await setMark(log, 4, true, { env });
    writeFileSync(log, ['new', 'a', long, 'b', 'tail'].join('\r\n'));
    expect(await listMarksAnchored(log, { env })).toEqual({ lines: [4, 5], lost: [] });
    const src = lineSourceOf(await openIndex(log))!;
    // The long line hashes its first bytes and its length: equal to itself, not to a shorter copy.
    const at = src.printsOf([3, 4]);
    expect(reanchorMarks([1], [at.get(3)!], src)).toEqual({ lines: [3], prints: [at.get(3)], lost: [] });
    expect(at.get(4)).not.toBe(at.get(3));
  });

  it('a UTF-16 file keeps its marks on their numbers (it is not fingerprinted)', async () => {
    const utf16 = (lines: string[]) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(lines.join('\n') + '\n', 'utf16le')]);
    const lines = numbered(20);
    writeFileSync(log, utf16(lines));
    await setMark(log, 5, true, { env });
    writeFileSync(log, utf16(['x', ...lines]));
    expect(await listMarksAnchored(log, { env })).toEqual({ lines: [5], lost: [] });
  });

  it('marks_list answers the moved marks and names the lost ones', async () => {
    const me = { kind: 'human' as const, name: 'me' };
    const saved = process.env.FOLIO_CONFIG_DIR;
    process.env.FOLIO_CONFIG_DIR = env.FOLIO_CONFIG_DIR;
    try {
      const lines = numbered(30);
      write(lines);
      const ws = { workspace: join(dir, 'files') };
      await handle('marks_set', { path: 'app.log', line: 10, marked: true }, me, ws);
      await handle('marks_set', { path: 'app.log', line: 20, marked: true }, me, ws);
      const edited = ['one', 'two', 'three', ...lines];
      edited[22] = 'changed';
      write(edited);
      expect(await handle('marks_list', { path: 'app.log' }, me, ws)).toEqual({ path: log, lines: [13, 23], lost: [23] });
      expect(await handle('marks_list', { path: 'app.log' }, me, ws)).toEqual({ path: log, lines: [13, 23] });
    } finally {
      if (saved === undefined) delete process.env.FOLIO_CONFIG_DIR;
      else process.env.FOLIO_CONFIG_DIR = saved;
    }
  });
});

/** Unmark everything in the current file (a fresh start inside one case). */
async function handleFree() {
  for (const m of listMarks(log, env)) await setMark(log, m, false, { env });
}
