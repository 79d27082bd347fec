/**
 * The review-in-the-editor view model: a proposal's edits at their current place
 * and their new text (from the preview, aligned on the current lines), the
 * editor rows with the changes spliced in, the F7 order, the review keys and the
 * plain conflict text.
 */
import { formatPatch, structuredPatch } from 'diff';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { ReviewProposal } from '../../src-main/api/schemas.ts';
import { changeStopsOf, stepChange } from '../../src-renderer/model/change-order.ts';
import { conflictTextOf, regionNowOf } from '../../src-renderer/model/conflict-text.ts';
import { fileLineOfRow, inlineRowsOf, rowOfFileLine } from '../../src-renderer/model/inline-rows.ts';
import { inlineChangesOf, lineEditsOf, newLinesOf, patchesOf, regionOf, replacedTextOf } from '../../src-renderer/model/proposal-edits.ts';
import { keyLabelsOf, reviewKeyOf } from '../../src-renderer/model/review-keys.ts';

const FILE = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);

/** The preview the engine makes for one edit (diff-preview.ts): the region with 3 lines of context, numbered as in the file. */
function previewOf(lines: string[], startLine: number, endLine: number, content: string[]): string {
  const from = Math.max(1, startLine - 3);
  const to = Math.min(lines.length, Math.max(endLine, startLine) + 3);
  const before = lines.slice(from - 1, to);
  const after = [...lines.slice(from - 1, startLine - 1), ...content, ...lines.slice(endLine, to)];
  const patch = structuredPatch('f', 'f', before.join('\n') + '\n', after.join('\n') + '\n', 'before', 'after', { context: 3 });
  for (const h of patch.hunks) {
    h.oldStart += from - 1;
    h.newStart += from - 1;
  }
  return formatPatch(patch);
}

function proposal(fields: Partial<ReviewProposal>): ReviewProposal {
  return {
    id: 'p-1',
    status: 'pending',
    path: 'f.txt',
    actor: { kind: 'agent', name: 'a' },
    target: { replace: { start: 1, end: 1, units: 'lines' } },
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
    change: { kind: 'edit', how: 'lines', label: 'edit', per_hunk: false, hunks: [] },
    ...fields,
  };
}

test('a replace keeps its new text when the file moved under it: aligned on its current lines', () => {
  const preview = previewOf(FILE, 10, 12, ['line 10', 'TEN-B', 'line 12', 'extra']);
  const [ops] = patchesOf(preview);
  // Five lines were inserted above since: the target is now 15..17, with the same text.
  expect(replacedTextOf(ops!, ['line 10', 'line 11', 'line 12'])).toEqual(['line 10', 'TEN-B', 'line 12', 'extra']);
  // Lines that do not fit the patch give no text rather than a wrong one.
  expect(replacedTextOf(ops!, ['other', 'lines', 'here'])).toBeNull();
});

test('property: the new text of any replace is recovered from its preview', () => {
  const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 0, maxLength: 6 });
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 5 }), lines, (start, extra, content) => {
      const end = Math.min(FILE.length, start + extra);
      const preview = previewOf(FILE, start, end, content);
      const ops = patchesOf(preview)[0] ?? [];
      expect(replacedTextOf(ops, FILE.slice(start - 1, end))).toEqual(content);
    }),
  );
});

