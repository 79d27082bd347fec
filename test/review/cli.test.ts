/** `folio review …` as a child process of bin/folio.mjs, on state made by the review layer in this process. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { read } from '../../src-main/engine/read/read.ts';
import { propose } from '../../src-main/review/index.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-review-cli-');
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const folio = (args: string[], cwd = process.cwd()) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd, env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') } });
const AGENT = { kind: 'agent', name: 'claude' } as const;

async function workspace(name: string, text: string) {
  const root = tmp.path(name);
  mkdirSync(root, { recursive: true });
  const p = join(root, 'notes.txt');
  writeFileSync(p, text);
  const pending = async (line: number, content: string) =>
    (
      await propose(root, AGENT, {
        path: p,
        target: { kind: 'replace', start: line, end: line, units: 'lines' },
        content,
        preconditions: { ifMatch: (await read(p, { mode: 'head', lines: 1 })).version.etag },
      })
    ).proposal_id;
  return { root, p, pending };
}

describe('folio review', () => {
  it('list (--json gives {proposals}), show, approve, history, undo and redo, with --root', async () => {
    const { root, p, pending } = await workspace('a', 'one\ntwo\n');
    const id = await pending(2, 'TWO');
    const list = folio(['review', 'list', '--root', root, '--json']);
    expect(list.status, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).proposals).toMatchObject([{ id, status: 'pending', path: 'notes.txt', actor: AGENT }]);
    expect(folio(['review', 'list', '--root', root]).stdout).toContain(`${id}  pending   notes.txt  edit, 1 hunk, line 2  by agent:claude`);
    const show = folio(['review', 'show', id, '--root', root]);
    expect(show.stdout).toContain('-two\n+TWO');
    expect(JSON.parse(folio(['review', 'show', id, '--root', root, '--json']).stdout).proposal.content).toBe('TWO');
    const ok = folio(['review', 'approve', id, '--root', root]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`approved ${id}`);
    expect(readFileSync(p, 'utf8')).toBe('one\nTWO\n');
    const hist = JSON.parse(folio(['review', 'history', 'notes.txt', '--json'], root).stdout);
    expect(hist.entries).toMatchObject([{ proposal_id: id, decided_by: { kind: 'human', name: 'cli' }, undone: false }]);
    // the current directory is the default root; FILE is relative to it
    expect(folio(['review', 'undo', 'notes.txt'], root).status).toBe(0);
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\n');
    const redo = JSON.parse(folio(['review', 'redo', '--json'], root).stdout);
    expect(redo).toMatchObject({ action: 'redo', entry: { undone: false } });
    expect(readFileSync(p, 'utf8')).toBe('one\nTWO\n');
    expect(folio(['review', 'history', '--root', root]).stdout).toMatch(/^#1 {2}j-\w+ {2}notes\.txt {2}lines 2-2 {2}decided by human:cli/);
  });

  it('reject --reason, approve --content-file (edit-then-approve), list --status', async () => {
    const { root, p, pending } = await workspace('b', 'a\nb\n');
    const r1 = await pending(1, 'A');
    const rej = JSON.parse(folio(['review', 'reject', r1, '--reason', 'not wanted', '--root', root, '--json']).stdout);
    expect(rej.proposal).toMatchObject({ status: 'rejected', reason: 'not wanted' });
    const r2 = await pending(2, 'B from agent');
    const f = tmp.path('mine.txt');
    writeFileSync(f, 'B from me\n');
    expect(folio(['review', 'approve', r2, '--content-file', f, '--root', root]).status).toBe(0);
    expect(readFileSync(p, 'utf8')).toBe('a\nB from me\n');
    const applied = JSON.parse(folio(['review', 'list', '--status', 'applied', '--root', root, '--json']).stdout).proposals;
    expect(applied).toMatchObject([{ id: r2, edited: true }]);
  });

  it('typed errors exit 1 (stale approve is precondition_failed with details; unknown id; nothing to undo), usage errors exit 2', async () => {
    const { root, p, pending } = await workspace('c', 'x\n');
    const id = await pending(1, 'X');
    writeFileSync(p, 'changed\n');
    const stale = folio(['review', 'approve', id, '--root', root, '--json']);
    expect(stale.status).toBe(1);
    expect(JSON.parse(stale.stdout).error).toMatchObject({ code: 'precondition_failed', proposal_id: id, status: 'conflict', failed: ['if_match'] });
    expect(readFileSync(p, 'utf8')).toBe('changed\n');
    expect(JSON.parse(folio(['review', 'show', id, '--root', root, '--json']).stdout).proposal.status).toBe('conflict');
    const again = folio(['review', 'approve', id, '--root', root]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('conflict: proposal');
    expect(folio(['review', 'show', 'p-000000000000', '--root', root]).status).toBe(1);
    expect(JSON.parse(folio(['review', 'undo', '--root', root, '--json']).stdout).error.code).toBe('not_found');
    expect(folio(['review', 'list', '--status', 'bogus', '--root', root]).status).toBe(2);
    expect(folio(['review', 'approve', '--root', root]).status).toBe(2);
    expect(folio(['review', 'approve', id, '--content-file', tmp.path('missing'), '--root', root]).status).toBe(2);
  });
});
