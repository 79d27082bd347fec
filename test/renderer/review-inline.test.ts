/**
 * The review-in-the-editor view model: a proposal's hunks (the server's change
 * model, every kind alike) at their current place with their old and new lines, the
 * editor rows with the changes spliced in, the F7 order, the review keys and the
 * plain conflict text.
 */
import { expect, test } from 'vitest';
import type { ReviewProposal } from '../../src-main/api/schemas.ts';
import { changeStopsOf, stepChange } from '../../src-renderer/model/change-order.ts';
import { conflictTextOf, regionNowOf } from '../../src-renderer/model/conflict-text.ts';
import { fileLineOfRow, inlineRowsOf, rowOfFileLine } from '../../src-renderer/model/inline-rows.ts';
import { decisionUnitsOf, diffSidesOfChange, inlineChangesOf, lineEditsOf, regionOf } from '../../src-renderer/model/proposal-edits.ts';
import { keyLabelsOf, reviewKeyOf } from '../../src-renderer/model/review-keys.ts';

const FILE = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);

type Hunk = ReviewProposal['change']['hunks'][number];

/** A hunk as the server's change model sends it: `old` lines at `start` of the file now (read at `oldStart`) become `next`. */
function hunk(index: number, start: number, old: string[], next: string[], status: Hunk['status'] = 'pending', oldStart = start): Hunk {
  return { index, status, start_line: start, old_start: oldStart, old_count: old.length, new_count: next.length, old_lines: old, new_lines: next };
}

function proposal(fields: Omit<Partial<ReviewProposal>, 'change'> & { change?: Partial<ReviewProposal['change']> }): ReviewProposal {
  const { change, ...rest } = fields;
  return {
    id: 'p-1',
    status: 'pending',
    path: 'f.txt',
    actor: { kind: 'agent', name: 'a' },
    target: { whole_file: true },
    preconditions: {},
    normalize_newlines: true,
    preview: '',
    version_seen: { etag: 'e', mtimeMs: 0, size: 0 },
    content_bytes: 0,
    content_sha256: '',
    edited: false,
    created_at: '2026-01-01T00:00:00Z',
    decided_by: null,
    decided_at: null,
    reason: null,
    conflict: null,
    journal_id: null,
    ...rest,
    change: { kind: 'edit', how: 'lines', label: 'lines 1–1', per_hunk: false, hunks: [], ...change },
  };
}

/** The quote edit of the issue: 3 hunks over a config file, decided one by one. */
const CONFIG = ['export const config = {', '  retries: 3,', '  timeout: 504,', '  host: "a",', '};'];
const quoteEdit = (statuses: Hunk['status'][] = ['pending', 'pending', 'pending']) =>
  proposal({
    target: { whole_file: true },
    quoted: [
      { old_text: 'retries: 3', new_text: 'retries: 5' },
      { old_text: 'timeout: 504,', new_text: 'timeout: 504, // gateway timeout' },
      { old_text: '};', new_text: '} as const;' },
    ],
    change: {
      kind: 'edit',
      how: 'quote',
      label: 'quote edit, 3 hunks, lines 2, 3, 5',
      per_hunk: true,
      hunks: [
        hunk(1, 2, ['  retries: 3,'], ['  retries: 5,'], statuses[0]),
        hunk(2, 3, ['  timeout: 504,'], ['  timeout: 504, // gateway timeout'], statuses[1]),
        hunk(3, 5, ['};'], ['} as const;'], statuses[2]),
      ],
    },
  });

test('a quote edit (no line targets) draws each hunk inline, decided on its own', () => {
  const p = quoteEdit(['pending', 'applied', 'pending']);
  expect(lineEditsOf(p)!.map((e) => [e.hunk, e.kind, e.startLine, e.endLine, e.decision])).toEqual([
    [1, 'replace', 2, 2, 'pending'],
    [2, 'replace', 3, 3, 'applied'],
    [3, 'replace', 5, 5, 'pending'],
  ]);
  // Decided hunks are not drawn.
  expect(inlineChangesOf(p)).toEqual([
    { proposalId: 'p-1', hunk: 1, startLine: 2, removed: [{ lineNo: 2, text: '  retries: 3,' }], added: ['  retries: 5,'] },
    { proposalId: 'p-1', hunk: 3, startLine: 5, removed: [{ lineNo: 5, text: '};' }], added: ['} as const;'] },
  ]);
  expect(regionOf(p)).toEqual({ startLine: 2, endLine: 5 });
  expect(decisionUnitsOf(p).map((u) => [u.hunk, u.label, u.decision])).toEqual([
    [1, 'line 2 → 1 line', 'pending'],
    [2, 'line 3 → 1 line', 'applied'],
    [3, 'line 5 → 1 line', 'pending'],
  ]);
  // Drawn into the file: the rows hold the new lines, the zones the old.
  const rows = inlineRowsOf(1, CONFIG.join('\n'), inlineChangesOf(p));
  expect(rows.text.split('\n')).toEqual(['export const config = {', '  retries: 5,', '  timeout: 504,', '  host: "a",', '} as const;']);
  expect(rows.fileLines).toEqual([1, null, 3, 4, null]);
});

