/**
 * The whole session as one batch (review_batch all: true): every pending
 * proposal of the workspace, content edits, deletes and moves, approved in one
 * journal group that one undo steps back, every file byte for byte as before.
 * Also what must not happen: an empty filter deciding everything by accident, a
 * delete racing an edit of the same file, an undo half done when a deleted
 * file's name was taken again.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { fileInfo } from '../../src-main/engine/read/file-info.ts';
import { approveBatch, history, listProposals, propose, proposeFileOp, redo, undo } from '../../src-main/review/index.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-batch-session-');
afterAll(() => tmp.cleanup());
const AGENT = { kind: 'agent', name: 'claude' } as const;
const OTHER = { kind: 'agent', name: 'codex' } as const;
const ME = { kind: 'human', name: 'ana' } as const;
let n = 0;
let root = '';
beforeEach(() => {
  root = tmp.path(`ws${++n}`);
  mkdirSync(join(root, 'src'), { recursive: true });
});

const lines = (tag: string, count = 12) => Array.from({ length: count }, (_, i) => `${tag} ${i + 1}\n`).join('');
const etagOf = async (p: string) => (await fileInfo(p)).version.etag;
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: 'no error', message: '' }),
    (e: { code: string; message: string }) => e,
  );

/** Every file under root (but the review state) with its bytes: what "byte for byte" compares. */
function snapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      if (d.name === '.folio') continue;
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) walk(join(dir, d.name), r);
      else out[r] = readFileSync(join(dir, d.name)).toString('base64');
    }
  };
  walk(root, '');
  return out;
}

/** Three files edited (two agents, a quote edit among them), one deleted, one moved. */
async function session() {
  const a = join(root, 'src/a.ts');
  const b = join(root, 'src/b.ts');
  const c = join(root, 'c.md');
  const gone = join(root, 'src/old.ts');
  const from = join(root, 'src/name.ts');
  writeFileSync(a, lines('a'));
  writeFileSync(b, lines('b'), { mode: 0o600 });
  writeFileSync(c, 'title\r\nbody\r\n');
  writeFileSync(gone, lines('old'), { mode: 0o640 });
  writeFileSync(from, lines('name'));
  const ids = {
    a1: (
      await propose(root, AGENT, {
        path: a,
        target: { kind: 'replace', start: 2, end: 3, units: 'lines' },
        content: 'A two\nA three',
        preconditions: { ifMatch: await etagOf(a) },
      })
    ).proposal_id,
    a2: (
      await propose(root, OTHER, {
        path: a,
        target: { kind: 'insert', at: 9, units: 'lines' },
        content: 'inserted',
        preconditions: { ifMatch: await etagOf(a) },
      })
    ).proposal_id,
    b1: (
      await propose(root, AGENT, {
        path: b,
        target: { kind: 'whole' },
        content: '',
        quoted: [{ oldText: 'b 5\n', newText: 'B five\n' }],
        preconditions: { ifMatch: await etagOf(b) },
      })
    ).proposal_id,
    c1: (
      await propose(root, OTHER, {
        path: c,
        target: { kind: 'delete', start: 2, end: 2, units: 'lines' },
        content: '',
        preconditions: { ifMatch: await etagOf(c) },
      })
    ).proposal_id,
    del: (await proposeFileOp(root, AGENT, { op: 'delete', path: gone, preconditions: { ifMatch: await etagOf(gone) } })).proposal_id,
    mv: (
      await proposeFileOp(root, OTHER, {
        op: 'move',
        path: from,
        to: join(root, 'lib/renamed.ts'),
        preconditions: { ifMatch: await etagOf(from) },
        createParents: true,
      })
    ).proposal_id,
  };
  return { a, b, c, gone, from, ids };
}

