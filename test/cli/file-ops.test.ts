/**
 * `folio rm` and `folio mv` as real child processes: a person's delete or move under
 * a version precondition, journaled in the workspace so `folio review undo` takes it
 * back; typed errors exit 1 (one JSON object with --json, one stderr line without),
 * usage errors exit 2, and a refused call changes nothing.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-cli-file-ops-');
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const folio = (args: string[], cwd: string, uid?: number) =>
  spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    cwd,
    env: { ...process.env, FOLIO_CACHE_DIR: tmp.path(uid === undefined ? 'cache' : `cache-${uid}`) },
    ...(uid !== undefined ? { uid, gid: uid } : {}),
  });
const json = (r: ReturnType<typeof folio>) => {
  expect(r.status, r.stderr + r.stdout).toBe(0);
  return JSON.parse(r.stdout);
};
/** The error a failed --json call printed, after checking it exited 1 with nothing on stderr. */
const errorOf = (r: ReturnType<typeof folio>) => {
  expect(r.status, r.stderr + r.stdout).toBe(1);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout).error;
};
const etagOf = (p: string, cwd: string, uid?: number) => json(folio(['info', p, '--json'], cwd, uid)).version.etag as string;

let n = 0;
function workspace(files: Record<string, string>): string {
  const root = tmp.path(`ws${++n}`);
  mkdirSync(root, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

describe('folio rm', () => {
  it('a dry run changes nothing; rm deletes under --if-match, journaled; review undo brings back bytes and mode', () => {
    const root = workspace({ 'notes.txt': 'one\ntwo\n' });
    const p = join(root, 'notes.txt');
    chmodSync(p, 0o640);
    const etag = etagOf('notes.txt', root);
    const dry = folio(['rm', 'notes.txt', '--if-match', etag, '--dry-run'], root);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('-two');
    expect(dry.stdout).toContain('dry run (nothing changed): would have deleted');
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\n');
    expect(existsSync(join(root, '.folio/review'))).toBe(false);

    const r = folio(['rm', 'notes.txt', '--if-match', etag], root);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`deleted ${p}`);
    expect(r.stdout).toMatch(/note: journaled as j-\w+: review undo takes it back/);
    expect(existsSync(p)).toBe(false);
    const hist = json(folio(['review', 'history', '--json'], root));
    expect(hist.entries).toMatchObject([{ file_op: 'delete', path: 'notes.txt', decided_by: { kind: 'human', name: 'cli' }, undone: false }]);

    expect(folio(['review', 'undo', 'notes.txt'], root).status).toBe(0);
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\n');
    expect(statSync(p).mode & 0o777).toBe(0o640);
    expect(folio(['review', 'redo', 'notes.txt'], root).status).toBe(0);
    expect(existsSync(p)).toBe(false);
  });

  it('--sha256 is a precondition too; --json prints one object with the journal id', () => {
    const root = workspace({ 'a.bin': 'bytes\0here' });
    const sha = createHash('sha256').update('bytes\0here').digest('hex');
    const r = json(folio(['rm', 'a.bin', '--sha256', sha, '--json'], root));
    expect(r).toMatchObject({ op: 'delete', applied: true, dry_run: false, version_after: null, preconditions: { checked: ['expected_sha256'] } });
    expect(r.version_before.sha256).toBe(sha);
    expect(r.journal_id).toMatch(/^j-/);
    expect(existsSync(join(root, 'a.bin'))).toBe(false);
  });

  it('a stale etag is precondition_failed with the current version; no precondition is precondition_required; the file stays', () => {
    const root = workspace({ 'a.txt': 'a\n' });
    const etag = etagOf('a.txt', root);
    writeFileSync(join(root, 'a.txt'), 'changed\n');
    const stale = errorOf(folio(['rm', 'a.txt', '--if-match', etag, '--json'], root));
    expect(stale).toMatchObject({ code: 'precondition_failed', failed: ['if_match'], current_version: { etag: etagOf('a.txt', root) } });
    const human = folio(['rm', 'a.txt', '--if-match', etag], root);
    expect(human.status).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^folio: precondition_failed: .*nothing was changed\n$/);
    expect(errorOf(folio(['rm', 'a.txt', '--json'], root)).code).toBe('precondition_required');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('changed\n');
    expect(json(folio(['review', 'history', '--json'], root)).entries).toEqual([]);
  });

  it('not_found for a missing file; usage errors exit 2', () => {
    const root = workspace({});
    expect(errorOf(folio(['rm', 'missing.txt', '--if-match', 'x', '--json'], root)).code).toBe('not_found');
    expect(folio(['rm'], root).status).toBe(2);
    expect(folio(['rm', 'a.txt', 'b.txt', '--if-match', 'x'], root).status).toBe(2);
    expect(folio(['rm', 'a.txt', '--if-match'], root).status).toBe(2);
    expect(folio(['rm', 'a.txt', '--force'], root).status).toBe(2);
  });
});