test('a whole-file edit decided whole: its hunks carry no number, unchanged head and tail lines are left out', () => {
  const p = proposal({
    change: {
      how: 'whole',
      label: 'whole file, 2 hunks, lines 2, 9–10',
      per_hunk: false,
      hunks: [hunk(1, 2, ['a', 'b', 'c'], ['a', 'B', 'c']), hunk(2, 9, ['x', 'y'], [])],
    },
  });
  expect(inlineChangesOf(p)).toEqual([
    { proposalId: 'p-1', hunk: null, startLine: 3, removed: [{ lineNo: 3, text: 'b' }], added: ['B'] },
    {
      proposalId: 'p-1',
      hunk: null,
      startLine: 9,
      removed: [
        { lineNo: 9, text: 'x' },
        { lineNo: 10, text: 'y' },
      ],
      added: [],
    },
  ]);
  // One F7 stop for a proposal decided whole, at its first hunk.
  expect(changeStopsOf([p]).map((s) => [s.hunk, s.startLine])).toEqual([[null, 2]]);
  expect(decisionUnitsOf(p).map((u) => u.label)).toEqual(['lines 2–4 → 3 lines', 'delete lines 9–10']);
});

test('replace_all: hunks sharing an index are one decision, one F7 stop, one row of the hunk list', () => {
  const p = proposal({
    change: {
      how: 'quote',
      label: 'quote edit, 2 hunks, lines 4, 20',
      per_hunk: true,
      hunks: [hunk(1, 4, ['foo()'], ['bar()']), hunk(1, 20, ['foo()'], ['bar()']), hunk(2, 30, ['x'], ['y'])],
    },
  });
  expect(changeStopsOf([p]).map((s) => [s.hunk, s.startLine])).toEqual([
    [1, 4],
    [2, 30],
  ]);
  expect(stepChange(changeStopsOf([p]), { proposalId: 'p-1', hunk: 1, startLine: 4 }, 1)!.hunk).toBe(2);
  const units = decisionUnitsOf(p);
  expect(units.map((u) => [u.hunk, u.hunks.length, u.label])).toEqual([
    [1, 2, '2 places: line 4 → 1 line, line 20 → 1 line'],
    [2, 1, 'line 30 → 1 line'],
  ]);
  expect(inlineChangesOf(p).map((c) => [c.hunk, c.startLine])).toEqual([
    [1, 4],
    [1, 20],
    [2, 30],
  ]);
});

test('create, delete, move: all added, all removed (never "lines 2–1"), no hunks at all', () => {
  const create = proposal({ change: { kind: 'create', how: 'file', label: 'create', hunks: [hunk(1, 1, [], ['a', 'b', 'c'])] } });
  expect(inlineChangesOf(create)).toEqual([{ proposalId: 'p-1', hunk: null, startLine: 1, removed: [], added: ['a', 'b', 'c'] }]);
  expect(decisionUnitsOf(create)[0]!.label).toBe('3 new lines');
  expect(regionOf(create)).toEqual({ startLine: 1, endLine: 1 });
  const del = proposal({ change: { kind: 'delete', how: 'file', label: 'delete', hunks: [hunk(1, 1, ['one', 'two', 'three'], [])] } });
  expect(inlineChangesOf(del)[0]!.removed.map((r) => r.lineNo)).toEqual([1, 2, 3]);
  expect(decisionUnitsOf(del)[0]!.label).toBe('delete lines 1–3');
  const move = proposal({ change: { kind: 'move', how: 'file', label: 'move a.ts → b.ts', hunks: [] } });
  expect(lineEditsOf(move)).toBeNull();
  expect(inlineChangesOf(move)).toEqual([]);
  expect(decisionUnitsOf(move)).toEqual([]);
  // A move still gets an F7 stop (after the placed ones).
  expect(changeStopsOf([move, del]).map((s) => s.proposalId)).toEqual(['p-1', 'p-1']);
  // An insert hunk: before its line.
  const ins = proposal({ change: { hunks: [hunk(1, 4, [], ['new'])] } });
  expect(decisionUnitsOf(ins)[0]!.label).toBe('insert 1 line before line 4');
  expect(inlineRowsOf(1, FILE.slice(0, 6).join('\n'), inlineChangesOf(ins)).fileLines).toEqual([1, 2, 3, null, 4, 5, 6]);
});

