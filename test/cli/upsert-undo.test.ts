/** A person's `folio upsert` is journaled under the CLI's actor: `folio review undo FILE` takes it back byte-exact. Real child processes. */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-upsert-undo-');
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

function workspace(name: string, file: string, bytes: Buffer): { root: string; p: string } {
  const root = tmp.path(name);
  mkdirSync(root, { recursive: true });
  const p = join(root, file);
  writeFileSync(p, bytes);
  return { root, p };
}

describe('folio upsert then folio review undo', () => {
  it("undoes a person's CLI edit byte-exact, journaled as decided by human:cli; a dry run is not journaled", () => {
    const before = Buffer.from('one\ntwo\nthree\n');
    const { root, p } = workspace('lf', 'notes.txt', before);
    const etag = json(folio(['info', 'notes.txt', '--json'], root)).version.etag;
    const dry = json(folio(['upsert', 'notes.txt', '--replace', '2-2', '--content', 'TWO', '--if-match', etag, '--dry-run', '--json'], root));
    expect(dry.applied).toBe(false);
    const nothing = folio(['review', 'undo', 'notes.txt', '--json'], root);
    expect(nothing.status).toBe(1);
    expect(JSON.parse(nothing.stdout).error.code).toBe('not_found');

    const edit = folio(['upsert', 'notes.txt', '--replace', '2-2', '--content', 'TWO', '--if-match', etag], root);
    expect(edit.status, edit.stderr).toBe(0);
    expect(edit.stdout).toMatch(/note: journaled as j-\w+: review undo takes it back/);
    expect(readFileSync(p, 'utf8')).toBe('one\nTWO\nthree\n');
    const hist = json(folio(['review', 'history', 'notes.txt', '--json'], root));
    expect(hist.entries).toMatchObject([
      { proposal_id: null, path: 'notes.txt', actor: { kind: 'human', name: 'cli' }, decided_by: { kind: 'human', name: 'cli' }, undone: false },
    ]);

    const undo = folio(['review', 'undo', 'notes.txt'], root);
    expect(undo.status, undo.stderr + undo.stdout).toBe(0);
    expect(readFileSync(p).equals(before)).toBe(true);
  });

  it('a CRLF file comes back byte-exact; --root names the workspace when run from elsewhere', () => {
    const before = Buffer.from('alpha\r\nbeta\r\ngamma\r\n');
    const { root, p } = workspace('crlf', 'win.txt', before);
    const etag = json(folio(['info', p, '--json'], tmp.dir)).version.etag;
    // From another directory: --root names the workspace whose journal records it, as for folio review.
    expect(folio(['upsert', p, '--root', root, '--replace', '2-3', '--content', 'B\nC\nD', '--if-match', etag], tmp.dir).status).toBe(0);
    expect(readFileSync(p, 'latin1')).toBe('alpha\r\nB\r\nC\r\nD\r\n');
    expect(folio(['review', 'undo', p, '--root', root], tmp.dir).status).toBe(0);
    expect(readFileSync(p).equals(before)).toBe(true);
  });

  it('where the workspace state cannot be written, the edit still applies and says it was not journaled', () => {
    if (process.getuid?.() !== 0) return; // needs a second user: run the CLI as nobody in a directory it cannot write
    chmodSync(tmp.dir, 0o755);
    // The file's own directory is the person's (the engine's lock lives next to the file); the current directory is not.
    const { root, p } = workspace('readonly/data', 'x.txt', Buffer.from('x\n'));
    const cwd = tmp.path('readonly');
    chmodSync(cwd, 0o755);
    chownSync(root, 65534, 65534);
    chownSync(p, 65534, 65534);
    const etag = json(folio(['info', 'data/x.txt', '--json'], cwd, 65534)).version.etag;
    const r = json(folio(['upsert', 'data/x.txt', '--replace', '1-1', '--content', 'y', '--if-match', etag, '--json'], cwd, 65534));
    expect(r.applied).toBe(true);
    expect(r.notes.join(' ')).toMatch(/not journaled: .*\.folio.* is not writable \(EACCES\)/);
    expect(readFileSync(p, 'utf8')).toBe('y\n');
  });
});