describe('folio mv', () => {
  it('moves under --if-match into a new folder, keeping bytes and inode; review undo by either name moves it back', () => {
    const root = workspace({ 'src/a.py': 'A = 1\n' });
    const from = join(root, 'src/a.py');
    const to = join(root, 'lib/deep/b.py');
    const ino = statSync(from).ino;
    const dry = folio(['mv', 'src/a.py', 'lib/deep/b.py', '--if-match', etagOf('src/a.py', root), '--dry-run'], root);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`rename from ${from}\nrename to ${to}\n`);
    expect(existsSync(join(root, 'lib'))).toBe(false);

    const r = json(folio(['mv', 'src/a.py', 'lib/deep/b.py', '--if-match', etagOf('src/a.py', root), '--json'], root));
    expect(r).toMatchObject({ op: 'move', path: from, to, applied: true });
    expect(r.version_after.etag).toBe(etagOf(to, root));
    expect(existsSync(from)).toBe(false);
    expect(readFileSync(to, 'utf8')).toBe('A = 1\n');
    expect(statSync(to).ino).toBe(ino);

    const undo = folio(['review', 'undo', 'lib/deep/b.py'], root);
    expect(undo.status, undo.stderr + undo.stdout).toBe(0);
    expect(readFileSync(from, 'utf8')).toBe('A = 1\n');
    expect(existsSync(to)).toBe(false);
    expect(folio(['review', 'redo', 'src/a.py'], root).status).toBe(0);
    expect(readFileSync(to, 'utf8')).toBe('A = 1\n');
    expect(existsSync(from)).toBe(false);
  });

  it('never replaces: an existing destination is precondition_failed destination_exists, both files untouched', () => {
    const root = workspace({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const err = errorOf(folio(['mv', 'a.txt', 'b.txt', '--if-match', etagOf('a.txt', root), '--json'], root));
    expect(err).toMatchObject({ code: 'precondition_failed', failed: ['destination_exists'], to: join(root, 'b.txt') });
    // A folder at the destination is not "move into it", as mv would: it is the name taken.
    mkdirSync(join(root, 'dir'));
    expect(errorOf(folio(['mv', 'a.txt', 'dir', '--if-match', etagOf('a.txt', root), '--json'], root)).failed).toEqual(['destination_exists']);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('b\n');
    expect(readdirSync(join(root, 'dir'))).toEqual([]);
  });

  it('a stale etag or --sha256 is precondition_failed; a missing source is not_found; usage errors exit 2', () => {
    const root = workspace({ 'a.txt': 'a\n' });
    const etag = etagOf('a.txt', root);
    writeFileSync(join(root, 'a.txt'), 'a2\n');
    expect(errorOf(folio(['mv', 'a.txt', 'c.txt', '--if-match', etag, '--json'], root))).toMatchObject({ code: 'precondition_failed', failed: ['if_match'] });
    const wrongSha = createHash('sha256').update('a\n').digest('hex');
    expect(errorOf(folio(['mv', 'a.txt', 'c.txt', '--sha256', wrongSha, '--json'], root))).toMatchObject({
      code: 'precondition_failed',
      failed: ['expected_sha256'],
    });
    expect(errorOf(folio(['mv', 'gone.txt', 'c.txt', '--if-match', etag, '--json'], root)).code).toBe('not_found');
    expect(errorOf(folio(['mv', 'a.txt', 'a.txt', '--if-match', etagOf('a.txt', root), '--json'], root)).code).toBe('invalid_input');
    expect(folio(['mv', 'a.txt', '--if-match', etag], root).status).toBe(2);
    expect(existsSync(join(root, 'c.txt'))).toBe(false);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a2\n');
  });

  it('a move out of --root is journaled with its absolute name, and undo from the root moves it back', () => {
    const root = workspace({ 'keep.txt': 'k\n' });
    const outside = tmp.path(`outside${n}/keep.txt`);
    const r = json(folio(['mv', 'keep.txt', outside, '--if-match', etagOf('keep.txt', root), '--json'], root));
    expect(r.journal_id).toMatch(/^j-/);
    const hist = json(folio(['review', 'history', '--json'], root));
    expect(hist.entries).toMatchObject([{ file_op: 'move', path: 'keep.txt', to: outside }]);
    expect(folio(['review', 'undo', '--id', r.journal_id], root).status).toBe(0);
    expect(readFileSync(join(root, 'keep.txt'), 'utf8')).toBe('k\n');
    expect(existsSync(outside)).toBe(false);
  });
});

describe('as a user the file system refuses', () => {
  it('rm of a file in a folder the user cannot write, and mv into one, are permission_denied and change nothing', () => {
    if (process.getuid?.() !== 0) return; // needs a second user: run the CLI as nobody
    chmodSync(tmp.dir, 0o755);
    const root = workspace({ 'locked/f.txt': 'f\n', 'mine/g.txt': 'g\n' });
    chmodSync(root, 0o755);
    chmodSync(join(root, 'locked'), 0o755);
    const mine = join(root, 'mine');
    chownSync(mine, 65534, 65534);
    chownSync(join(mine, 'g.txt'), 65534, 65534);
    const rm = errorOf(folio(['rm', '../locked/f.txt', '--if-match', etagOf('../locked/f.txt', mine, 65534), '--json'], mine, 65534));
    expect(rm.code).toBe('permission_denied');
    const mv = errorOf(folio(['mv', 'g.txt', '../locked/g.txt', '--if-match', etagOf('g.txt', mine, 65534), '--json'], mine, 65534));
    expect(mv.code).toBe('permission_denied');
    expect(readFileSync(join(root, 'locked/f.txt'), 'utf8')).toBe('f\n');
    expect(readFileSync(join(mine, 'g.txt'), 'utf8')).toBe('g\n');
    expect(readdirSync(join(root, 'locked'))).toEqual(['f.txt']);
  });
});