test('several edits: each one’s new text, whatever order the agent named them in', () => {
  const edits = [
    { at: 30, end: 30, content: ['THIRTY'] },
    { at: 5, end: 6, content: ['FIVE'] },
    { at: 18, end: 18, content: ['line 18', 'EIGHTEEN+'] },
  ];
  const byFile = [...edits].sort((a, b) => a.at - b.at);
  const preview = byFile.map((e) => previewOf(FILE, e.at, e.end, e.content)).join('');
  const p = proposal({
    preview,
    target: { replace: { start: 30, end: 30, units: 'lines' } },
    targets: edits.map((e) => ({ replace: { start: e.at + 2, end: e.end + 2, units: 'lines' as const } })),
    hunks: [
      { index: 1, status: 'pending' },
      { index: 2, status: 'applied' },
      { index: 3, status: 'pending' },
    ],
  });
  const lineEdits = lineEditsOf(p)!;
  expect(lineEdits.map((e) => [e.hunk, e.startLine, e.decision])).toEqual([
    [1, 32, 'pending'],
    [2, 7, 'applied'],
    [3, 20, 'pending'],
  ]);
  const current = edits.map((e) => FILE.slice(e.at - 1, e.end));
  expect(newLinesOf(lineEdits, preview, current)).toEqual(edits.map((e) => e.content));
  // Decided hunks are not drawn; each change keeps only the lines that differ.
  expect(inlineChangesOf(p, current)).toEqual([
    { proposalId: 'p-1', hunk: 3, startLine: 21, removed: [], added: ['EIGHTEEN+'] },
    { proposalId: 'p-1', hunk: 1, startLine: 32, removed: [{ lineNo: 32, text: 'line 30' }], added: ['THIRTY'] },
  ]);
  expect(regionOf(p)).toEqual({ startLine: 20, endLine: 32 });
});

test('an insert and a delete: added lines before the line, removed lines with their numbers', () => {
  const ins = proposal({ target: { insert: { at: 4, units: 'lines' } }, preview: previewOf(FILE, 4, 3, ['new']), content: 'new\n' });
  expect(inlineChangesOf(ins, [[]])).toEqual([{ proposalId: 'p-1', hunk: null, startLine: 4, removed: [], added: ['new'] }]);
  const del = proposal({ target: { delete: { start: 2, end: 3, units: 'lines' } }, preview: previewOf(FILE, 2, 3, []) });
  expect(inlineChangesOf(del, [['line 2', 'line 3']])).toEqual([
    {
      proposalId: 'p-1',
      hunk: null,
      startLine: 2,
      removed: [
        { lineNo: 2, text: 'line 2' },
        { lineNo: 3, text: 'line 3' },
      ],
      added: [],
    },
  ]);
  expect(lineEditsOf(proposal({ target: { append: { at_end: true } } }))).toBeNull();
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
  const a = proposal({ id: 'p-a', target: { replace: { start: 50, end: 51, units: 'lines' } } });
  const b = proposal({
    id: 'p-b',
    target: { replace: { start: 70, end: 70, units: 'lines' } },
    targets: [{ replace: { start: 70, end: 70, units: 'lines' } }, { insert: { at: 10, units: 'lines' } }],
  });
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
  const target = { replace: { start: 51, end: 61, units: 'lines' as const } };
  const own = conflictTextOf({ target, conflict: { code: 'precondition_failed', failed: ['region'], changed_by: 'j-1' } }, history)!;
  expect(own.headline).toBe('Lines 51–61 changed after the agent read them.');
  expect(own.cause).toBe('An edit applied since (lines 53–56, by bot) changed them.');
  expect(own.ownLinesChanged).toBe(true);
  const file = conflictTextOf({ target, conflict: { code: 'precondition_failed', failed: ['if_match'] } })!;
  expect(file.headline).toBe('The file changed after the agent read it.');
  expect(file.ownLinesChanged).toBe(false);
  expect(conflictTextOf({ target, conflict: null })).toBeNull();
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
  const a = proposal({ id: 'p-a', path: 'f.txt', target: { replace: { start: 500_001, end: 500_010, units: 'lines' } } });
  const b = proposal({ id: 'p-b', path: 'other.txt' });
  const marks = regionMarksOf([a, b], '/ws/f.txt', 'p-a');
  expect(marks).toEqual([{ proposalId: 'p-a', startLine: 500_001, endLine: 500_010, selected: true, conflict: false }]);
  expect(markBoxOf(marks[0]!, 1_000_000, 600)).toEqual({ top: 300, height: 3 });
  expect(markBoxOf({ startLine: 1_000_000, endLine: 1_000_000 }, 1_000_000, 600).top).toBeLessThanOrEqual(597);
});