test('a hunk too big to carry its lines is drawn as counts, not as an empty change', () => {
  const p = proposal({ change: { hunks: [{ ...hunk(1, 10, [], []), old_count: 9000, new_count: 2, truncated: true }] } });
  expect(inlineChangesOf(p)).toEqual([{ proposalId: 'p-1', hunk: null, startLine: 10, removed: [], added: [], truncated: { oldCount: 9000, newCount: 2 } }]);
  expect(regionOf(p)).toEqual({ startLine: 10, endLine: 9009 });
  expect(diffSidesOfChange(p).summaryOnly).toBe(true);
});

test('the panel diff: old lines numbered as in the file now, new lines as after the earlier hunks', () => {
  const p = proposal({ change: { per_hunk: true, hunks: [hunk(1, 2, ['a'], ['A', 'A2']), hunk(2, 6, ['b', 'c'], ['B'])] } });
  expect(diffSidesOfChange(p)).toEqual({
    original: 'a\nb\nc',
    modified: 'A\nA2\nB',
    originalLineNos: [2, 6, 7],
    modifiedLineNos: [2, 3, 7],
    summaryOnly: false,
  });
});

test('rows: added lines become rows without a file line, removed ones a zone above them', () => {
  const text = FILE.slice(9, 20).join('\n'); // lines 10..20
  const rows = inlineRowsOf(10, text, [
    {
      proposalId: 'p',
      hunk: null,
      startLine: 12,
      removed: [
        { lineNo: 12, text: 'line 12' },
        { lineNo: 13, text: 'line 13' },
      ],
      added: ['A', 'B', 'C'],
    },
    { proposalId: 'q', hunk: null, startLine: 18, removed: [], added: ['INS'] },
    // outside the window: not drawn
    { proposalId: 'r', hunk: null, startLine: 30, removed: [], added: ['X'] },
  ]);
  expect(rows.fileLines).toEqual([10, 11, null, null, null, 14, 15, 16, 17, null, 18, 19, 20]);
  expect(rows.text.split('\n').slice(0, 6)).toEqual(['line 10', 'line 11', 'A', 'B', 'C', 'line 14']);
  expect(rows.zones.map((z) => [z.afterRow, z.change.proposalId])).toEqual([
    [2, 'p'],
    [9, 'q'],
  ]);
  expect(rows.added.map((a) => [a.firstRow, a.lastRow])).toEqual([
    [3, 5],
    [10, 10],
  ]);
  expect(rowOfFileLine(rows, 14)).toBe(6);
  expect(rowOfFileLine(rows, 12)).toBe(6);
  expect(fileLineOfRow(rows, 4)).toBe(14);
  expect(fileLineOfRow(rows, 11)).toBe(18);
  // No change: rows are the file lines.
  const plain = inlineRowsOf(10, text, []);
  expect(plain.fileLines).toEqual(Array.from({ length: 11 }, (_, i) => 10 + i));
  expect(plain.text).toBe(text);
});

test('F7 walks every pending change of the file top to bottom and wraps', () => {
  const a = proposal({ id: 'p-a', change: { hunks: [hunk(1, 50, ['x', 'y'], ['z'])] } });
  const b = proposal({ id: 'p-b', change: { per_hunk: true, hunks: [hunk(2, 10, [], ['new']), hunk(1, 70, ['q'], ['r'])] } });
  const stops = changeStopsOf([a, b]);
  expect(stops.map((s) => [s.proposalId, s.hunk, s.startLine])).toEqual([
    ['p-b', 2, 10],
    ['p-a', null, 50],
    ['p-b', 1, 70],
  ]);
  expect(stepChange(stops, null, 1)).toBe(stops[0]);
  expect(stepChange(stops, stops[2]!, 1)).toBe(stops[0]);
  expect(stepChange(stops, stops[0]!, -1)).toBe(stops[2]);
  // The change just accepted is gone: the next one below it.
  expect(stepChange(stops, { proposalId: 'p-x', hunk: null, startLine: 40 }, 1)).toBe(stops[1]);
  expect(stepChange([], null, 1)).toBeNull();
});

