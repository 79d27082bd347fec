/**
 * Patches as agents write them (issue 27), through `folio mcp` with the real SDK
 * client (edit {patch}) and through `folio patch` (a real child process): a Codex
 * envelope that adds, updates, moves and deletes files is one group, applied at
 * once under auto (one undo takes it back) or proposed as one group under review
 * (approved together, a move after its file's edit); a patch whose last hunk fails
 * changes nothing, where Codex leaves the files before it changed; git's own diffs
 * (with a rename, an add and a delete) applied by Folio give what `git apply` gives.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetStores } from '../../src-main/review/index.ts';
import { BIN, connectStdio, okBody as ok, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-patch-');
const ws = tmp.path('ws');
const cacheDir = tmp.path('cache');
let auto: McpSession;
let review: McpSession;

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  [auto, review] = await Promise.all([
    connectStdio(ws, { cacheDir, clientName: 'patch-auto', flags: ['--review', 'auto'] }),
    connectStdio(ws, { cacheDir, clientName: 'patch-review' }),
  ]);
});
afterAll(async () => {
  await Promise.all([auto?.close(), review?.close()]);
  forgetStores();
  tmp.cleanup();
});

const folio = (args: string[], input?: string, cwd = ws) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd, input, env: { ...process.env, FOLIO_CACHE_DIR: cacheDir } });

const read = (p: string) => readFileSync(join(ws, p), 'utf8');
const put = (p: string, text: string) => {
  mkdirSync(join(ws, p, '..'), { recursive: true });
  writeFileSync(join(ws, p), text);
};

/** A tree of files under dir `d` (relative names), for the patch scenarios. */
function setUp(d: string): void {
  rmSync(join(ws, d), { recursive: true, force: true });
  put(`${d}/modify.txt`, 'line1\nline2\n');
  put(`${d}/delete.txt`, 'obsolete\n');
  put(`${d}/old/name.txt`, 'def run():\n    args = parse()\n    dispatch(args)\n');
  put(`${d}/old/other.txt`, 'unrelated\n');
  // Agents may not create folders here (the default policy): the patch's new names go into folders that exist.
  mkdirSync(join(ws, d, 'nested'), { recursive: true });
  mkdirSync(join(ws, d, 'renamed/dir'), { recursive: true });
}

const patchOf = (d: string) =>
  [
    '*** Begin Patch',
    `*** Add File: ${d}/nested/new.txt`,
    '+created',
    `*** Update File: ${d}/modify.txt`,
    '@@',
    '-line2',
    '+changed',
    `*** Update File: ${d}/old/name.txt`,
    `*** Move to: ${d}/renamed/dir/name.txt`,
    '@@ def run():',
    '-    args = parse()',
    '-    dispatch(args)',
    '+    cli = parse()',
    '+    dispatch(cli)',
    `*** Delete File: ${d}/delete.txt`,
    '*** End Patch',
  ].join('\n');

function expectPatched(d: string): void {
  expect(read(`${d}/nested/new.txt`)).toBe('created\n');
  expect(read(`${d}/modify.txt`)).toBe('line1\nchanged\n');
  expect(read(`${d}/renamed/dir/name.txt`)).toBe('def run():\n    cli = parse()\n    dispatch(cli)\n');
  expect(existsSync(join(ws, d, 'old/name.txt'))).toBe(false);
  expect(existsSync(join(ws, d, 'delete.txt'))).toBe(false);
  expect(read(`${d}/old/other.txt`)).toBe('unrelated\n');
}

function expectUntouched(d: string): void {
  expect(read(`${d}/modify.txt`)).toBe('line1\nline2\n');
  expect(read(`${d}/delete.txt`)).toBe('obsolete\n');
  expect(read(`${d}/old/name.txt`)).toBe('def run():\n    args = parse()\n    dispatch(args)\n');
  expect(existsSync(join(ws, d, 'nested/new.txt'))).toBe(false);
  expect(existsSync(join(ws, d, 'renamed/dir/name.txt'))).toBe(false);
}

