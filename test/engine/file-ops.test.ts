/**
 * deleteFile / moveFile / restoreFile on real files: preconditions required and
 * checked, a move never replaces a file, dry runs write nothing, checked paths
 * refuse a symlink or hard link swapped in, and journaled deletes are capped.
 */
import { chmodSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { forgetIndexes } from '../../src-main/engine/index/store.ts';
import { fileInfo } from '../../src-main/engine/read/file-info.ts';
import { deleteFile, moveFile, restoreFile, type FileOpPlan } from '../../src-main/engine/write/file-ops.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

// Its own index cache: one test reads a file back from the persisted index.
const tmp = engineTempDir();
let n = 0;
let dir = '';
beforeEach(() => {
  dir = tmp.path(`d${++n}`);
  mkdirSync(dir, { recursive: true });
});
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const etagOf = async (p: string) => (await fileInfo(p)).version.etag;
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: 'no error', message: '', details: {} as Record<string, unknown> }),
    (e: { code: string; message: string; details: Record<string, unknown> }) => e,
  );
/** The names in `dir` a person would see (not Folio's lock litter). */
const names = (d = dir) => readdirSync(d).sort();

describe('deleteFile', () => {
  it('needs a precondition, and deletes only the version it names', async () => {
    const p = file('a.txt', 'one\ntwo\n');
    expect((await errorOf(deleteFile(p, { preconditions: {} }))).code).toBe('precondition_required');
    const stale = await errorOf(deleteFile(p, { preconditions: { ifMatch: 'nope' } }));
    expect(stale).toMatchObject({ code: 'precondition_failed', details: { failed: ['if_match'], current_version: { etag: await etagOf(p) } } });
    expect((await errorOf(deleteFile(p, { preconditions: { expectedSha256: '0'.repeat(64) } }))).code).toBe('precondition_failed');
    expect(existsSync(p)).toBe(true);
    const r = await deleteFile(p, { preconditions: { ifMatch: await etagOf(p) } });
    expect(r).toMatchObject({ op: 'delete', path: p, applied: true, dry_run: false, version_after: null, preconditions: { checked: ['if_match'] } });
    expect(r.preview).toContain('-two');
    expect(names()).toEqual([]);
  });

  it('a dry run checks and previews, and writes nothing', async () => {
    const p = file('a.txt', 'keep me\n');
    const before = statSync(p);
    const r = await deleteFile(p, { preconditions: { ifMatch: await etagOf(p) }, dryRun: true });
    expect(r).toMatchObject({ applied: false, dry_run: true });
    expect(r.preview).toContain('-keep me');
    expect(readFileSync(p, 'utf8')).toBe('keep me\n');
    expect(statSync(p).ino).toBe(before.ino);
    expect(names()).toEqual(['a.txt']);
  });

  it('expected_sha256 alone is a precondition; onBeforeWrite sees the whole content first', async () => {
    const p = file('a.txt', 'abc\n');
    const plans: FileOpPlan[] = [];
    await deleteFile(p, {
      preconditions: { expectedSha256: 'EDEAAFF3F1774AD2888673770C6D64097E391BC362D7D6FB34982DDF0EFD18CB'.toLowerCase() },
      captureContent: true,
      onBeforeWrite: (plan) => void plans.push({ ...plan, content: plan.content && Buffer.from(plan.content) }),
    });
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatchObject({ op: 'delete', size: 4, sha256: 'edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb' });
    expect(plans[0]!.content!.toString()).toBe('abc\n');
    expect(existsSync(p)).toBe(false);
  });

  it('a throwing onBeforeWrite leaves the file', async () => {
    const p = file('a.txt', 'x\n');
    const e = await errorOf(
      deleteFile(p, {
        preconditions: { ifMatch: await etagOf(p) },
        onBeforeWrite: () => {
          throw new Error('journal full');
        },
      }),
    );
    expect(e.message).toBe('journal full');
    expect(readFileSync(p, 'utf8')).toBe('x\n');
  });

  it('checked: a symlink swapped in for the path is refused, and hard links unless allowed', async () => {
    const outside = file('outside.txt', 'secret\n');
    const link = join(dir, 'link.txt');
    symlinkSync(outside, link);
    const e = await errorOf(deleteFile(link, { preconditions: { ifMatch: await etagOf(outside) }, checked: { allowHardlinks: false } }));
    expect(e.code).toBe('permission_denied');
    expect(existsSync(outside) && existsSync(link)).toBe(true);
    const twin = join(dir, 'twin.txt');
    linkSync(outside, twin);
    const h = await errorOf(deleteFile(twin, { preconditions: { ifMatch: await etagOf(twin) }, checked: { allowHardlinks: false } }));
    expect(h.code).toBe('permission_denied');
    await deleteFile(twin, { preconditions: { ifMatch: await etagOf(twin) }, checked: { allowHardlinks: true } });
    expect(existsSync(twin)).toBe(false);
    expect(readFileSync(outside, 'utf8')).toBe('secret\n');
  });

  it('a person (unchecked) deleting a symlink deletes the file it leads to, as upsert writes it', async () => {
    const target = file('real.txt', 'r\n');
    const link = join(dir, 'l.txt');
    symlinkSync(target, link);
    const r = await deleteFile(link, { preconditions: { ifMatch: await etagOf(target) } });
    expect(r.path).toBe(target);
    expect(existsSync(target)).toBe(false);
  });
});

