/**
 * Conflicts speak plainly and belong to their proposal: "lines 7–8 changed after
 * the agent read them", in the error every door shows and in the proposal's
 * state; other proposals keep their own state. A person's edited text is never
 * lost: a conflicted approval keeps it with the proposal, and approving with
 * current applies it to the current file.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { approve, propose, showProposal } from '../../src-main/review/index.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-conflict-text-');
afterAll(() => tmp.cleanup());
const AGENT = { kind: 'agent', name: 'claude' } as const;
const ME = { kind: 'human', name: 'ana' } as const;
let n = 0;

const ORIGINAL = Array.from({ length: 30 }, (_, i) => `line ${i + 1}\n`).join('');

async function workspace() {
  const root = tmp.path(`ws${++n}`);
  mkdirSync(root, { recursive: true });
  const path = join(root, 'orders.py');
  writeFileSync(path, ORIGINAL);
  const etag = (await read(path, { mode: 'head', lines: 1 })).version.etag;
  const replace = async (start: number, end: number, content: string) =>
    (await propose(root, AGENT, { path, target: { kind: 'replace', start, end, units: 'lines' }, content, preconditions: { ifMatch: etag } })).proposal_id;
  return { root, path, replace };
}

describe('conflict text', () => {
  it("names the proposal's own lines, in the error, the queue and proposal_status; other proposals keep their own state", async () => {
    const { root, replace } = await workspace();
    const a = await replace(5, 7, 'x');
    const b = await replace(7, 8, 'y');
    const c = await replace(20, 20, 'z');
    await approve(root, ME, a);
    const err = await handle('review_approve', { id: b }, ME, { workspace: root }).catch((e) => e);
    expect(err.code).toBe('precondition_failed');
    expect(err.message).toMatch(new RegExp(`^proposal ${b}: lines 7–8 changed after the agent read them \\(journal entry j-`));
    expect(err.details).toMatchObject({ proposal_id: b, status: 'conflict', lines: { start_line: 7, end_line: 8 } });
    const status = await handle('proposal_status', { proposal_id: b }, AGENT, { workspace: root });
    expect(status.status).toBe('conflict');
    expect(String(status.conflict!.message)).toMatch(/^lines 7–8 changed after the agent read them/);
    // Each proposal's state and error are its own.
    const queue = await handle('review_list', {}, ME, { workspace: root });
    const byId = new Map(queue.proposals.map((p) => [p.id, p]));
    expect(byId.get(a)).toMatchObject({ status: 'applied', conflict: null });
    expect(byId.get(c)).toMatchObject({ status: 'pending', conflict: null });
    expect(byId.get(b)!.status).toBe('conflict');
  });

  it('a single line says "line N … read it"', async () => {
    const { root, replace } = await workspace();
    const a = await replace(10, 12, 'x');
    const b = await replace(12, 12, 'y');
    await approve(root, ME, a);
    expect((await approve(root, ME, b).catch((e) => e)).message).toContain('line 12 changed after the agent read it (');
  });
});

describe('an edited text is never lost', () => {
  it('an edit-then-approve that conflicts keeps the text with the proposal; approving with current applies it', async () => {
    const { root, path, replace } = await workspace();
    const id = await replace(12, 12, 'agent text');
    writeFileSync(path, ORIGINAL + 'appended elsewhere\n'); // outside Folio, away from line 12
    const err = await handle('review_approve', { id, content: 'my text' }, ME, { workspace: root }).catch((e) => e);
    expect(err.code).toBe('precondition_failed');
    expect(err.message).toContain('the file changed after the agent read it (not through Folio); if line 12 is unchanged, approve with current');
    expect(err.message).toContain('your edited text is kept');
    expect(err.details.edited_content).toBe('my text');
    const shown = await handle('review_show', { id }, ME, { workspace: root });
    expect(shown.proposal).toMatchObject({ status: 'conflict', edited: true, edited_content: 'my text', content: 'agent text' });
    const done = await handle('review_approve', { id, current: true }, ME, { workspace: root });
    expect(done.proposal).toMatchObject({ status: 'applied', edited: true, conflict: null });
    expect(readFileSync(path, 'utf8')).toBe(ORIGINAL.replace('line 12\n', 'my text\n') + 'appended elsewhere\n');
  });

  it('a conflict on its own lines keeps the text too, and current refuses to overwrite the changed lines', async () => {
    const { root, path, replace } = await workspace();
    const a = await replace(3, 4, 'x');
    const b = await replace(4, 4, 'agent text');
    await approve(root, ME, a);
    const err = await approve(root, ME, b, { content: 'my text' }).catch((e) => e);
    expect(err.details).toMatchObject({ status: 'conflict', edited_content: 'my text' });
    expect((await approve(root, ME, b, { current: true }).catch((e) => e)).code).toBe('precondition_failed');
    expect(showProposal(root, b).proposal).toMatchObject({ status: 'conflict' });
    expect(readFileSync(path, 'utf8')).toBe(ORIGINAL.replace('line 3\nline 4\n', 'x\n'));
  });
});
