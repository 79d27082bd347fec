/**
 * Whole-file deletes and moves in the review journal: proposals approved and
 * rejected, applied / undone / redone with the file system agreeing at each step,
 * and every guard (something new at a deleted name, a moved file changed since)
 * answering conflict with nothing written. Intents a crash left are settled by
 * which names exist.
 */
import { existsSync, linkSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { fileInfo } from '../../src-main/engine/read/file-info.ts';
import { moveFile, deleteFile } from '../../src-main/engine/write/file-ops.ts';
import { writeFileOpIntent } from '../../src-main/review/file-op-intents.ts';
import { intentsOf } from '../../src-main/review/intents.ts';
import { applyFileOp, approve, forgetStores, history, listProposals, proposeFileOp, redo, reject, storeOf, undo } from '../../src-main/review/index.ts';
import { entryView, proposalView } from '../../src-main/review/views.ts';
import { ReviewJournalEntry, ReviewProposal } from '../../src-main/api/schemas.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-review-file-ops-');
afterAll(() => tmp.cleanup());
const AGENT = { kind: 'agent', name: 'claude' } as const;
const ME = { kind: 'human', name: 'ana' } as const;
let n = 0;
let root = '';
beforeEach(() => {
  root = tmp.path(`ws${++n}`);
  mkdirSync(root, { recursive: true });
});
const file = (name: string, text: string, mode = 0o644) => {
  const p = join(root, name);
  writeFileSync(p, text, { mode });
  return p;
};
const etagOf = async (p: string) => (await fileInfo(p)).version.etag;
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: 'no error', message: '', details: {} as Record<string, unknown> }),
    (e: { code: string; message: string; details: Record<string, unknown> }) => e,
  );

describe('journaled delete', () => {
  it('apply, undo (bytes and mode back), redo, each agreeing with the file system', async () => {
    const p = file('a.txt', 'alpha\nbeta\n', 0o640);
    const { entry } = await applyFileOp(root, ME, { op: 'delete', path: p, preconditions: { ifMatch: await etagOf(p) } });
    expect(entry).toMatchObject({ file_op: 'delete', path: 'a.txt', removed: { bytes: 11 }, file: { bytes: 11, mode: 0o640 } });
    expect(existsSync(p)).toBe(false);
    expect(ReviewJournalEntry.parse(entryView(entry))).toMatchObject({ file_op: 'delete', removed_bytes: 11 });
    const u = await undo(root, ME, { path: p });
    expect(u.entry.undone).toBe(true);
    expect(readFileSync(p, 'utf8')).toBe('alpha\nbeta\n');
    expect(statSync(p).mode & 0o777).toBe(0o640);
    const r = await redo(root, ME, { path: p });
    expect(r.entry.undone).toBe(false);
    expect(existsSync(p)).toBe(false);
    expect(history(root, { path: p }).map((e) => e.history.map((h) => h.action))).toEqual([['apply', 'undo', 'redo']]);
    expect(intentsOf(storeOf(root))).toEqual([]);
  });

  it('undo is a conflict when something now exists at the path; redo when the file changed', async () => {
    const p = file('a.txt', 'one\n');
    await applyFileOp(root, ME, { op: 'delete', path: p, preconditions: { ifMatch: await etagOf(p) } });
    writeFileSync(p, 'someone else\n');
    const e = await errorOf(undo(root, ME));
    expect(e).toMatchObject({ code: 'conflict', details: { cause: 'precondition_failed', failed: ['absent'] } });
    expect(readFileSync(p, 'utf8')).toBe('someone else\n');
    // Gone again: undo works; then the restored file changes and redo must not delete it.
    await deleteFile(p, { preconditions: { ifMatch: await etagOf(p) } });
    await undo(root, ME);
    writeFileSync(p, 'one, edited\n');
    expect((await errorOf(redo(root, ME))).code).toBe('conflict');
    expect(readFileSync(p, 'utf8')).toBe('one, edited\n');
  });

  it('files over 64 MiB are too_large for a journaled delete', async () => {
    const p = join(root, 'big.bin');
    writeFileSync(p, Buffer.alloc(64 * 1024 * 1024 + 1, 0x61));
    const e = await errorOf(applyFileOp(root, ME, { op: 'delete', path: p, preconditions: { ifMatch: await etagOf(p) } }));
    expect(e.code).toBe('too_large');
    expect(existsSync(p)).toBe(true);
  });
});

describe('journaled move', () => {
  it('apply, undo moves it back, redo moves it again; undo by the destination path finds it', async () => {
    const p = file('a.txt', 'content\n');
    const to = join(root, 'dir', 'b.txt');
    const { entry } = await applyFileOp(root, ME, { op: 'move', path: p, to, preconditions: { ifMatch: await etagOf(p) }, createParents: true });
    expect(entry).toMatchObject({ file_op: 'move', path: 'a.txt', to: 'dir/b.txt' });
    expect(existsSync(p)).toBe(false);
    await undo(root, ME, { path: to });
    expect(readFileSync(p, 'utf8')).toBe('content\n');
    expect(existsSync(to)).toBe(false);
    await redo(root, ME, { path: p });
    expect(readFileSync(to, 'utf8')).toBe('content\n');
    expect(existsSync(p)).toBe(false);
  });

  it('undo is a conflict when `to` changed since, or something is at the old name', async () => {
    const p = file('a.txt', 'v1\n');
    const to = join(root, 'b.txt');
    await applyFileOp(root, ME, { op: 'move', path: p, to, preconditions: { ifMatch: await etagOf(p) } });
    writeFileSync(to, 'v2\n');
    expect(await errorOf(undo(root, ME))).toMatchObject({ code: 'conflict', details: { failed: ['expected_sha256'] } });
    expect(readFileSync(to, 'utf8')).toBe('v2\n');
    writeFileSync(to, 'v1\n');
    writeFileSync(p, 'new a\n');
    expect(await errorOf(undo(root, ME))).toMatchObject({ code: 'conflict', details: { failed: ['destination_exists'] } });
    expect(readFileSync(p, 'utf8')).toBe('new a\n');
  });
});

