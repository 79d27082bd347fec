/**
 * Review of a whole session in the app's model: F7's order over every pending
 * hunk of every file (path, then line, from the change model), stepping and
 * wrapping across files, the changed-files rows, and the keys that work
 * wherever the focus is (undo in the file view, the list's key).
 */
import { expect, test } from 'vitest';
import type { ChangeHunk, ReviewProposal } from '../../src-main/api/schemas.ts';
import { sessionStopsOf, stepSessionChange, stopPositionOf } from '../../src-renderer/model/change-order.ts';
import { agentsOf, changedFilesOf } from '../../src-renderer/model/changed-files.ts';
import { filesKeyOf, reviewKeyOf } from '../../src-renderer/model/review-keys.ts';

const hunk = (index: number, start_line: number, status: ChangeHunk['status'] = 'pending'): ChangeHunk => ({
  index,
  status,
  start_line,
  old_start: start_line,
  old_count: 1,
  new_count: 1,
  old_lines: ['a'],
  new_lines: ['b'],
});

function proposal(id: string, path: string, hunks: ChangeHunk[], fields: Partial<ReviewProposal> = {}): ReviewProposal {
  return {
    id,
    status: 'pending',
    path,
    actor: { kind: 'agent', name: 'claude' },
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
    change: { kind: 'edit', how: 'quote', label: `quote edit, ${hunks.length} hunks`, per_hunk: hunks.length > 1, hunks },
    ...fields,
  } as ReviewProposal;
}

// Queued oldest first, in no file order: F7 must not follow the queue.
const QUEUE = [
  proposal('p-3', 'src/b.ts', [hunk(1, 40), hunk(2, 5), hunk(3, 90, 'applied')]),
  proposal('p-1', 'README.md', [hunk(1, 12)]),
  proposal('p-2', 'src/a.ts', [hunk(1, 7)]),
  proposal('p-4', 'src/b.ts', [hunk(1, 20)], { actor: { kind: 'agent', name: 'codex' } }),
  proposal('p-5', 'src/gone.ts', [], { change: { kind: 'move', how: 'file', label: 'move src/gone.ts → lib/gone.ts', per_hunk: false, hunks: [] } }),
  proposal('p-6', 'src/a.ts', [hunk(1, 1)], { status: 'conflict' }),
];

test('F7 walks every pending hunk of the session in path order, then line; decided hunks and conflicts are not stops', () => {
  const stops = sessionStopsOf(QUEUE);
  expect(stops.map((s) => `${s.path}:${s.startLine}:${s.proposalId}/${s.hunk}`)).toEqual([
    'README.md:12:p-1/null',
    'src/a.ts:7:p-2/null',
    'src/b.ts:5:p-3/2',
    'src/b.ts:20:p-4/null',
    'src/b.ts:40:p-3/1',
    'src/gone.ts:1:p-5/null',
  ]);
});

test('stepping goes across files and wraps at both ends; Shift+F7 walks back the same path', () => {
  const stops = sessionStopsOf(QUEUE);
  const seen = [];
  let at = null;
  for (let i = 0; i < stops.length + 1; i++) seen.push((at = stepSessionChange(stops, at, 1))!);
  expect(seen.slice(0, stops.length)).toEqual(stops);
  expect(seen[stops.length]).toBe(stops[0]); // wrapped
  const back = [];
  at = null;
  for (let i = 0; i < stops.length; i++) back.push((at = stepSessionChange(stops, at, -1))!);
  expect(back).toEqual([...stops].reverse());
  expect(stopPositionOf(stops, stops[3]!)).toEqual({ index: 4, total: 6 });
});

