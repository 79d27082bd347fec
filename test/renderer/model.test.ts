/**
 * The renderer's pure logic (no browser needed): window planning, the diff
 * sides, the outline's rows, go-to targets, links and drops. Plain functions,
 * so vitest runs them in Node; Playwright (e2e/) is kept for what needs Chromium.
 */
import { expect, test } from 'vitest';
import { BROWSER_DROP_MESSAGE, dropOutcomeOf, pathOfFileUri, type DropData } from '../../src-renderer/model/dropped-path.ts';
import { backendLabelOf, tabNameOf } from '../../src-renderer/model/file-labels.ts';
import { lineNoOf, needsNeighbourWindow, windowAround, windowLinesFor } from '../../src-renderer/model/line-window.ts';
import { filteredIndicesOf, headingIndexAt, isMarkdownPath, rowOfHeading, scrollTopToShow, visibleRowsOf } from '../../src-renderer/model/outline-rows.ts';
import { approveQuestionOf, replacedLineCountOf } from '../../src-renderer/model/replaced-lines.ts';

test('windows stay inside the file and centre the asked line', () => {
  expect(windowAround(1, 2000, 13_100_000)).toEqual({ startLine: 1, endLine: 2000 });
  expect(windowAround(5_000_000, 2000, 13_100_000)).toEqual({ startLine: 4_999_000, endLine: 5_000_999 });
  expect(windowAround(13_100_000, 2000, 13_100_000)).toEqual({ startLine: 13_098_001, endLine: 13_100_000 });
  expect(windowAround(50, 2000, 60)).toEqual({ startLine: 1, endLine: 60 });
  for (let total = 1; total < 5000; total += 37) {
    for (const lineNo of [1, Math.ceil(total / 2), total]) {
      const w = windowAround(lineNo, 1000, total);
      expect(w.startLine).toBeGreaterThanOrEqual(1);
      expect(w.endLine).toBeLessThanOrEqual(total);
      expect(lineNo >= w.startLine && lineNo <= w.endLine).toBe(true);
    }
  }
});

test('window size follows the average line length and stays under the read cap', () => {
  const lines = windowLinesFor(1_074_605_162, 13_100_000);
  expect(lines).toBeGreaterThan(1000);
  expect((lines * 1_074_605_162) / 13_100_000).toBeLessThan(262_144 * 0.7);
  expect(windowLinesFor(10_000_000, 10)).toBe(200);
  expect(windowLinesFor(0, 0)).toBe(2000);
});

test('the neighbouring window is due near an inner edge only', () => {
  const win = { startLine: 1001, endLine: 3000, text: '', etag: '' };
  expect(needsNeighbourWindow(win, 1900, 1940, 10_000)).toBe(false);
  expect(needsNeighbourWindow(win, 1050, 1090, 10_000)).toBe(true);
  expect(needsNeighbourWindow(win, 2900, 2940, 10_000)).toBe(true);
  expect(needsNeighbourWindow({ ...win, startLine: 1 }, 1, 40, 10_000)).toBe(false);
  expect(needsNeighbourWindow({ ...win, endLine: 10_000 }, 9950, 10_000, 10_000)).toBe(false);
});

test('typed line numbers accept separators and clamp to the file', () => {
  expect(lineNoOf('5,000,000', 13_100_000)).toBe(5_000_000);
  expect(lineNoOf(' 42 ', 100)).toBe(42);
  expect(lineNoOf('0', 100)).toBe(1);
  expect(lineNoOf('999', 100)).toBe(100);
  expect(lineNoOf('abc', 100)).toBeNull();
  expect(lineNoOf('', 100)).toBeNull();
});

test('a big replace or delete asks before approving, naming the change; counted from the hunks, so a rename asks nothing', () => {
  const hunk = (start: number, oldCount: number, newCount: number, status: 'pending' | 'applied' = 'pending') => ({
    index: 1,
    status,
    start_line: start,
    old_start: start,
    old_count: oldCount,
    new_count: newCount,
    old_lines: [],
    new_lines: [],
    truncated: true,
  });
  const change = (kind: 'edit' | 'create' | 'delete' | 'move', label: string, hunks: ReturnType<typeof hunk>[]) => ({
    change: { kind, how: 'lines' as const, label, per_hunk: false, hunks },
  });
  expect(replacedLineCountOf(change('edit', 'lines 1–60', [hunk(1, 60, 2)]))).toBe(60);
  expect(approveQuestionOf(change('edit', 'lines 1–60', [hunk(1, 60, 2)]))).toBe('lines 1–60: this replaces 60 lines. Approve?');
  expect(approveQuestionOf(change('delete', 'delete', [hunk(1, 61, 0)]))).toBe('delete: this deletes 61 lines. Approve?');
  expect(approveQuestionOf(change('edit', 'lines 1–50', [hunk(1, 50, 50)]))).toBeNull();
  // Decided hunks no longer count: 40 pending of 90.
  expect(approveQuestionOf(change('edit', 'quote edit, 2 hunks', [hunk(1, 50, 1, 'applied'), hunk(80, 40, 1)]))).toBeNull();
  // A move of a 1.2 KB file, whatever its target says (whole_file): no lines replaced, no question.
  expect(approveQuestionOf(change('move', 'move a.ts → b.ts', []))).toBeNull();
  expect(approveQuestionOf(change('create', 'create', [hunk(1, 0, 400)]))).toBeNull();
  // A hunk too big to carry its lines still says how many.
  expect(approveQuestionOf(change('edit', 'bytes 0–400000', [hunk(1, 9000, 3)]))).toBe('bytes 0–400000: this replaces 9000 lines. Approve?');
});