describe('review_batch all: the whole session', () => {
  it('approves edits, a delete and a move in one group; one undo puts every file back byte for byte, one redo again', async () => {
    const s = await session();
    const before = snapshot();
    const r = await handle('review_batch', { decision: 'approve', all: true }, ME, { workspace: root });
    expect(r.applied.map((p) => p.id).sort()).toEqual(Object.values(s.ids).sort());
    expect(r.conflicts).toEqual([]);
    expect(r.skipped).toEqual([]);
    expect(readFileSync(s.a, 'utf8')).toBe(lines('a').replace('a 2\na 3\n', 'A two\nA three\n').replace('a 9\n', 'inserted\na 9\n'));
    expect(readFileSync(s.b, 'utf8')).toBe(lines('b').replace('b 5\n', 'B five\n'));
    expect(readFileSync(s.c, 'utf8')).toBe('title\r\n');
    expect(existsSync(s.gone)).toBe(false);
    expect(existsSync(s.from)).toBe(false);
    expect(readFileSync(join(root, 'lib/renamed.ts'), 'utf8')).toBe(lines('name'));
    // One group: the content writes (one per file) and the two file ops.
    expect(r.entries).toHaveLength(5);
    expect(new Set(r.entries.map((e) => e.group?.id))).toEqual(new Set([r.group_id]));
    expect(r.entries.map((e) => e.group!.index)).toEqual([0, 1, 2, 3, 4]);
    expect(r.entries.every((e) => e.group!.of === 5)).toBe(true);
    const afterApprove = snapshot();

    const u = await undo(root, ME);
    expect(u.group).toHaveLength(5);
    expect(snapshot()).toEqual(before);
    expect(history(root).every((e) => e.undone)).toBe(true);

    await redo(root, ME);
    expect(snapshot()).toEqual(afterApprove);
  });

  it('an older proposal of the session makes a newer one of its lines a conflict; a delete of a file changed since is one too; the rest apply and undo whole', async () => {
    const s = await session();
    // Codex rewrites the lines Claude's a1 replaces: approving one by one, a1 goes first and this one conflicts.
    const late = (
      await propose(root, OTHER, {
        path: s.a,
        target: { kind: 'replace', start: 3, end: 3, units: 'lines' },
        content: 'late',
        preconditions: { ifMatch: await etagOf(s.a) },
      })
    ).proposal_id;
    // A person edits the file a delete proposal read: its if_match no longer holds.
    writeFileSync(s.gone, lines('old') + 'kept by a person\n');
    const before = snapshot();
    const r = await approveBatch(root, ME, { all: true });
    expect(r.conflicts.map((p) => p.id).sort()).toEqual([late, s.ids.del].sort());
    for (const p of r.conflicts) expect(p.status).toBe('conflict');
    expect(r.applied.map((p) => p.id).sort()).toEqual([s.ids.a1, s.ids.a2, s.ids.b1, s.ids.c1, s.ids.mv].sort());
    expect(readFileSync(s.gone, 'utf8')).toBe(lines('old') + 'kept by a person\n');
    expect(readFileSync(s.a, 'utf8')).not.toContain('late');
    await undo(root, ME);
    expect(snapshot()).toEqual(before);
  });

  it('leaves a delete pending when another proposal of the batch edits its file, and a move onto a name another edits', async () => {
    const a = join(root, 'a.txt');
    const b = join(root, 'b.txt');
    writeFileSync(a, lines('a'));
    writeFileSync(b, lines('b'));
    const edit = (
      await propose(root, AGENT, {
        path: a,
        target: { kind: 'replace', start: 1, end: 1, units: 'lines' },
        content: 'A',
        preconditions: { ifMatch: await etagOf(a) },
      })
    ).proposal_id;
    const del = (await proposeFileOp(root, AGENT, { op: 'delete', path: a, preconditions: { ifMatch: await etagOf(a) } })).proposal_id;
    const mv = (await proposeFileOp(root, AGENT, { op: 'move', path: b, to: join(root, 'c.txt'), preconditions: { ifMatch: await etagOf(b) } })).proposal_id;
    const mv2 = (
      await proposeFileOp(root, OTHER, { op: 'move', path: join(root, 'a.txt'), to: join(root, 'c.txt'), preconditions: { ifMatch: await etagOf(a) } })
    ).proposal_id;
    const r = await approveBatch(root, ME, { all: true });
    expect(r.applied.map((p) => p.id)).toEqual([edit]);
    expect(r.skipped.map((x) => x.proposal.id).sort()).toEqual([del, mv, mv2].sort());
    expect(r.skipped.find((x) => x.proposal.id === del)!.reason).toMatch(/a\.txt, which another proposal of this batch also changes: approve it alone/);
    expect(r.skipped.every((x) => x.proposal.status === 'pending')).toBe(true);
    expect(existsSync(b)).toBe(true);
  });

  it('an undo that cannot step a delete back (its name was taken again) writes nothing, then steps all once the name is free', async () => {
    const s = await session();
    const before = snapshot();
    await approveBatch(root, ME, { all: true });
    const approved = snapshot();
    writeFileSync(s.gone, 'someone else made this\n');
    const err = await errorOf(undo(root, ME));
    expect(err.code).toBe('conflict');
    expect(err.message).toMatch(/exists again/);
    const { [`src/old.ts`]: taken, ...rest } = snapshot();
    expect(Buffer.from(taken!, 'base64').toString()).toBe('someone else made this\n');
    expect(rest).toEqual(approved);
    expect(history(root).some((e) => e.undone)).toBe(false);
    unlinkSync(s.gone);
    await undo(root, ME);
    expect(snapshot()).toEqual(before);
  });

  it('a batch of deletes and moves alone is one group too: one undo brings every file back at its name', async () => {
    const a = join(root, 'a.txt');
    const b = join(root, 'b.txt');
    writeFileSync(a, lines('a'), { mode: 0o600 });
    writeFileSync(b, lines('b'));
    await proposeFileOp(root, AGENT, { op: 'delete', path: a, preconditions: { ifMatch: await etagOf(a) } });
    await proposeFileOp(root, AGENT, { op: 'move', path: b, to: join(root, 'src/b.txt'), preconditions: { ifMatch: await etagOf(b) } });
    const before = snapshot();
    const r = await approveBatch(root, ME, { actor: 'claude' });
    expect(r.applied).toHaveLength(2);
    expect(r.entries.map((e) => [e.file_op, e.group?.id, e.group?.index, e.group?.of])).toEqual([
      ['delete', r.group, 0, 2],
      ['move', r.group, 1, 2],
    ]);
    expect(Object.keys(snapshot())).toEqual(['src/b.txt']);
    await undo(root, ME);
    expect(snapshot()).toEqual(before);
  });

  it('refuses an empty filter, and all with a path or an actor, as invalid_input; nothing is decided', async () => {
    const s = await session();
    const before = snapshot();
    for (const input of [{ decision: 'approve' }, { decision: 'reject' }, { decision: 'approve', all: false }] as const) {
      const err = await errorOf(handle('review_batch', input, ME, { workspace: root }));
      expect(err.code).toBe('invalid_input');
      expect(err.message).toMatch(/name a path, an actor, or all: true/);
    }
    for (const extra of [{ path: s.a }, { actor: 'claude' }]) {
      const err = await errorOf(handle('review_batch', { decision: 'approve', all: true, ...extra }, ME, { workspace: root }));
      expect(err.code).toBe('invalid_input');
      expect(err.message).toMatch(/without path or actor/);
    }
    expect(snapshot()).toEqual(before);
    expect(listProposals(root).filter((p) => p.status === 'pending')).toHaveLength(6);
  });

  it('rejects the whole session with one reason', async () => {
    await session();
    const before = snapshot();
    const r = await handle('review_batch', { decision: 'reject', all: true, reason: 'not today' }, ME, { workspace: root });
    expect(r.rejected).toHaveLength(6);
    expect(r.rejected.every((p) => p.status === 'rejected' && p.reason === 'not today')).toBe(true);
    expect(snapshot()).toEqual(before);
  });
});