test('after a hunk is decided (gone from the stops) the next is the one after its place, in the next file when it was the last of its file', () => {
  const stops = sessionStopsOf(QUEUE);
  const decided = stops[1]!; // src/a.ts's only pending hunk
  const rest = stops.filter((s) => s !== decided);
  expect(stepSessionChange(rest, decided, 1)).toEqual(stops[2]); // src/b.ts:5
  expect(stepSessionChange(rest, decided, -1)).toEqual(stops[0]); // README.md
  const last = stops[5]!;
  expect(stepSessionChange(stops.slice(0, 5), last, 1)).toEqual(stops[0]); // wraps to the first file
  // A stop whose line moved (an edit above it was applied): still found by its proposal and hunk.
  expect(stepSessionChange(stops, { ...stops[2]!, startLine: 9 }, 1)).toEqual(stops[3]);
  // The open file's own order (no path): found by proposal and hunk.
  expect(stepSessionChange(stops, { proposalId: 'p-4', hunk: null, startLine: 20 }, 1)).toEqual(stops[4]);
  expect(stepSessionChange([], null, 1)).toBeNull();
});

test('changed files: one row per file in path order, kind and labels, pending hunks, agents, conflicts; agents with their counts', () => {
  const rows = changedFilesOf(QUEUE);
  expect(rows.map((r) => [r.path, r.kind, r.pendingHunks, r.agents.join('+'), r.conflicts])).toEqual([
    ['README.md', 'edit', 1, 'claude', 0],
    ['src/a.ts', 'edit', 1, 'claude', 1],
    ['src/b.ts', 'edit', 3, 'claude+codex', 0],
    ['src/gone.ts', 'move', 1, 'claude', 0],
  ]);
  expect(rows[3]!.labels).toEqual(['move src/gone.ts → lib/gone.ts']);
  expect(rows[1]!.labels[1]).toMatch(/\(conflict\)$/);
  expect(agentsOf(QUEUE)).toEqual([
    { actor: 'agent:claude', name: 'claude', pending: 4 },
    { actor: 'agent:codex', name: 'codex', pending: 1 },
  ]);
});

const k = (key: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey', boolean>> = {}) => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});

test('undo and redo work in the file view and elsewhere, not in a text box (its own undo); the list key works everywhere', () => {
  for (const place of ['file-view', 'other'] as const) {
    expect(reviewKeyOf(k('z', { ctrlKey: true }), place)).toBe('undo');
    expect(reviewKeyOf(k('Z', { ctrlKey: true, shiftKey: true }), place)).toBe('redo');
    expect(reviewKeyOf(k('y', { ctrlKey: true }), place)).toBe('redo');
    expect(reviewKeyOf(k('z', { metaKey: true }), place)).toBe('undo');
  }
  expect(reviewKeyOf(k('z', { ctrlKey: true }), 'text-box')).toBeNull();
  expect(reviewKeyOf(k('y', { ctrlKey: true }), 'text-box')).toBeNull();
  expect(reviewKeyOf(k('z', { ctrlKey: true, altKey: true }), 'other')).toBeNull();
  expect(reviewKeyOf(k('z'), 'file-view')).toBeNull();
  for (const place of ['file-view', 'other', 'text-box'] as const) expect(reviewKeyOf(k('E', { ctrlKey: true, shiftKey: true }), place)).toBe('files');
  expect(reviewKeyOf(k('e', { ctrlKey: true }), 'other')).toBeNull();
});

test("the list's keys: arrows move, Enter opens, Ctrl+Enter / Ctrl+Backspace decide the file, with Shift the session", () => {
  expect(filesKeyOf(k('ArrowDown'))).toBe('down');
  expect(filesKeyOf(k('ArrowUp'))).toBe('up');
  expect(filesKeyOf(k('Enter'))).toBe('open');
  expect(filesKeyOf(k('Enter', { ctrlKey: true }))).toBe('acceptFile');
  expect(filesKeyOf(k('Enter', { ctrlKey: true, shiftKey: true }))).toBe('acceptAll');
  expect(filesKeyOf(k('Backspace', { ctrlKey: true }))).toBe('rejectFile');
  expect(filesKeyOf(k('Backspace', { metaKey: true, shiftKey: true }))).toBe('rejectAll');
  expect(filesKeyOf(k('Backspace'))).toBeNull();
  expect(filesKeyOf(k('Enter', { shiftKey: true }))).toBeNull();
  expect(filesKeyOf(k('Escape'))).toBe('close');
});