test('the go-to box reads lines, byte offsets (@N, bN) and percents', async () => {
  const { goToTargetOf, lineOfPercent } = await import('../../src-renderer/model/goto-target.ts');
  expect(goToTargetOf('5,000,000', 13_100_000, 1e9)).toEqual({ kind: 'line', lineNo: 5_000_000 });
  expect(goToTargetOf('@123456', 100, 1e9)).toEqual({ kind: 'byte', byte: 123_456 });
  expect(goToTargetOf('b1,000', 100, 1e9)).toEqual({ kind: 'byte', byte: 1000 });
  expect(goToTargetOf('@5000', 100, 300)).toEqual({ kind: 'byte', byte: 299 });
  expect(goToTargetOf('50%', 101, 1e9)).toEqual({ kind: 'line', lineNo: 51 });
  expect(lineOfPercent(0, 13_100_000)).toBe(1);
  expect(lineOfPercent(100, 13_100_000)).toBe(13_100_000);
  expect(lineOfPercent(250, 10)).toBe(10);
  // Line count not known yet (being indexed): lines pass unclamped, percents wait.
  expect(goToTargetOf('2000000', 0, 0)).toEqual({ kind: 'line', lineNo: 2_000_000 });
  expect(goToTargetOf('50%', 0, 0)).toBeNull();
  for (const bad of ['', 'abc', '@', '@-5', '5%%', 'b']) expect(goToTargetOf(bad, 100, 1000), bad).toBeNull();
});

test('copy link: the page URL (browser) or folio:// URL (Electron), and a shell-safe read command', async () => {
  const { readCommandOf, shellQuoted, viewLinkOf } = await import('../../src-renderer/model/view-link.ts');
  expect(viewLinkOf('/var/log/app log.txt', 10, 52)).toBe('folio://open?path=%2Fvar%2Flog%2Fapp%20log.txt&lines=10-52');
  expect(viewLinkOf('/var/log/app log.txt', 10, 52, 'http://127.0.0.1:5/?file=%2Fx#top')).toBe(
    'http://127.0.0.1:5/?path=%2Fvar%2Flog%2Fapp%20log.txt&lines=10-52',
  );
  expect(readCommandOf('/var/log/app.log', 10, 52)).toBe('folio read /var/log/app.log --lines 10-52');
  expect(shellQuoted("it's here")).toBe(`'it'\\''s here'`);
  expect(shellQuoted('$HOME/x')).toBe(`'$HOME/x'`);
});

test('a drop names the first file:// path it carries; a bare File gets the browser message', () => {
  const none = () => null;
  const data = (d: Partial<DropData>): DropData => ({ uriList: '', plainText: '', files: [], ...d });
  expect(pathOfFileUri('file:///home/ana/my%20notes%20%C3%A9.txt')).toBe('/home/ana/my notes é.txt');
  expect(pathOfFileUri('file://localhost/var/log/x.log')).toBe('/var/log/x.log');
  expect(pathOfFileUri('file:///C:/logs/app.log')).toBe('C:/logs/app.log');
  expect(pathOfFileUri('file://otherhost/x')).toBeNull();
  expect(pathOfFileUri('https://example.com/x.txt')).toBeNull();
  expect(pathOfFileUri('not a uri')).toBeNull();
  expect(dropOutcomeOf(data({ uriList: '# comment\r\nhttps://x.org/a\r\nfile:///tmp/a.txt\r\nfile:///tmp/b.txt\r\n' }), none)).toEqual({
    kind: 'path',
    path: '/tmp/a.txt',
  });
  expect(dropOutcomeOf(data({ plainText: 'file:///tmp/p.txt' }), none)).toEqual({ kind: 'path', path: '/tmp/p.txt' });
  expect(dropOutcomeOf(data({ plainText: 'just some text' }), none)).toEqual({ kind: 'nothing' });
  const file = new File(['x'], 'x.txt');
  expect(dropOutcomeOf(data({ files: [file] }), none)).toEqual({ kind: 'no_path', message: BROWSER_DROP_MESSAGE });
  // Electron: the preload's path wins over any URI.
  expect(dropOutcomeOf(data({ files: [file], uriList: 'file:///tmp/other' }), () => '/real/x.txt')).toEqual({ kind: 'path', path: '/real/x.txt' });
  expect(dropOutcomeOf(data({ files: [file], uriList: 'file:///tmp/u.txt' }), () => '')).toEqual({ kind: 'path', path: '/tmp/u.txt' });
});