describe('file-op proposals', () => {
  it('a delete proposal: pending with a preview, approved journaled, undone', async () => {
    const p = file('a.txt', 'x\ny\n');
    const prop = await proposeFileOp(root, AGENT, { op: 'delete', path: p, preconditions: { ifMatch: await etagOf(p) }, checked: { allowHardlinks: false } });
    expect(prop).toMatchObject({ status: 'pending', file_op: 'delete', path: 'a.txt' });
    expect(prop.preview).toContain('-y');
    expect(existsSync(p)).toBe(true);
    const view = ReviewProposal.parse(proposalView(root, prop.proposal));
    expect(view).toMatchObject({ file_op: 'delete', target: { whole_file: true } });
    const a = await approve(root, ME, prop.proposal_id);
    expect(a.proposal).toMatchObject({ status: 'applied', journal_id: a.entry.id });
    expect(a.entry).toMatchObject({ file_op: 'delete', actor: AGENT, decided_by: ME, proposal_id: prop.proposal_id });
    expect(existsSync(p)).toBe(false);
    await undo(root, ME);
    expect(readFileSync(p, 'utf8')).toBe('x\ny\n');
  });

  it('a move proposal whose destination appeared before approval becomes a conflict; a rejected one moves nothing', async () => {
    const p = file('a.txt', 'a\n');
    const to = join(root, 'b.txt');
    const prop = await proposeFileOp(root, AGENT, { op: 'move', path: p, to, preconditions: { ifMatch: await etagOf(p) } });
    expect(prop).toMatchObject({ file_op: 'move', to: 'b.txt' });
    writeFileSync(to, 'already here\n');
    expect(await errorOf(approve(root, ME, prop.proposal_id))).toMatchObject({ code: 'precondition_failed', details: { status: 'conflict' } });
    expect(listProposals(root, { status: 'conflict' }).map((x) => x.id)).toEqual([prop.proposal_id]);
    expect(readFileSync(p, 'utf8')).toBe('a\n');
    const other = await proposeFileOp(root, AGENT, { op: 'move', path: p, to: join(root, 'c.txt'), preconditions: { ifMatch: await etagOf(p) } });
    await reject(root, ME, other.proposal_id, 'keep the name');
    expect(existsSync(join(root, 'c.txt'))).toBe(false);
    expect((await errorOf(approve(root, ME, other.proposal_id))).code).toBe('conflict');
  });

  it('proposing a delete of a stale version is refused at once', async () => {
    const p = file('a.txt', 'a\n');
    expect((await errorOf(proposeFileOp(root, AGENT, { op: 'delete', path: p, preconditions: { ifMatch: 'old' } }))).code).toBe('precondition_failed');
    expect(listProposals(root)).toEqual([]);
  });
});

describe('intents a crash left', () => {
  const what = () => ({ action: 'apply' as const, entry_id: `j-crash${n}`, proposal_id: null, actor: ME, decided_by: ME, edited_content: null });

  it('a move killed between link and unlink: reconciling removes the source name and commits the move', async () => {
    const p = file('a.txt', 'linked\n');
    const to = join(root, 'b.txt');
    const store = storeOf(root);
    await moveFile(p, to, {
      preconditions: { ifMatch: await etagOf(p) },
      dryRun: false,
      onBeforeWrite: (plan) => {
        writeFileOpIntent(store, what(), plan);
        // The crash: link done, unlink never ran.
        linkSync(p, to);
        throw new Error('killed');
      },
    }).catch(() => undefined);
    expect(statSync(p).ino).toBe(statSync(to).ino);
    forgetStores();
    expect(history(root)).toMatchObject([{ file_op: 'move', to: 'b.txt' }]); // a reader sees it settled
    await storeOf(root).locked(() => undefined);
    expect(existsSync(p)).toBe(false);
    expect(readFileSync(to, 'utf8')).toBe('linked\n');
    expect(intentsOf(storeOf(root))).toEqual([]);
    await undo(root, ME);
    expect(readFileSync(p, 'utf8')).toBe('linked\n');
    expect(existsSync(to)).toBe(false);
  });

  it('a delete killed before the unlink is dropped: the journal has nothing, the file stays', async () => {
    const p = file('a.txt', 'stays\n');
    const store = storeOf(root);
    await deleteFile(p, {
      preconditions: { ifMatch: await etagOf(p) },
      captureContent: true,
      onBeforeWrite: (plan) => {
        writeFileOpIntent(store, what(), plan);
        throw new Error('killed');
      },
    }).catch(() => undefined);
    forgetStores();
    await storeOf(root).locked(() => undefined);
    expect(history(root)).toEqual([]);
    expect(readFileSync(p, 'utf8')).toBe('stays\n');
  });
});
