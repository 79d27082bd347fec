/**
 * A person's own edits journaled as records, without the review document (what
 * `folio upsert` does: src-main/review/applied-log.ts), then folded in by the next
 * process that loads it. Folded in the order they were made, they record what the
 * normal path records: the same journal order, a pending agent proposal of the
 * file moved through each edit, undo and redo byte-exact.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeIndexPools } from '../../src-main/engine/index/builder.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { applyOwnEditDeferred } from '../../src-main/review/applied-log.ts';
import { approve, forgetStores, history, listProposals, propose, storeOf, undo, watch } from '../../src-main/review/index.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-applied-log-');
afterAll(async () => {
  await closeIndexPools();
  tmp.cleanup();
});
const PERSON = { kind: 'human', name: 'cli' } as const;
const AGENT = { kind: 'agent', name: 'bot' } as const;

function workspace(name: string): { root: string; file: string; applied: string } {
  const root = tmp.path(name);
  mkdirSync(root, { recursive: true });
  const file = join(root, 'notes.txt');
  writeFileSync(file, Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join(''));
  return { root, file, applied: join(root, '.folio/review/applied') };
}

async function ownEdit(root: string, file: string, start: number, end: number, content: string) {
  const { version } = await read(file, { mode: 'head', lines: 1 });
  const done = await applyOwnEditDeferred(root, PERSON, file, {
    target: { kind: 'replace', start, end, units: 'lines' },
    content,
    preconditions: { ifMatch: version.etag },
  });
  expect(done).not.toBeNull();
  return done!;
}

describe('own edits journaled as records', () => {
  it('fold in order: readers see them first, a pending proposal moves through each, undo takes the latest back', async () => {
    const { root, file, applied } = workspace('order');
    const { version } = await read(file, { mode: 'head', lines: 1 });
    // The agent proposes an edit of line 9 before the person's edits.
    const p = await propose(root, AGENT, {
      path: file,
      target: { kind: 'replace', start: 9, end: 9, units: 'lines' },
      content: 'line 9 by the agent\n',
      preconditions: { ifMatch: version.etag },
    });
    forgetStores(); // as a new process: the CLI's edits follow
    const a = await ownEdit(root, file, 2, 2, 'two\nand a half\n'); // one line more
    const b = await ownEdit(root, file, 1, 1, ''); // one line less
    const c = await ownEdit(root, file, 5, 5, 'five\n');
    expect(readdirSync(applied)).toHaveLength(3);

    // A reader (a fresh store) sees them settled, in order, before anything folds them.
    forgetStores();
    expect(history(root).map((e) => e.id)).toEqual([a.entryId, b.entryId, c.entryId]);
    expect(readdirSync(applied)).toHaveLength(3);

    // The next writer folds them: the journal keeps their order, and the proposal moved with the file.
    await storeOf(root).locked(() => undefined);
    expect(readdirSync(applied)).toHaveLength(0);
    const entries = history(root);
    expect(entries.map((e) => [e.id, e.seq])).toEqual([
      [a.entryId, 1],
      [b.entryId, 2],
      [c.entryId, 3],
    ]);
    expect(listProposals(root, { status: 'pending' }).map((x) => x.id)).toEqual([p.proposal_id]);
    await approve(root, PERSON, p.proposal_id);
    expect(readFileSync(file, 'utf8')).toBe('two\nand a half\nline 3\nline 4\nfive\nline 6\nline 7\nline 8\nline 9 by the agent\nline 10\n');

    // Undo: the approval, then the person's latest edit, byte-exact.
    await undo(root, PERSON);
    await undo(root, PERSON);
    expect(readFileSync(file, 'utf8')).toBe('two\nand a half\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\n');
  });

  it('are not written while an intent waits to be settled (the full path settles it first)', async () => {
    const { root, file } = workspace('intent');
    mkdirSync(join(root, '.folio/review/intents'), { recursive: true });
    writeFileSync(join(root, '.folio/review/intents/j-dead-apply-1.json'), '{}');
    const { version } = await read(file, { mode: 'head', lines: 1 });
    const req = { target: { kind: 'replace' as const, start: 1, end: 1, units: 'lines' as const }, content: 'one\n', preconditions: { ifMatch: version.etag } };
    expect(await applyOwnEditDeferred(root, PERSON, file, req)).toBeNull();
    expect(readFileSync(file, 'utf8').startsWith('line 1\n')).toBe(true); // nothing written
  });

  it('are folded in by a watching app as they appear', async () => {
    const { root, file, applied } = workspace('watch');
    storeOf(root); // the app has the document loaded
    let changes = 0;
    const stop = watch(root, () => changes++);
    try {
      const done = await ownEdit(root, file, 3, 3, 'three\n');
      const until = Date.now() + 10_000;
      while (Date.now() < until && (existsSync(applied) ? readdirSync(applied).length : 0) > 0) await new Promise((r) => setTimeout(r, 20));
      expect(readdirSync(applied)).toHaveLength(0);
      expect(storeOf(root).state.journal?.[done.entryId]).toBeDefined();
      expect(changes).toBeGreaterThan(0);
    } finally {
      stop();
    }
  });
});
