import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const folio = (args: string[], input?: string, uid?: number) =>
  spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    input,
    cwd: tmp.dir, // the edits are journaled in the current directory's workspace: keep that out of the checkout
    env: { ...process.env, FOLIO_CACHE_DIR: tmp.path(uid === undefined ? 'cache' : `cache-${uid}`) },
    ...(uid !== undefined ? { uid, gid: uid } : {}),
  });
const etagOf = (p: string) => JSON.parse(folio(['read', p, '--head', '1', '--json']).stdout).version.etag as string;

describe('folio upsert', () => {
  it('replaces lines under --if-match, prints the diff, and --json gives version_after', () => {
    const p = tmp.path('a.txt');
    writeFileSync(p, 'one\ntwo\nthree\n');
    const r = folio(['upsert', p, '--replace', '2-2', '--content', 'TWO', '--if-match', etagOf(p)]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('-two\n+TWO\n');
    expect(readFileSync(p, 'utf8')).toBe('one\nTWO\nthree\n');
    const j = JSON.parse(folio(['upsert', p, '--insert-at', '4', '--content-stdin', '--if-match', etagOf(p), '--json'], 'four\n').stdout);
    expect(j).toMatchObject({ applied: true, range_after: { start_line: 4, end_line: 4 } });
    expect(j.version_after.etag).toBe(etagOf(p));
    expect(readFileSync(p, 'utf8')).toBe('one\nTWO\nthree\nfour\n');
  });

  it('--anchors from a --hashlines read, --delete, --dry-run, --content-file, --bytes', () => {
    const p = tmp.path('b.txt');
    writeFileSync(p, 'a\nb\nc\n');
    const anchors = (JSON.parse(folio(['read', p, '--lines', '2-3', '--hashlines', '--json']).stdout).content as string)
      .split('\n')
      .filter(Boolean)
      .map((l) => l.slice(0, l.indexOf('|')))
      .join(',');
    expect(folio(['upsert', p, '--delete', '2-3', '--anchors', anchors, '--dry-run']).status).toBe(0);
    expect(readFileSync(p, 'utf8')).toBe('a\nb\nc\n');
    expect(folio(['upsert', p, '--delete', '2-3', '--anchors', anchors]).status).toBe(0);
    expect(readFileSync(p, 'utf8')).toBe('a\n');
    const f = tmp.path('content.txt');
    writeFileSync(f, 'from a file\n');
    expect(folio(['upsert', p, '--append', '--content-file', f, '--if-match', etagOf(p)]).status).toBe(0);
    expect(folio(['upsert', p, '--bytes', '--replace', '0-1', '--content', 'A', '--if-match', etagOf(p)]).status).toBe(0);
    expect(readFileSync(p, 'utf8')).toBe('A\nfrom a file\n');
  });

  it('permission_denied when the user may read the file but not write it, and the file is untouched', () => {
    if (process.getuid?.() !== 0) return; // needs a second user: run the CLI as nobody
    chmodSync(tmp.dir, 0o755);
    const dir = tmp.path('locked');
    mkdirSync(dir, { mode: 0o755 });
    const p = `${dir}/d.txt`;
    writeFileSync(p, 'x\n', { mode: 0o644 });
    const etag = JSON.parse(folio(['read', p, '--head', '1', '--json'], undefined, 65534).stdout).version.etag;
    const r = folio(['upsert', p, '--replace', '1-1', '--content', 'y', '--if-match', etag, '--json'], undefined, 65534);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe('permission_denied');
    expect(readFileSync(p, 'utf8')).toBe('x\n');
  });

  it('typed errors exit 1 (precondition_required, precondition_failed with a read request); usage errors exit 2', () => {
    const p = tmp.path('c.txt');
    writeFileSync(p, 'x\n');
    const none = folio(['upsert', p, '--append', '--content', 'y', '--json']);
    expect(none.status).toBe(1);
    expect(JSON.parse(none.stdout).error.code).toBe('precondition_required');
    const stale = folio(['upsert', p, '--replace', '1-1', '--content', 'y', '--if-match', 'stale', '--json']);
    expect(stale.status).toBe(1);
    expect(JSON.parse(stale.stdout).error).toMatchObject({ code: 'precondition_failed', read: { ranges: [{ start: 1, end: 1 }], hashlines: true } });
    expect(folio(['upsert', p, '--append', '--replace', '1-1', '--content', 'y']).status).toBe(2);
    expect(folio(['upsert', p, '--append']).status).toBe(2);
    expect(folio(['upsert', p, '--replace', 'one-two', '--content', 'y']).status).toBe(2);
    expect(readFileSync(p, 'utf8')).toBe('x\n');
  });
});