describe('moveFile', () => {
  it('moves under a precondition, keeping the inode, bytes and mode', async () => {
    const p = file('a.txt', 'move me\n');
    const st = statSync(p);
    const to = join(dir, 'b.txt');
    expect((await errorOf(moveFile(p, to, { preconditions: {} }))).code).toBe('precondition_required');
    expect((await errorOf(moveFile(p, to, { preconditions: { ifMatch: 'old' } }))).code).toBe('precondition_failed');
    const r = await moveFile(p, to, { preconditions: { ifMatch: await etagOf(p) } });
    expect(r).toMatchObject({ op: 'move', path: p, to, applied: true, version_after: { size: 8 } });
    expect(r.preview).toBe(`rename from ${p}\nrename to ${to}\n`);
    expect(existsSync(p)).toBe(false);
    expect(statSync(to).ino).toBe(st.ino);
    expect(statSync(to).mode).toBe(st.mode);
    expect(names()).toEqual(['b.txt']);
  });

  it('after a move away and back (same inode and mtime, a new ctime) a read gives the etag the next move checks', async () => {
    const p = file('a.txt', 'there and back\n');
    const away = join(dir, 'away.txt');
    // Read first: this process keeps the file's line index, which must not keep the old ctime.
    await moveFile(p, away, { preconditions: { ifMatch: await etagOf(p) } });
    const back = await moveFile(away, p, { preconditions: { ifMatch: await etagOf(away) } });
    expect(await etagOf(p)).toBe(back.version_after!.etag);
    chmodSync(p, 0o600);
    const r = await moveFile(p, away, { preconditions: { ifMatch: await etagOf(p) } });
    expect(r.applied).toBe(true);
  });

  it('so does a line index persisted before the move (a file of 1 MiB, read again by a fresh process)', async () => {
    const p = file('big.txt', `${'y'.repeat(127)}\n`.repeat(8192));
    const away = join(dir, 'big-away.txt');
    await moveFile(p, away, { preconditions: { ifMatch: await etagOf(p) } });
    const back = await moveFile(away, p, { preconditions: { ifMatch: await etagOf(away) } });
    forgetIndexes(); // as a new process: only the persisted index is left
    const info = await fileInfo(p);
    expect(info.index.fromCache).toBe(true);
    expect(info.version.etag).toBe(back.version_after!.etag);
  });

  it('never replaces: an existing destination is precondition_failed destination_exists, both files untouched', async () => {
    const p = file('a.txt', 'a\n');
    const to = file('b.txt', 'b\n');
    const e = await errorOf(moveFile(p, to, { preconditions: { ifMatch: await etagOf(p) } }));
    expect(e).toMatchObject({ code: 'precondition_failed', details: { failed: ['destination_exists'] } });
    expect(readFileSync(p, 'utf8')).toBe('a\n');
    expect(readFileSync(to, 'utf8')).toBe('b\n');
    // A dangling symlink is a name too.
    const dangling = join(dir, 'c.txt');
    symlinkSync(join(dir, 'nowhere'), dangling);
    expect((await errorOf(moveFile(p, dangling, { preconditions: { ifMatch: await etagOf(p) } }))).details.failed).toEqual(['destination_exists']);
  });

  it('missing destination folders only with createParents; a dry run creates none', async () => {
    const p = file('a.txt', 'a\n');
    const to = join(dir, 'x', 'y', 'a.txt');
    expect((await errorOf(moveFile(p, to, { preconditions: { ifMatch: await etagOf(p) } }))).code).toBe('not_found');
    const dry = await moveFile(p, to, { preconditions: { ifMatch: await etagOf(p) }, createParents: true, dryRun: true });
    expect(dry).toMatchObject({ applied: false, dry_run: true, to });
    expect(names()).toEqual(['a.txt']);
    await moveFile(p, to, { preconditions: { ifMatch: await etagOf(p) }, createParents: true });
    expect(readFileSync(to, 'utf8')).toBe('a\n');
    expect(existsSync(p)).toBe(false);
  });

  it('a dry run moves nothing', async () => {
    const p = file('a.txt', 'a\n');
    const to = join(dir, 'b.txt');
    const r = await moveFile(p, to, { preconditions: { ifMatch: await etagOf(p) }, dryRun: true });
    expect(r).toMatchObject({ applied: false, dry_run: true, version_after: null });
    expect(names()).toEqual(['a.txt']);
  });

  it('checked: a source that became a symlink is refused; so is a destination folder swapped for a symlink', async () => {
    const outside = tmp.path(`outside${n}`);
    mkdirSync(outside);
    const secret = join(outside, 's.txt');
    writeFileSync(secret, 's\n');
    const link = join(dir, 'a.txt');
    symlinkSync(secret, link);
    const e = await errorOf(moveFile(link, join(dir, 'b.txt'), { preconditions: { ifMatch: await etagOf(secret) }, checked: { allowHardlinks: false } }));
    expect(e.code).toBe('permission_denied');
    const p = file('c.txt', 'c\n');
    symlinkSync(outside, join(dir, 'sub'));
    const f = await errorOf(moveFile(p, join(dir, 'sub', 'c.txt'), { preconditions: { ifMatch: await etagOf(p) }, checked: { allowHardlinks: false } }));
    expect(f.code).toBe('permission_denied');
    expect(readdirSync(outside)).toEqual(['s.txt']);
    expect(existsSync(p)).toBe(true);
  });

  it('moving a file onto itself is invalid_input', async () => {
    const p = file('a.txt', 'a\n');
    expect((await errorOf(moveFile(p, p, { preconditions: { ifMatch: await etagOf(p) } }))).code).toBe('invalid_input');
  });
});

describe('restoreFile', () => {
  it('puts the bytes back with their mode, only where nothing is', async () => {
    const p = join(dir, 'a.txt');
    const r = await restoreFile(p, Buffer.from('back\n'), 0o600);
    expect(r).toMatchObject({ op: 'restore', applied: true, version_after: { size: 5 } });
    expect(readFileSync(p, 'utf8')).toBe('back\n');
    expect(statSync(p).mode & 0o777).toBe(0o600);
    const e = await errorOf(restoreFile(p, Buffer.from('again\n'), 0o644));
    expect(e).toMatchObject({ code: 'precondition_failed', details: { failed: ['absent'] } });
    expect(readFileSync(p, 'utf8')).toBe('back\n');
    expect(names()).toEqual(['a.txt']);
  });
});
