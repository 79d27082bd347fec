/**
 * Batch decisions (review/batch.ts): every pending proposal of a file or of an
 * agent approved in one step (one write per file, one journal group, undone and
 * redone as one) or rejected with one reason; proposals whose own lines an older
 * one of the batch changes become conflicts in plain words, each its own.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { read } from '../../src-main/engine/read/read.ts';
import type { UpsertTarget } from '../../src-main/engine/write/upsert.ts';
import { approve, approveBatch, history, propose, redo, showProposal, undo } from '../../src-main/review/index.ts';
import { proposeGroup } from '../../src-main/review/proposals.ts';
import { applyOwnEdit } from '../../src-main/review/journal.ts';
import { tempDir } from '../fixtures/generate.ts';
import { runs } from '../fixtures/effort.ts';

const tmp = tempDir('folio-batch-');
afterAll(() => tmp.cleanup());
const AGENT = { kind: 'agent', name: 'claude' } as const;
const OTHER = { kind: 'agent', name: 'codex' } as const;
const ME = { kind: 'human', name: 'ana' } as const;
let n = 0;

const ORIGINAL = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`);
const textOf = (lines: string[]) => lines.map((l) => `${l}\n`).join('');

function workspace(files: string[] = ['orders.py']): { root: string; paths: string[] } {
  const root = tmp.path(`ws${++n}`);
  mkdirSync(root, { recursive: true });
  const paths = files.map((f) => join(root, f));
  for (const p of paths) writeFileSync(p, textOf(ORIGINAL));
  return { root, paths };
}

interface LineEdit {
  kind: 'replace' | 'delete' | 'insert';
  start: number;
  end: number;
  text: string[];
}

const targetOf = (e: LineEdit): UpsertTarget =>
  e.kind === 'insert' ? { kind: 'insert', at: e.start, units: 'lines' } : { kind: e.kind, start: e.start, end: e.end, units: 'lines' };

function expectedText(edits: LineEdit[]): string {
  const out = ORIGINAL.slice();
  const order = edits.slice().sort((a, b) => b.start - a.start || (a.kind === 'insert' ? 1 : 0) - (b.kind === 'insert' ? 1 : 0));
  for (const e of order) out.splice(e.start - 1, e.kind === 'insert' ? 0 : e.end - e.start + 1, ...(e.kind === 'delete' ? [] : e.text));
  return textOf(out);
}

const TWENTY: LineEdit[] = Array.from({ length: 20 }, (_, i) => {
  const start = 1 + i * 3;
  const kind = (['replace', 'delete', 'insert'] as const)[i % 3]!;
  return { kind, start, end: kind === 'insert' ? start - 1 : start + 1, text: kind === 'delete' ? [] : [`edit ${i} a`, `edit ${i} b`] };
});

async function proposeAll(root: string, path: string, edits: LineEdit[], actor: typeof AGENT | typeof OTHER = AGENT): Promise<string[]> {
  const etag = (await read(path, { mode: 'head', lines: 1 })).version.etag;
  const ids: string[] = [];
  for (const e of edits)
    ids.push((await propose(root, actor, { path, target: targetOf(e), content: e.text.join('\n'), preconditions: { ifMatch: etag } })).proposal_id);
  return ids;
}

describe('batch approve', () => {
  it('20 proposals of one file: one write, one entry naming them all; undo and redo step the whole batch', async () => {
    const { root, paths } = workspace();
    const [path] = paths as [string];
    const ids = await proposeAll(root, path, TWENTY);
    const r = await approveBatch(root, ME, { path });
    expect(readFileSync(path, 'utf8')).toBe(expectedText(TWENTY));
    expect(r.upserts).toHaveLength(1);
    expect(r.entries).toHaveLength(1);
    expect(r.entries[0]).toMatchObject({ proposal_id: null, proposal_ids: ids, actor: AGENT, decided_by: ME, group: { id: r.group, index: 0, of: 1 } });
    expect(r.applied.map((p) => [p.id, p.status, p.journal_id])).toEqual(ids.map((id) => [id, 'applied', r.entries[0]!.id]));
    expect(r.conflicts).toEqual([]);
    expect(r.skipped).toEqual([]);
    expect(history(root)).toHaveLength(1);
    await undo(root, ME);
    expect(readFileSync(path, 'utf8')).toBe(textOf(ORIGINAL));
    await redo(root, ME);
    expect(readFileSync(path, 'utf8')).toBe(expectedText(TWENTY));
  });

  it('a proposal whose lines an older one of the batch edits becomes its own conflict, in plain words; the rest apply', async () => {
    const { root, paths } = workspace();
    const [path] = paths as [string];
    const [a, b, c] = await proposeAll(root, path, [
      { kind: 'replace', start: 5, end: 7, text: ['x'] },
      { kind: 'replace', start: 7, end: 8, text: ['y'] },
      { kind: 'insert', start: 30, end: 29, text: ['z'] },
    ]);
    const r = await approveBatch(root, ME, { path });
    expect(r.applied.map((p) => p.id)).toEqual([a, c]);
    expect(r.conflicts.map((p) => p.id)).toEqual([b]);
    const conflict = showProposal(root, b!).proposal;
    expect(conflict.status).toBe('conflict');
    expect(conflict.conflict).toMatchObject({ code: 'precondition_failed', changed_by: r.entries[0]!.id, lines: { start_line: 7, end_line: 8 } });
    expect(String(conflict.conflict!.message)).toMatch(/^lines 7–8 changed after the agent read them/);
    for (const id of [a, c]) expect(showProposal(root, id!).proposal).toMatchObject({ status: 'applied', conflict: null });
    expect(readFileSync(path, 'utf8')).toBe(
      expectedText([
        { kind: 'replace', start: 5, end: 7, text: ['x'] },
        { kind: 'insert', start: 30, end: 29, text: ['z'] },
      ]),
    );
  });

  it("an agent's batch takes only its proposals, across files, as one group; the other agent's stay pending and still apply", async () => {
    const { root, paths } = workspace(['a.py', 'b.py']);
    const [pa, pb] = paths as [string, string];
    const mine = [...(await proposeAll(root, pa, [TWENTY[0]!, TWENTY[6]!])), ...(await proposeAll(root, pb, [TWENTY[3]!]))];
    const [theirs] = await proposeAll(root, pa, [TWENTY[9]!], OTHER);
    const r = await approveBatch(root, ME, { actor: 'claude' });
    expect(r.applied.map((p) => p.id).sort()).toEqual(mine.sort());
    expect(r.entries.map((e) => [e.path, e.group?.of])).toEqual([
      ['a.py', 2],
      ['b.py', 2],
    ]);
    expect(showProposal(root, theirs!).proposal.status).toBe('pending');
    await approve(root, ME, theirs!);
    expect(readFileSync(pa, 'utf8')).toBe(expectedText([TWENTY[0]!, TWENTY[6]!, TWENTY[9]!]));
    // The batch is undone whole (both files) once the later approval is undone.
    await undo(root, ME);
    const back = await undo(root, ME);
    expect(back.group).toHaveLength(2);
    expect(readFileSync(pa, 'utf8')).toBe(textOf(ORIGINAL));
    expect(readFileSync(pb, 'utf8')).toBe(textOf(ORIGINAL));
  });

  it('places quoted edits where their quotes are now; a quote gone is its conflict, one an older proposal rewrote waits', async () => {
    const { root, paths } = workspace();
    const [path] = paths as [string];
    const quote = async (pairs: [string, string][]) =>
      (
        await propose(root, AGENT, {
          path,
          target: { kind: 'whole' },
          content: '',
          preconditions: {},
          quoted: pairs.map(([oldText, newText]) => ({ oldText, newText })),
        })
      ).proposal_id;
    const q1 = await quote([
      ['line 50\n', 'LINE 50\n'],
      ['line 55\n', 'LINE 55\n'],
    ]);
    const [a] = await proposeAll(root, path, [TWENTY[1]!]); // lines 4-5
    const q2 = await quote([['line 4\n', 'LINE 4\n']]); // the lines a replaces: waits
    const q3 = await quote([['line 59\n', 'line 59 and line 58\n']]);
    const q4 = await quote([['line 58\n', 'LINE 58\n']]); // q3 writes its quote again: waits
    const q5 = await quote([['line 57\n', 'LINE 57\n']]);
    // A person's journaled edit changes q5's own line before the batch: the rebase makes it a conflict.
    await applyOwnEdit(root, ME, path, {
      target: { kind: 'whole' },
      content: '',
      preconditions: {},
      quoted: [{ oldText: 'line 57\n', newText: 'line fifty-seven\n' }],
    });
    const r = await approveBatch(root, ME, { actor: 'claude' });
    expect(r.applied.map((p) => p.id)).toEqual([q1, a, q3]);
    expect(r.conflicts.map((p) => [p.id, p.conflict?.code])).toEqual([[q5, 'precondition_failed']]);
    expect(r.skipped.map((x) => x.proposal.id)).toEqual([q2, q4]);
    expect(r.skipped[0]!.reason).toContain('an older proposal of this batch edits or writes the text it quotes');
    expect(readFileSync(path, 'utf8')).toBe(
      expectedText([TWENTY[1]!])
        .replace('line 50\n', 'LINE 50\n')
        .replace('line 55\n', 'LINE 55\n')
        .replace('line 57\n', 'line fifty-seven\n')
        .replace('line 59\n', 'line 59 and line 58\n'),
    );
    expect(r.entries).toHaveLength(1);
    expect((await approveBatch(root, ME, {}).catch((e) => e)).code).toBe('invalid_input');
    expect((await approveBatch(root, ME, { path, actor: 'nobody' }).catch((e) => e)).code).toBe('not_found');
  });

  it('batch approval equals approving one by one, for random non-overlapping edits after random earlier approvals', async () => {
    // Distinct 3-line blocks: every subset of TWENTY is non-overlapping.
    await fc.assert(
      fc.asyncProperty(fc.subarray([...TWENTY.keys()], { minLength: 1 }), fc.subarray([...TWENTY.keys()]), async (chosen, first) => {
        const { root, paths } = workspace();
        const [path] = paths as [string];
        const edits = chosen.map((i) => TWENTY[i]!);
        const ids = await proposeAll(root, path, edits);
        const early = first.filter((i) => chosen.includes(i));
        for (const i of early) await approve(root, ME, ids[chosen.indexOf(i)]!);
        if (early.length === chosen.length) return;
        await approveBatch(root, ME, { path });
        expect(readFileSync(path, 'utf8')).toBe(expectedText(edits));
        expect(ids.map((id) => showProposal(root, id).proposal.status)).toEqual(ids.map(() => 'applied'));
      }),
      runs(25),
    );
  }, 120_000);
});

describe('batch approve with several-file proposals', () => {
  async function groupOf(root: string, files: [string, LineEdit][]) {
    const reqs = [];
    for (const [path, e] of files) {
      const etag = (await read(path, { mode: 'head', lines: 1 })).version.etag;
      reqs.push({ path, target: targetOf(e), content: e.text.join('\n'), preconditions: { ifMatch: etag } });
    }
    return (await proposeGroup(root, AGENT, reqs)).proposals.map((p) => p.proposal_id);
  }

  it('joins whole when all its files are in the batch, and is undone with it', async () => {
    const { root, paths } = workspace(['a.py', 'b.py']);
    const [pa, pb] = paths as [string, string];
    const [single] = await proposeAll(root, pa, [TWENTY[0]!]);
    const group = await groupOf(root, [
      [pa, TWENTY[6]!],
      [pb, TWENTY[9]!],
    ]);
    const r = await approveBatch(root, ME, { actor: 'claude' });
    expect(r.applied.map((p) => p.id).sort()).toEqual([single!, ...group].sort());
    expect(r.entries.map((e) => [e.path, e.proposal_ids!.length])).toEqual([
      ['a.py', 2],
      ['b.py', 1],
    ]);
    expect(readFileSync(pa, 'utf8')).toBe(expectedText([TWENTY[0]!, TWENTY[6]!]));
    expect(readFileSync(pb, 'utf8')).toBe(expectedText([TWENTY[9]!]));
    await undo(root, ME);
    expect([readFileSync(pa, 'utf8'), readFileSync(pb, 'utf8')]).toEqual([textOf(ORIGINAL), textOf(ORIGINAL)]);
  });

  it('waits when the batch takes only some of its files', async () => {
    const { root, paths } = workspace(['a.py', 'b.py']);
    const [pa, pb] = paths as [string, string];
    const [single] = await proposeAll(root, pa, [TWENTY[0]!]);
    const group = await groupOf(root, [
      [pa, TWENTY[6]!],
      [pb, TWENTY[9]!],
    ]);
    const r = await approveBatch(root, ME, { path: pa });
    expect(r.applied.map((p) => p.id)).toEqual([single]);
    expect(r.skipped).toMatchObject([
      { proposal: { id: group[0], status: 'pending' }, reason: expect.stringContaining('whose other files this batch does not take') },
    ]);
    expect(showProposal(root, group[1]!).proposal.status).toBe('pending');
  });

  it('conflicts whole when one of its files does, each file saying which; the rest of the batch applies', async () => {
    const { root, paths } = workspace(['a.py', 'b.py']);
    const [pa, pb] = paths as [string, string];
    const [older] = await proposeAll(root, pb, [{ kind: 'replace', start: 30, end: 31, text: ['b'] }]);
    const [other] = await proposeAll(root, pa, [TWENTY[0]!]);
    const group = await groupOf(root, [
      [pa, TWENTY[6]!],
      [pb, { kind: 'replace', start: 31, end: 32, text: ['g'] }],
    ]);
    const r = await approveBatch(root, ME, { actor: 'claude' });
    expect(r.applied.map((p) => p.id).sort()).toEqual([older!, other!].sort());
    expect(r.conflicts.map((p) => p.id).sort()).toEqual([...group].sort());
    expect(String(showProposal(root, group[1]!).proposal.conflict!.message)).toMatch(/^lines 31–32 changed after the agent read them/);
    expect(String(showProposal(root, group[0]!).proposal.conflict!.message)).toMatch(
      /^another file of its several-file proposal, b\.py: lines 31–32 changed after the agent read them/,
    );
    expect(readFileSync(pa, 'utf8')).toBe(expectedText([TWENTY[0]!]));
  });
});

describe('batch approve on a big file', () => {
  it('takes the edits within 64 MiB of the first in one write; the next batch takes the rest', async () => {
    const root = tmp.path(`ws${++n}`);
    mkdirSync(root, { recursive: true });
    const path = join(root, 'big.log');
    const LINES = 70 * 1024; // 70 MiB of 1 KiB lines
    const lineText = (i: number) => `${String(i).padStart(8, '0')} ${'x'.repeat(1014)}`;
    writeFileSync(path, Array.from({ length: LINES }, (_, i) => lineText(i + 1) + '\n').join(''));
    const etag = (await read(path, { mode: 'head', lines: 1 })).version.etag;
    const replace = async (line: number) =>
      (
        await propose(root, AGENT, {
          path,
          target: { kind: 'replace', start: line, end: line, units: 'lines' },
          content: `edited ${line}`,
          preconditions: { ifMatch: etag },
        })
      ).proposal_id;
    const ids = [await replace(1), await replace(LINES), await replace(2)];
    const first = await approveBatch(root, ME, { path });
    expect(first.applied.map((p) => p.id)).toEqual([ids[0], ids[2]]);
    expect(first.skipped).toMatchObject([{ proposal: { id: ids[1], status: 'pending' }, reason: expect.stringContaining('next batch') }]);
    const second = await approveBatch(root, ME, { path });
    expect(second.applied.map((p) => p.id)).toEqual([ids[1]]);
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith('edited 1\nedited 2\n' + lineText(3))).toBe(true);
    expect(text.endsWith(lineText(LINES - 1) + '\nedited ' + LINES + '\n')).toBe(true);
  }, 180_000);
});

describe('batch reject', () => {
  it('rejects the pending and conflicted proposals of an agent with one reason it sees; others stay', async () => {
    const { root, paths } = workspace();
    const [path] = paths as [string];
    const [a, b] = await proposeAll(root, path, [
      { kind: 'replace', start: 5, end: 7, text: ['x'] },
      { kind: 'replace', start: 7, end: 8, text: ['y'] },
    ]);
    const [c] = await proposeAll(root, path, [TWENTY[12]!]);
    const [theirs] = await proposeAll(root, path, [TWENTY[15]!], OTHER);
    const etag = (await read(path, { mode: 'head', lines: 1 })).version.etag;
    const two = [TWENTY[18]!, TWENTY[19]!].map((e) => ({ target: targetOf(e), content: e.text.join('\n') }));
    const multi = (await propose(root, AGENT, { path, target: two[0]!.target, content: two[0]!.content, edits: two, preconditions: { ifMatch: etag } }))
      .proposal_id;
    await approve(root, ME, multi, { hunks: [1] });
    await approve(root, ME, a!);
    await approve(root, ME, b!).catch(() => undefined);
    expect(showProposal(root, b!).proposal.status).toBe('conflict');
    const r = await handle('review_batch', { decision: 'reject', actor: 'agent:claude', reason: 'one at a time, please' }, ME, { workspace: root });
    expect(r.rejected.map((p) => p.id).sort()).toEqual([b!, c!, multi].sort());
    expect(r.rejected.find((p) => p.id === multi)).toMatchObject({ status: 'applied', hunks: [{ status: 'applied' }, { status: 'rejected' }] });
    const status = await handle('proposal_status', { proposal_id: c! }, AGENT, { workspace: root });
    expect(status).toMatchObject({ status: 'rejected', reason: 'one at a time, please' });
    expect(showProposal(root, theirs!).proposal.status).toBe('pending');
  });
});