test('review keys follow VS Code; text boxes keep their editing keys', () => {
  const k = (key: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) => ({
    key,
    ctrlKey: false,
    metaKey: false,
    altKey: false,
    shiftKey: false,
    ...mods,
  });
  expect(reviewKeyOf(k('F7'), 'other')).toBe('next');
  expect(reviewKeyOf(k('F7', { shiftKey: true }), 'text-box')).toBe('previous');
  expect(reviewKeyOf(k('F5', { altKey: true }), 'file-view')).toBe('next');
  expect(reviewKeyOf(k('F5', { altKey: true, shiftKey: true }), 'other')).toBe('previous');
  expect(reviewKeyOf(k('Enter', { ctrlKey: true }), 'other')).toBe('accept');
  expect(reviewKeyOf(k('Enter', { metaKey: true }), 'file-view')).toBe('accept');
  expect(reviewKeyOf(k('Tab'), 'file-view')).toBe('accept');
  expect(reviewKeyOf(k('Tab'), 'other')).toBeNull();
  expect(reviewKeyOf(k('Backspace', { ctrlKey: true }), 'file-view')).toBe('reject');
  expect(reviewKeyOf(k('Backspace', { ctrlKey: true }), 'text-box')).toBeNull();
  expect(reviewKeyOf(k('Delete', { altKey: true }), 'other')).toBe('reject');
  expect(reviewKeyOf(k('?', { shiftKey: true }), 'other')).toBe('help');
  expect(reviewKeyOf(k('?'), 'text-box')).toBeNull();
  expect(keyLabelsOf(true).accept).toContain('Cmd+Enter');
});

test('conflicts speak plainly and say which way out fits', () => {
  const history = [
    {
      id: 'j-1',
      range_before: { start_line: 53, end_line: 54, start_byte: 0, end_byte: 0 },
      range_after: { start_line: 53, end_line: 56, start_byte: 0, end_byte: 0 },
      actor: { kind: 'agent', name: 'bot' },
    },
  ] as unknown as Parameters<typeof conflictTextOf>[1];
  const change = proposal({ change: { hunks: [hunk(1, 51, Array(11).fill('x'), ['y'])] } }).change;
  const own = conflictTextOf({ change, conflict: { code: 'precondition_failed', failed: ['region'], changed_by: 'j-1' } }, history)!;
  expect(own.headline).toBe('Lines 51–61 changed after the agent read them.');
  expect(own.cause).toBe('An edit applied since (lines 53–56, by bot) changed them.');
  expect(own.ownLinesChanged).toBe(true);
  const file = conflictTextOf({ change, conflict: { code: 'precondition_failed', failed: ['if_match'] } })!;
  expect(file.headline).toBe('The file changed after the agent read it.');
  expect(file.ownLinesChanged).toBe(false);
  expect(conflictTextOf({ change, conflict: null })).toBeNull();
  // A quote edit's conflict names its lines too (no line target to read them from).
  expect(conflictTextOf({ change: quoteEdit().change, conflict: { code: 'conflict', failed: ['old_text'] } })!.headline).toBe(
    'Lines 2–5 changed after the agent read them.',
  );
  expect(regionNowOf({ startLine: 51, endLine: 61 }, history![0]!)).toEqual({ startLine: 51, endLine: 63 });
  expect(
    regionNowOf({ startLine: 51, endLine: 61 }, { range_before: { start_line: 1, end_line: 1 }, range_after: { start_line: 1, end_line: 3 } } as never),
  ).toEqual({
    startLine: 53,
    endLine: 63,
  });
});

test('a proposal’s file is the open one whether the viewer has it absolute or relative', async () => {
  const { isSameFile } = await import('../../src-renderer/model/change-order.ts');
  expect(isSameFile('/tmp/ws/src/orders.py', 'src/orders.py')).toBe(true);
  expect(isSameFile('src/orders.py', 'src/orders.py')).toBe(true);
  expect(isSameFile('/tmp/ws/src/xorders.py', 'orders.py')).toBe(false);
  expect(isSameFile(null, 'orders.py')).toBe(false);
});

test('scrollbar marks: the open file’s proposals, placed by their current lines', async () => {
  const { markBoxOf, regionMarksOf } = await import('../../src-renderer/model/change-order.ts');
  const a = proposal({ id: 'p-a', path: 'f.txt', change: { hunks: [hunk(1, 500_001, Array(10).fill('x'), [])] } });
  const b = proposal({ id: 'p-b', path: 'other.txt' });
  const marks = regionMarksOf([a, b], '/ws/f.txt', 'p-a');
  expect(marks).toEqual([{ proposalId: 'p-a', startLine: 500_001, endLine: 500_010, selected: true, conflict: false }]);
  expect(markBoxOf(marks[0]!, 1_000_000, 600)).toEqual({ top: 300, height: 3 });
  expect(markBoxOf({ startLine: 1_000_000, endLine: 1_000_000 }, 1_000_000, 600).top).toBeLessThanOrEqual(597);
});