test('markdown files are known by their name', () => {
  for (const p of ['/a/README.md', 'x.MD', 'doc.markdown', 'page.mdx', 'n.mkd']) expect(isMarkdownPath(p), p).toBe(true);
  for (const p of ['/a/notes.txt', 'md', '/a.md/file.log', 'x.md.bak', 'x.json']) expect(isMarkdownPath(p), p).toBe(false);
  expect(isMarkdownPath(null)).toBe(false);
});

test('the current heading is the last one starting at or before the line; the filter keeps file order', () => {
  const h = (line: number, end_line: number, level = 2) => ({ level, text: `h${line}`, line, end_line });
  const headings = [h(3, 100, 1), h(5, 40), h(41, 100), h(60, 100, 3)];
  expect(headingIndexAt(headings, 1)).toBe(-1);
  expect(headingIndexAt(headings, 3)).toBe(0);
  expect(headingIndexAt(headings, 4)).toBe(0);
  expect(headingIndexAt(headings, 5)).toBe(1);
  expect(headingIndexAt(headings, 40)).toBe(1);
  expect(headingIndexAt(headings, 59)).toBe(2);
  expect(headingIndexAt(headings, 1_000)).toBe(3);
  expect(headingIndexAt([], 10)).toBe(-1);
  // Against a scan, on many headings.
  const many = Array.from({ length: 3_000 }, (_, i) => h(1 + i * 3 + (i % 2), 0));
  for (let lineNo = 0; lineNo < 9_100; lineNo += 7) expect(headingIndexAt(many, lineNo)).toBe(many.findLastIndex((x) => x.line <= lineNo));

  const texts = ['install', 'linux install', 'usage', 'faq'];
  expect(filteredIndicesOf(texts, '')).toEqual([0, 1, 2, 3]);
  expect(filteredIndicesOf(texts, '  INSTALL ')).toEqual([0, 1]);
  expect(filteredIndicesOf(texts, 'zzz')).toEqual([]);
  expect(rowOfHeading([0, 1, 5, 9], 5)).toBe(2);
  expect(rowOfHeading([0, 1, 5, 9], 4)).toBe(-1);
});

test('only the rows in view are rendered, and a row out of view is centred', () => {
  expect(visibleRowsOf(0, 220, 22, 50_000, 0)).toEqual({ first: 0, end: 10 });
  expect(visibleRowsOf(22_000, 220, 22, 50_000, 5)).toEqual({ first: 995, end: 1015 });
  expect(visibleRowsOf(0, 220, 22, 3)).toEqual({ first: 0, end: 3 });
  expect(visibleRowsOf(1_000, 220, 22, 0)).toEqual({ first: 0, end: 0 });
  expect(scrollTopToShow(5, 0, 220, 22)).toBeNull();
  expect(scrollTopToShow(9, 0, 220, 22)).toBeNull();
  expect(scrollTopToShow(10, 0, 220, 22)).toBe(22 * 10 - 99);
  expect(scrollTopToShow(1_000, 0, 220, 22)).toBe(22_000 - 99);
  expect(scrollTopToShow(0, 500, 220, 22)).toBe(0);
});

test('a remote value is named by its backend and own version, its tab by its last names', () => {
  expect(backendLabelOf({ scheme: 'az', version: '"0x8DC1A2B3C4D5E6F"', index_from: 'sidecar' })).toBe('Azure blob, ETag "0x8DC1A2B3C4D5E6F"');
  expect(backendLabelOf({ scheme: 's3', version: '"9b2cf535f27731c974343645a3985328"', index_from: 'stream' })).toBe(
    'S3 object, ETag "9b2cf535f27731c974343645a3985328"',
  );
  expect(backendLabelOf({ scheme: 'pg', version: '812@(0,3)', index_from: 'memory' })).toBe('PostgreSQL row, xmin 812, ctid (0,3)');
  expect(tabNameOf('/var/log/app.log')).toBe('app.log');
  expect(tabNameOf('az://logs/2026/app.log')).toBe('app.log');
  expect(tabNameOf('s3://bucket/a/b.txt')).toBe('b.txt');
  expect(tabNameOf('pg://applogs/app/body')).toBe('app/body');
  expect(tabNameOf('pg://docs/a%2Fb/body')).toBe('a%2Fb/body');
});
