/**
 * Undo / redo of one named journal entry (`id`), as the app's per-entry buttons
 * send it: the entry is stepped even when later edits are applied, guarded by its
 * region like the latest-edit undo; a guard that fails names the later edits.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { read } from '../../src-main/engine/read/read.ts';
import type { UpsertTarget } from '../../src-main/engine/write/upsert.ts';
import { approve, history, propose, redo, undo, type ReviewActor } from '../../src-main/review/index.ts';
import { tempDir } from '../fixtures/generate.ts';
import { runs } from '../fixtures/effort.ts';

const tmp = tempDir('folio-undo-id-');
afterAll(() => tmp.cleanup());
const AGENT = { kind: 'agent', name: 'claude' } as const;
const ME = { kind: 'human', name: 'ana' } as const;
const BOB = { kind: 'human', name: 'bob' } as const;
let n = 0;
let root = '';
beforeEach(() => {
  root = tmp.path(`ws${++n}`);
  mkdirSync(root, { recursive: true });
});
const file = (name: string, text: string) => {
  const p = join(root, name);
  writeFileSync(p, text);
  return p;
};
const lines = (start: number, end: number): UpsertTarget => ({ kind: 'replace', start, end, units: 'lines' });
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: 'no error', message: '', details: {} }),
    (e: { code: string; message: string; details: Record<string, unknown> }) => e,
  );

async function applied(p: string, target: UpsertTarget, content: string, who: ReviewActor = ME) {
  const etag = (await read(p, { mode: 'head', lines: 1 })).version.etag;
  const { proposal_id } = await propose(root, AGENT, { path: p, target, content, preconditions: { ifMatch: etag } });
  return (await approve(root, who, proposal_id)).entry;
}

describe('undo / redo by id', () => {
  it('undoes an older edit of another file, leaving the later one applied, and redoes it by id', async () => {
    const a = file('a.txt', 'a1\na2\n');
    const b = file('b.txt', 'b1\n');
    const older = await applied(a, lines(1, 1), 'A1');
    const later = await applied(b, lines(1, 1), 'B1');
    const r = await undo(root, ME, { id: older.id });
    expect(r.entry).toMatchObject({ id: older.id, undone: true });
    expect(readFileSync(a, 'utf8')).toBe('a1\na2\n');
    expect(readFileSync(b, 'utf8')).toBe('B1\n');
    expect(history(root).find((e) => e.id === later.id)?.undone).toBe(false);
    // the latest-edit undo still takes the later one
    expect((await undo(root, ME)).entry.id).toBe(later.id);
    await redo(root, ME, { id: older.id });
    expect(readFileSync(a, 'utf8')).toBe('A1\na2\n');
    expect(readFileSync(b, 'utf8')).toBe('b1\n');
  });

  it('undoes an older edit of the same file when a later edit left its region alone', async () => {
    const p = file('a.txt', 'one\ntwo\nthree\n');
    const older = await applied(p, lines(1, 1), 'ONE');
    const later = await applied(p, lines(3, 3), 'THREE');
    await undo(root, ME, { id: older.id });
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\nTHREE\n');
    await undo(root, ME, { id: later.id });
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\nthree\n');
  });

  it("an older undo that changed the length before a later edit moves that edit's region with it, so the later undo still works", async () => {
    const p = file('a.txt', 'one\ntwo\nthree\n');
    const older = await applied(p, lines(1, 1), 'ONE, longer');
    const later = await applied(p, lines(3, 3), 'THREE');
    await undo(root, ME, { id: older.id });
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\nTHREE\n');
    await undo(root, ME, { id: later.id });
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\nthree\n');
    await redo(root, ME, { id: older.id });
    await redo(root, ME, { id: later.id });
    expect(readFileSync(p, 'utf8')).toBe('ONE, longer\ntwo\nTHREE\n');
  });

  it("a later edit before an older one in the file (longer text) moves the older one's region: undo it by id", async () => {
    const p = file('a.txt', 'one\ntwo\nthree\n');
    const older = await applied(p, lines(3, 3), 'THREE');
    await applied(p, lines(1, 1), 'uno\nuno bis\n');
    await undo(root, ME, { id: older.id });
    expect(readFileSync(p, 'utf8')).toBe('uno\nuno bis\ntwo\nthree\n');
  });

  it('any order of undo and redo by id over edits of distinct lines restores the file exactly (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray([0, 1, 2, 3, 4, 5, 6, 7], { minLength: 2, maxLength: 5 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 5, maxLength: 5 }),
        fc.infiniteStream(fc.integer({ min: 0, max: 1000 })),
        async (targets, extraLines, picks) => {
          root = tmp.path(`prop${++n}`);
          mkdirSync(root, { recursive: true });
          const original = Array.from({ length: 8 }, (_, k) => `L${k}\n`).join('');
          const p = file('p.txt', original);
          const lineOf = (k: number) => readFileSync(p, 'utf8').split('\n').indexOf(`L${k}`) + 1;
          const entries: Awaited<ReturnType<typeof applied>>[] = [];
          for (const [i, k] of targets.entries()) {
            const at = lineOf(k);
            entries.push(await applied(p, lines(at, at), [`E${k}`, ...Array.from({ length: extraLines[i]! }, (_, j) => `E${k}.${j}`)].join('\n')));
          }
          const edited = readFileSync(p, 'utf8');
          const it = picks[Symbol.iterator]();
          const order = (xs: typeof entries) => [...xs].sort(() => ((it.next().value as number) % 3) - 1);
          for (const e of order(entries)) await undo(root, ME, { id: e.id });
          expect(readFileSync(p, 'utf8')).toBe(original);
          for (const e of order(entries)) await redo(root, ME, { id: e.id });
          expect(readFileSync(p, 'utf8')).toBe(edited);
        },
      ),
      runs(25),
    );
  });

  it('is a conflict naming the later edit when that edit rewrote the region, and writes nothing', async () => {
    const p = file('a.txt', 'one\ntwo\nthree\n');
    const older = await applied(p, lines(2, 2), 'TWO');
    const later = await applied(p, lines(1, 3), 'uno\ndos\ntres\n');
    const err = await errorOf(undo(root, ME, { id: older.id }));
    expect(err.code).toBe('conflict');
    expect(err.details).toMatchObject({ action: 'undo', journal_id: older.id, later_entries: [later.id], path: 'a.txt' });
    expect(err.message).toContain(`undo them first`);
    expect(readFileSync(p, 'utf8')).toBe('uno\ndos\ntres\n');
    // after undoing the later edit, the older one undoes
    await undo(root, ME, { id: later.id });
    await undo(root, ME, { id: older.id });
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\nthree\n');
  });

  it('refuses an unknown id, a second undo, a redo of an applied edit, and others’ edits without include_others', async () => {
    const p = file('a.txt', 'x\ny\n');
    const mine = await applied(p, lines(1, 1), 'X');
    const bobs = await applied(p, lines(2, 2), 'Y', BOB);
    expect((await errorOf(undo(root, ME, { id: 'j-nope' }))).code).toBe('not_found');
    expect((await errorOf(redo(root, ME, { id: mine.id }))).details).toMatchObject({ undone: false, journal_id: mine.id });
    expect((await errorOf(undo(root, ME, { id: bobs.id }))).code).toBe('not_found');
    expect((await errorOf(undo(root, ME, { id: mine.id, path: join(root, 'other.txt') }))).code).toBe('not_found');
    await undo(root, ME, { id: mine.id });
    const again = await errorOf(undo(root, ME, { id: mine.id }));
    expect(again).toMatchObject({ code: 'conflict', details: { undone: true } });
    await undo(root, ME, { id: bobs.id, includeOthers: true });
    expect(readFileSync(p, 'utf8')).toBe('x\ny\n');
  });

  it('review_undo takes id through the operation table', async () => {
    const a = file('a.txt', 'a1\n');
    const b = file('b.txt', 'b1\n');
    const older = await applied(a, lines(1, 1), 'A1');
    await applied(b, lines(1, 1), 'B1');
    const out = await handle('review_undo', { id: older.id }, ME, { workspace: root });
    expect(out).toMatchObject({ action: 'undo', entry: { id: older.id, undone: true, path: 'a.txt' } });
    expect(readFileSync(a, 'utf8')).toBe('a1\n');
    expect(readFileSync(b, 'utf8')).toBe('B1\n');
    await expect(handle('review_undo', { id: '' }, ME, { workspace: root })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