describe('a create in the session batch', () => {
  it('is written with the rest, in the same group: one undo takes the new file away again', async () => {
    const a = join(root, 'src/a.ts');
    writeFileSync(a, lines('a'));
    const before = snapshot();
    const edit = await propose(root, AGENT, {
      path: a,
      target: { kind: 'replace', start: 2, end: 2, units: 'lines' },
      content: 'A two',
      preconditions: { ifMatch: await etagOf(a) },
    });
    const created = await propose(root, AGENT, {
      path: join(root, 'src/new.ts'),
      target: { kind: 'whole' },
      content: 'export const x = 1;\n',
      preconditions: { ifNoneMatch: '*' },
    });
    const r = await approveBatch(root, ME, { all: true });
    expect(r.applied.map((p) => p.id).sort()).toEqual([edit.proposal_id, created.proposal_id].sort());
    expect(readFileSync(join(root, 'src/new.ts'), 'utf8')).toBe('export const x = 1;\n');
    await undo(root, ME, {});
    // Undo takes the created file away, as for a create approved alone (create-undo.test.ts); redo brings both back.
    expect(snapshot()).toEqual(before);
    await redo(root, ME, {});
    expect(readFileSync(join(root, 'src/new.ts'), 'utf8')).toBe('export const x = 1;\n');
  });

  it('waits, still pending, when its file exists now', async () => {
    writeFileSync(join(root, 'src/new.ts'), 'there first\n');
    const created = await propose(root, AGENT, {
      path: join(root, 'src/other.ts'),
      target: { kind: 'whole' },
      content: 'x\n',
      preconditions: { ifNoneMatch: '*' },
    });
    writeFileSync(join(root, 'src/other.ts'), 'a person made it\n');
    const r = await approveBatch(root, ME, { all: true });
    expect(r.skipped.map((x) => [x.proposal.id, x.reason])).toEqual([[created.proposal_id, expect.stringContaining('exists now')]]);
    expect(readFileSync(join(root, 'src/other.ts'), 'utf8')).toBe('a person made it\n');
  });
});