describe('a Codex envelope over MCP (edit {patch})', () => {
  it('auto: a Delete File the patch shows no text of needs its etag (path + if_match); with it, everything applies as one group', async () => {
    setUp('a');
    const refused = await auto.call('edit', { patch: patchOf('a') });
    expect(refused.isError).toBe(true);
    expect(refused.body.error).toMatchObject({ code: 'precondition_required', path: 'a/delete.txt' });
    expectUntouched('a');

    const etag = ok(await auto.call('file_info', { path: 'a/delete.txt' })).version.etag;
    const done = ok(await auto.call('edit', { patch: patchOf('a'), path: 'a/delete.txt', if_match: etag }));
    expect(done).toMatchObject({ applied: true, policy: 'auto', group_id: expect.any(String) });
    expect(done.files).toHaveLength(3);
    expect(done.file_ops.map((o: { op: string }) => o.op)).toEqual(['move', 'delete']);
    expectPatched('a');

    // One undo takes the whole group back, the moved file to its old name.
    const undone = folio(['review', 'undo', '--root', ws, '--include-others']);
    expect(undone.status, undone.stderr).toBe(0);
    expectUntouched('a');
  });

  it('review: the patch is one proposal group; approving any of it applies all, the move after its edit', async () => {
    setUp('r');
    const proposed = ok(await review.call('edit', { patch: patchOf('r') }));
    expect(proposed).toMatchObject({ applied: false, policy: 'review', group_id: expect.any(String) });
    const ids = [...proposed.files, ...proposed.file_ops].map((p: { proposal_id: string }) => p.proposal_id);
    expect(ids).toHaveLength(5);
    expectUntouched('r');
    // The delete's preview shows the lines that go.
    expect(proposed.file_ops.find((o: { op: string }) => o.op === 'delete').preview).toContain('-obsolete');

    const approved = folio(['review', 'approve', ids[4]!, '--root', ws, '--json']);
    expect(approved.status, approved.stderr).toBe(0);
    expectPatched('r');
    for (const id of ids) expect(ok(await review.call('proposal_status', { proposal_id: id })).status).toBe('applied');
  });

  it('review: a file of the group changed before the approval: the whole group conflicts, nothing is written', async () => {
    setUp('c');
    const proposed = ok(await review.call('edit', { patch: patchOf('c') }));
    put('c/delete.txt', 'someone wrote here\n');
    const approved = folio(['review', 'approve', proposed.files[0].proposal_id, '--root', ws, '--json']);
    expect(approved.status).not.toBe(0);
    expect(read('c/modify.txt')).toBe('line1\nline2\n');
    expect(read('c/delete.txt')).toBe('someone wrote here\n');
    expect(existsSync(join(ws, 'c/renamed/dir/name.txt'))).toBe(false);
    expect(ok(await review.call('proposal_status', { proposal_id: proposed.files[0].proposal_id })).status).toBe('conflict');
  });

  it('a hunk that fails in the last file changes nothing (Codex leaves the files before it changed)', async () => {
    setUp('f');
    const bad = patchOf('f').replace('-    dispatch(args)', '-    dispatch(argv)');
    const r = await auto.call('edit', { patch: bad });
    expect(r.isError).toBe(true);
    expect(r.body.error).toMatchObject({ code: 'no_match', path: 'f/old/name.txt', hunk: 1 });
    expectUntouched('f');
  });

  it('dry_run previews every change and writes nothing', async () => {
    setUp('d');
    const etag = ok(await auto.call('file_info', { path: 'd/delete.txt' })).version.etag;
    const r = ok(await auto.call('edit', { patch: patchOf('d'), path: 'd/delete.txt', if_match: etag, dry_run: true }));
    expect(r.applied).toBe(false);
    expect(r.files.map((f: { preview: string }) => f.preview).join('\n')).toContain('+changed');
    expect(r.file_ops.map((o: { preview: string }) => o.preview).join('\n')).toMatch(/rename to .*renamed\/dir\/name.txt/);
    expectUntouched('d');
  });

  it('a patch quoting a secret is refused as redacted, found or not, and the file is unchanged', async () => {
    const text = '# settings\npassword = "hunter2-correct-horse"\nregion = eu-west-1\n';
    put('s/settings.conf', text);
    const r = await auto.call('edit', {
      patch: 's/settings.conf\n<<<<<<< SEARCH\npassword = "hunter2-correct-horse"\n=======\npassword = "x"\n>>>>>>> REPLACE\n',
    });
    expect(r.isError).toBe(true);
    expect(r.body.error.code).toBe('redacted');
    expect(JSON.stringify(r.body)).not.toContain('hunter2');
    expect(read('s/settings.conf')).toBe(text);
  });

  it('SEARCH/REPLACE blocks with lost indentation apply loosely, re-indented, and the answer says so', async () => {
    put('l/app.py', 'class A:\n    def f(self):\n        return 1\n');
    const r = ok(
      await auto.call('edit', {
        patch: 'l/app.py\n```python\n<<<<<<< SEARCH\ndef f(self):\n    return 1\n=======\ndef f(self):\n    return 2\n>>>>>>> REPLACE\n```\n',
      }),
    );
    expect(r.applied).toBe(true);
    expect(read('l/app.py')).toBe('class A:\n    def f(self):\n        return 2\n');
    expect(r.notes.join('\n')).toMatch(/hunk 1 of l\/app.py matched lines 2-3 loosely \(differs: indentation\)/);
  });
});

