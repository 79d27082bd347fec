/**
 * `folio review approve|reject ID --hunks …` and the batch forms `--path` /
 * `--actor`, as real child processes of bin/folio.mjs (the built dist/cli.mjs),
 * on proposals made by the review layer in this process. Hunks are 1-based on the
 * CLI as in proposal_status and the table.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { propose } from '../../src-main/review/index.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-cli-review-');
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const folio = (args: string[], cwd = process.cwd()) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd, env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') } });
const json = (r: ReturnType<typeof folio>) => {
  expect(r.status, r.stderr + r.stdout).toBe(0);
  return JSON.parse(r.stdout);
};
const AGENT = { kind: 'agent', name: 'claude' } as const;
const OTHER = { kind: 'agent', name: 'codex' } as const;
const TEXT = Array.from({ length: 12 }, (_, i) => `line ${i + 1}\n`).join('');
let n = 0;

async function workspace() {
  const root = tmp.path(`ws${++n}`);
  mkdirSync(root, { recursive: true });
  const p = join(root, 'notes.txt');
  writeFileSync(p, TEXT);
  const etag = (await read(p, { mode: 'head', lines: 1 })).version.etag;
  const replace = async (lines: number[], actor: typeof AGENT | typeof OTHER = AGENT) => {
    const edits = lines.map((l) => ({ target: { kind: 'replace' as const, start: l, end: l, units: 'lines' as const }, content: `LINE ${l}` }));
    return (
      await propose(root, actor, {
        path: p,
        target: edits[0]!.target,
        content: edits[0]!.content,
        ...(edits.length > 1 ? { edits } : {}),
        preconditions: { ifMatch: etag },
      })
    ).proposal_id;
  };
  return { root, p, replace };
}

const upper = (...lines: number[]) => lines.reduce((t, l) => t.replace(`line ${l}\n`, `LINE ${l}\n`), TEXT);

describe('folio review … --hunks', () => {
  it('show numbers the hunks from 1; approve --hunks 1,3 writes those; reject --hunks 2 --reason decides the proposal', async () => {
    const { root, p, replace } = await workspace();
    const id = await replace([2, 5, 9]);
    const show = folio(['review', 'show', id, '--root', root]);
    expect(show.stdout).toContain('hunk 1: line 2  pending\nhunk 2: line 5  pending\nhunk 3: line 9  pending');
    const ok = folio(['review', 'approve', id, '--hunks', '1,3', '--root', root]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`approved hunks 1,3 of ${id}: applied to notes.txt`);
    expect(ok.stdout).toContain('the rest stay pending  hunks: 1 applied, 2 pending, 3 applied');
    expect(readFileSync(p, 'utf8')).toBe(upper(2, 9));
    const rej = json(folio(['review', 'reject', id, '--hunks', '2', '--reason', 'keep line 5', '--root', root, '--json']));
    expect(rej.proposal).toMatchObject({
      status: 'applied',
      reason: 'keep line 5',
      hunks: [
        { index: 1, status: 'applied' },
        { index: 2, status: 'rejected' },
        { index: 3, status: 'applied' },
      ],
    });
    // The agent sees the same numbers.
    const status = await handle('proposal_status', { proposal_id: id }, AGENT, { workspace: root });
    expect(status.hunks).toEqual(rej.proposal.hunks);
    expect(readFileSync(p, 'utf8')).toBe(upper(2, 9));
  });

  it('a hunk that is not a number from 1 is a usage error (exit 2); one the proposal lacks is invalid_input (exit 1)', async () => {
    const { root, replace } = await workspace();
    const id = await replace([2, 5]);
    for (const bad of ['0', 'a', '1,,2', '-1']) expect(folio(['review', 'approve', id, `--hunks=${bad}`, '--root', root]).status, bad).toBe(2);
    const out = folio(['review', 'approve', id, '--hunks', '3', '--root', root, '--json']);
    expect(out.status).toBe(1);
    expect(JSON.parse(out.stdout).error).toMatchObject({ code: 'invalid_input', hunks: 2 });
  });
});

describe('folio review approve --current', () => {
  it('a conflicted edit-then-approve keeps the text; approve --current applies it to the current file', async () => {
    const { root, p, replace } = await workspace();
    const id = await replace([4]);
    writeFileSync(p, TEXT + 'appended elsewhere\n');
    const mine = join(root, 'mine.txt');
    writeFileSync(mine, 'my line 4\n');
    const stale = folio(['review', 'approve', id, '--content-file', mine, '--root', root]);
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain('the file changed after the agent read it (not through Folio); if line 4 is unchanged, approve with current');
    expect(stale.stderr).toContain('your edited text is kept');
    const ok = folio(['review', 'approve', id, '--current', '--root', root]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(readFileSync(p, 'utf8')).toBe(TEXT.replace('line 4\n', 'my line 4\n') + 'appended elsewhere\n');
  });
});

describe('folio review approve|reject --path / --actor', () => {
  it('approve --path applies every pending proposal of the file in one write; review undo takes the batch back whole', async () => {
    const { root, p, replace } = await workspace();
    const ids = [await replace([1]), await replace([4, 6]), await replace([11], OTHER)];
    const out = folio(['review', 'approve', '--path', p, '--root', root]);
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^approved 3 proposal\(s\) in 1 write\(s\): notes\.txt \(journal j-\w+\); group g-\w+: review undo takes it back whole\n/);
    expect(readFileSync(p, 'utf8')).toBe(upper(1, 4, 6, 11));
    const hist = json(folio(['review', 'history', '--root', root, '--json']));
    expect(hist.entries).toMatchObject([{ proposal_id: null, proposal_ids: ids }]);
    expect(folio(['review', 'undo', '--root', root]).status).toBe(0);
    expect(readFileSync(p, 'utf8')).toBe(TEXT);
    expect(folio(['review', 'redo', '--root', root]).status).toBe(0);
    expect(readFileSync(p, 'utf8')).toBe(upper(1, 4, 6, 11));
  });

  it("approve --actor takes one agent's proposals; reject --actor --reason the other's; conflicts are listed in plain words", async () => {
    const { root, p, replace } = await workspace();
    const mine = [await replace([3]), await replace([3, 8])];
    const theirs = await replace([10], OTHER);
    const r = json(folio(['review', 'approve', '--actor', 'claude', '--root', root, '--json']));
    expect(r.applied.map((x: { id: string }) => x.id)).toEqual([mine[0]]);
    expect(r.conflicts).toMatchObject([{ id: mine[1], status: 'conflict' }]);
    // Its first edit (line 3) is the lines the older proposal changed.
    expect(r.conflicts[0].conflict.message).toMatch(/^line 3 changed after the agent read it \(journal entry j-\w+\)$/);
    const human = folio(['review', 'reject', '--actor', 'agent:codex', '--reason', 'not now', '--root', root]);
    expect(human.stdout).toBe(`rejected 1 proposal(s)\n  rejected  ${theirs}  notes.txt  edit, 1 hunk, line 10: not now\n`);
    expect(readFileSync(p, 'utf8')).toBe(upper(3));
  });

  it('an ID with --path, or neither, is a usage error; --hunks with a batch too', async () => {
    const { root, p, replace } = await workspace();
    const id = await replace([1]);
    expect(folio(['review', 'approve', id, '--path', p, '--root', root]).status).toBe(2);
    expect(folio(['review', 'reject', '--root', root]).status).toBe(2);
    expect(folio(['review', 'approve', '--path', p, '--hunks', '1', '--root', root]).status).toBe(2);
    expect(json(folio(['review', 'list', '--root', root, '--json'])).proposals).toMatchObject([{ id, status: 'pending' }]);
  });
});
