/** The per-user recent files list on real files: order, dedup by real path, cap, missing files, atomic writes. */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { addRecent, configDir, listRecent, RECENT_MAX, recentFilePath } from '../../src-main/api/app/recent-files.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-recent-');
afterAll(() => tmp.cleanup());
let n = 0;
let env: NodeJS.ProcessEnv = {};
let dir = '';
beforeEach(() => {
  dir = tmp.path(`case${++n}`);
  mkdirSync(join(dir, 'files'), { recursive: true });
  env = { FOLIO_CONFIG_DIR: join(dir, 'config') };
});
const file = (name: string) => {
  const p = join(dir, 'files', name);
  writeFileSync(p, `${name}\n`);
  return p;
};
const at = (s: number) => ({ env, now: new Date(Date.UTC(2026, 0, 1, 0, 0, s)) });

describe('recent files', () => {
  it('the config dir is FOLIO_CONFIG_DIR, else $XDG_CONFIG_HOME/folio, else ~/.config/folio', () => {
    expect(configDir({ FOLIO_CONFIG_DIR: '/x/y' })).toBe('/x/y');
    expect(configDir({ XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/folio');
    expect(configDir({})).toBe(join(homedir(), '.config', 'folio'));
    expect(recentFilePath({ FOLIO_CONFIG_DIR: '/x' })).toBe('/x/recent.json');
  });

  it('is empty before anything was opened, and lists most recent first', async () => {
    expect(listRecent(env)).toEqual([]);
    const a = file('a.txt');
    const b = file('b.txt');
    await addRecent(a, at(1));
    const answer = await addRecent(b, at(2));
    expect(answer.map((e) => e.path)).toEqual([b, a]);
    expect(listRecent(env)).toEqual([
      { path: b, opened_at: '2026-01-01T00:00:02.000Z', missing: false },
      { path: a, opened_at: '2026-01-01T00:00:01.000Z', missing: false },
    ]);
  });

  it('keeps one entry per real path: reopening moves it first, a symlink or a relative spelling is the same file', async () => {
    const a = file('a.txt');
    const b = file('b.txt');
    symlinkSync(a, join(dir, 'files', 'link-to-a'));
    await addRecent(a, at(1));
    await addRecent(b, at(2));
    await addRecent(join(dir, 'files', 'link-to-a'), at(3));
    await addRecent(join(dir, 'files', '..', 'files', 'b.txt'), at(4));
    expect(listRecent(env).map((e) => [e.path, e.opened_at.slice(17, 19)])).toEqual([
      [b, '04'],
      [a, '03'],
    ]);
  });

  it(`holds at most ${RECENT_MAX}, dropping the oldest`, async () => {
    for (let i = 0; i < RECENT_MAX + 5; i++) await addRecent(file(`f${i}.txt`), at(i));
    const listed = listRecent(env);
    expect(listed).toHaveLength(RECENT_MAX);
    expect(listed[0]!.path).toBe(join(dir, 'files', `f${RECENT_MAX + 4}.txt`));
    expect(listed.at(-1)!.path).toBe(join(dir, 'files', 'f5.txt'));
  });

  it('lists a vanished file as missing instead of failing, and a directory in its place too', async () => {
    const a = file('a.txt');
    const b = file('b.txt');
    await addRecent(a, at(1));
    await addRecent(b, at(2));
    rmSync(a);
    rmSync(b);
    mkdirSync(b);
    expect(listRecent(env).map((e) => e.missing)).toEqual([true, true]);
    await expect(addRecent(a, at(3))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('writes the whole file atomically, owner-only, leaving no temp files; a corrupt file counts as empty', async () => {
    const a = file('a.txt');
    await Promise.all([addRecent(a, at(1)), addRecent(file('b.txt'), at(2)), addRecent(file('c.txt'), at(3))]);
    expect(listRecent(env)).toHaveLength(3); // concurrent adds in one process: none lost (the file lock serialises them)
    expect(readdirSync(join(dir, 'config'))).toEqual(['recent.json']);
    expect(statSync(recentFilePath(env)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(recentFilePath(env), 'utf8'))).toMatchObject({ version: 1, entries: expect.any(Array) });
    writeFileSync(recentFilePath(env), '{"entries": [tor');
    expect(listRecent(env)).toEqual([]);
    expect((await addRecent(a, at(4))).map((e) => e.path)).toEqual([a]);
  });

  it('recent_add and recent_list through the operation table (FOLIO_CONFIG_DIR of the process)', async () => {
    const saved = process.env.FOLIO_CONFIG_DIR;
    process.env.FOLIO_CONFIG_DIR = env.FOLIO_CONFIG_DIR;
    try {
      const me = { kind: 'human', name: 'ana' } as const;
      file('rel.txt');
      const added = await handle('recent_add', { path: 'rel.txt' }, me, { workspace: join(dir, 'files') });
      expect(added.entries.map((e) => e.path)).toEqual([join(dir, 'files', 'rel.txt')]);
      expect((await handle('recent_list', {}, me)).entries).toEqual(added.entries);
      await expect(handle('recent_add', { path: '' }, me)).rejects.toMatchObject({ code: 'invalid_input' });
    } finally {
      if (saved === undefined) delete process.env.FOLIO_CONFIG_DIR;
      else process.env.FOLIO_CONFIG_DIR = saved;
    }
  });
});