describe('folio patch against git apply', () => {
  it("git's diff of a tree (a rename with edits, an add, a delete, a CRLF file) applied by Folio gives git's result", () => {
    const g = join(ws, 'g');
    rmSync(g, { recursive: true, force: true });
    mkdirSync(g, { recursive: true });
    const git = (...args: string[]) => {
      const r = spawnSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: g, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout;
    };
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i}`);
    writeFileSync(join(g, 'keep.txt'), lines.join('\n') + '\n');
    writeFileSync(join(g, 'win.txt'), 'one\r\ntwo\r\nthree\r\n');
    writeFileSync(join(g, 'gone.txt'), 'bye\n');
    writeFileSync(join(g, 'from.txt'), lines.slice(0, 20).join('\n') + '\n');
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'base');
    // The change: edits at both ends of keep.txt, a CRLF edit, a delete, a rename with an edit, a new file.
    writeFileSync(join(g, 'keep.txt'), ['first', ...lines.slice(1, 38), 'changed', 'line 39'].join('\n') + '\n');
    writeFileSync(join(g, 'win.txt'), 'one\r\nTWO\r\nthree\r\n');
    git('rm', '-q', 'gone.txt');
    git('mv', 'from.txt', 'to.txt');
    writeFileSync(join(g, 'to.txt'), [...lines.slice(0, 19), 'tail'].join('\n') + '\n');
    writeFileSync(join(g, 'new.txt'), 'fresh\n');
    git('add', '-A');
    const diff = git('diff', '--cached', '-M');
    expect(diff).toContain('rename from from.txt');
    const expected = Object.fromEntries(['keep.txt', 'win.txt', 'to.txt', 'new.txt'].map((f) => [f, readFileSync(join(g, f), 'utf8')]));
    git('reset', '-q', '--hard');
    expect(readFileSync(join(g, 'win.txt'), 'utf8')).toBe('one\r\ntwo\r\nthree\r\n');

    const r = folio(['patch', '--json', '--root', ws], diff, g);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    for (const [f, text] of Object.entries(expected)) expect(readFileSync(join(g, f), 'utf8'), f).toBe(text);
    expect(existsSync(join(g, 'gone.txt'))).toBe(false);
    expect(existsSync(join(g, 'from.txt'))).toBe(false);
    // git agrees that the tree is its change, exactly.
    git('add', '-A');
    expect(git('diff', '--cached', '-M')).toBe(diff);
  });

  it('a rename that shows no lines does not read the file: a 65 MiB file (over the 64 MiB a patch reads) is renamed', () => {
    const big = Buffer.alloc(65 * 1024 * 1024, 'log line\n');
    put('big/moved.log', '');
    writeFileSync(join(ws, 'big/moved.log'), big);
    const git = 'diff --git a/big/moved.log b/big/renamed.log\nsimilarity index 100%\nrename from big/moved.log\nrename to big/renamed.log\n';
    const m = folio(['patch', '--json'], git);
    expect(m.status, m.stdout + m.stderr).toBe(0);
    expect(existsSync(join(ws, 'big/moved.log'))).toBe(false);
    expect(readFileSync(join(ws, 'big/renamed.log')).equals(big)).toBe(true);
    rmSync(join(ws, 'big'), { recursive: true, force: true });
  });

  it('a stale unified diff fails with the hunk named, and a bad patch is invalid_input; neither writes', () => {
    put('u/a.txt', 'alpha\nbeta\n');
    const stale = folio(['patch', '--json'], '--- a/u/a.txt\n+++ b/u/a.txt\n@@ -1,2 +1,2 @@\n alpha\n-gamma\n+delta\n');
    expect(stale.status).toBe(1);
    expect(JSON.parse(stale.stdout).error).toMatchObject({ code: 'no_match', hunk: 1 });
    const junk = folio(['patch', '--json'], 'please change alpha to beta');
    expect(JSON.parse(junk.stdout).error.code).toBe('invalid_input');
    expect(read('u/a.txt')).toBe('alpha\nbeta\n');
  });
});
