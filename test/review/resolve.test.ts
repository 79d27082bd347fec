/**
 * A 3-way resolve: the agent's own lines changed after it read them, so its
 * proposal is a conflict; the person merges against the current file and approves
 * with their text and the version they merged against (if_match). The proposal
 * ends applied with the person's text; a version that moved on in the meantime is
 * precondition_failed, nothing is written and the merged text is kept.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { propose } from '../../src-main/review/index.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-resolve-');
afterAll(() => tmp.cleanup());
const AGENT = { kind: 'agent', name: 'claude' } as const;
const ME = { kind: 'human', name: 'ana' } as const;
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');

async function conflicted(name: string) {
  const root = tmp.path(name);
  mkdirSync(root, { recursive: true });
  const path = join(root, 'orders.py');
  writeFileSync(path, lines(20));
  const etag = (await read(path, { mode: 'head', lines: 1 })).version.etag;
  const id = (
    await propose(root, AGENT, {
      path,
      target: { kind: 'replace', start: 5, end: 6, units: 'lines' },
      content: 'agent 5\nagent 6\n',
      preconditions: { ifMatch: etag },
    })
  ).proposal_id;
  // The person changes line 5 first (journaled), then tries the agent's proposal: conflict.
  await handle('upsert', { path, target: { replace: { start: 5, end: 5 } }, content: 'mine 5\n', if_match: etag }, ME, { workspace: root });
  const err = await handle('review_approve', { id }, ME, { workspace: root }).catch((e) => e);
  expect(err.code).toBe('precondition_failed');
  const now = (await read(path, { mode: 'head', lines: 1 })).version.etag;
  return { root, path, id, now };
}

describe('resolve a conflict against the current file (3-way)', () => {
  it('applies the merged text to the lines named, on the version named; the proposal ends applied, edited', async () => {
    const { root, path, id, now } = await conflicted('ok');
    const r = await handle('review_approve', { id, content: 'mine 5 + agent 5\nagent 6\n', if_match: now, lines: { start: 5, end: 6 } }, ME, {
      workspace: root,
    });
    expect(r.proposal.status).toBe('applied');
    const want = lines(20).replace('line 5\nline 6\n', 'mine 5 + agent 5\nagent 6\n');
    expect(readFileSync(path, 'utf8')).toBe(want);
    const status = await handle('proposal_status', { proposal_id: id }, AGENT, { workspace: root });
    expect(status.status).toBe('applied');
    // Undo takes the resolve back like any approval.
    await handle('review_undo', {}, ME, { workspace: root });
    expect(readFileSync(path, 'utf8')).toBe(lines(20).replace('line 5\n', 'mine 5\n'));
  });

  it('a version that moved on is precondition_failed: nothing written, the merged text kept with the proposal', async () => {
    const { root, path, id, now } = await conflicted('stale');
    await handle('upsert', { path, target: { replace: { start: 15, end: 15 } }, content: 'later\n', if_match: now }, ME, { workspace: root });
    const before = readFileSync(path, 'utf8');
    const err = await handle('review_approve', { id, content: 'merged\n', if_match: now, lines: { start: 5, end: 6 } }, ME, { workspace: root }).catch(
      (e) => e,
    );
    expect(err.code).toBe('precondition_failed');
    expect(readFileSync(path, 'utf8')).toBe(before);
    const shown = await handle('review_show', { id }, ME, { workspace: root });
    expect(shown.proposal.status).toBe('conflict');
    expect(shown.proposal.edited).toBe(true);
  });

  it('if_match without content, or lines without if_match, is invalid_input', async () => {
    const { root, id, now } = await conflicted('bad');
    await expect(handle('review_approve', { id, if_match: now }, ME, { workspace: root })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(handle('review_approve', { id, content: 'x\n', current: true, lines: { start: 5, end: 6 } }, ME, { workspace: root })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });
});
