/** The log viewer's per-user state on real files: highlight rules (checked for linear time) and marks per real path. */
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { listHighlights, listMarks, MARKED_FILES_MAX, setHighlights, setMark } from '../../src-main/api/app/view-state.ts';
import { AGENT_TOOLS } from '../../src-main/api/agent/tools.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-view-state-');
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
const rule = (pattern: string, over: Partial<{ literal: boolean; color: 'yellow' | 'red'; enabled: boolean }> = {}) => ({
  pattern,
  literal: false,
  color: 'yellow' as const,
  enabled: true,
  ...over,
});

describe('highlight rules', () => {
  it('are empty at first, kept in order, and read back by a later process (the file)', async () => {
    expect(listHighlights(env)).toEqual([]);
    const rules = [rule('ERROR'), rule('a.b', { literal: true, color: 'red', enabled: false })];
    expect(await setHighlights(rules, env)).toEqual(rules);
    expect(listHighlights(env)).toEqual(rules);
    const stored = JSON.parse(readFileSync(join(dir, 'config', 'highlights.json'), 'utf8'));
    expect(stored).toEqual({ version: 1, rules });
    expect(statSync(join(dir, 'config', 'highlights.json')).mode & 0o777).toBe(0o600);
  });

  it('refuses a regex that cannot run in linear time or does not compile, naming the rule, and keeps the old list', async () => {
    await setHighlights([rule('keep')], env);
    for (const bad of ['(a)\\1', '(?=x)y', 'a(?!b)', 'x{2000}']) {
      await expect(setHighlights([rule('ok'), rule(bad)], env)).rejects.toMatchObject({
        code: 'invalid_input',
        message: expect.stringContaining(`rule 2 (${bad}) cannot run in linear time`),
        details: { field: 'rules[1].pattern' },
      });
    }
    await expect(setHighlights([rule('(unclosed')], env)).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('not a valid regex'),
    });
    expect(listHighlights(env)).toEqual([rule('keep')]);
  });

  it('a literal rule is escaped: its metacharacters are text, and a backreference-looking literal is fine', async () => {
    const rules = [rule('(a)\\1 [x]', { literal: true })];
    expect(await setHighlights(rules, env)).toEqual(rules);
  });

  it('a corrupt file reads as no rules', () => {
    mkdirSync(join(dir, 'config'), { recursive: true });
    writeFileSync(join(dir, 'config', 'highlights.json'), '{"rules": [tor');
    expect(listHighlights(env)).toEqual([]);
  });
});

describe('marks', () => {
  it('are kept per real path, ascending, and unmarking the last one drops the file', async () => {
    const a = file('a.log');
    const link = join(dir, 'files', 'link.log');
    symlinkSync(a, link);
    expect(listMarks(a, env)).toEqual([]);
    await setMark(a, 30, true, { env });
    await setMark(link, 4, true, { env });
    expect(await setMark(a, 12, true, { env })).toEqual([4, 12, 30]);
    expect(listMarks(link, env)).toEqual([4, 12, 30]);
    expect(await setMark(a, 12, false, { env })).toEqual([4, 30]);
    await setMark(a, 4, false, { env });
    await setMark(a, 30, false, { env });
    expect(JSON.parse(readFileSync(join(dir, 'config', 'marks.json'), 'utf8')).files).toEqual({});
    await expect(setMark(join(dir, 'files', 'gone.log'), 1, true, { env })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a remote value is kept under its canonical locator (it has no real path); a bad locator is invalid_input', async () => {
    expect(await setMark('az://logs/a b.log', 7, true, { env })).toEqual([7]);
    expect(await setMark('pg://applogs/app/body', 2, true, { env })).toEqual([2]);
    expect(listMarks('az://logs/a%20b.log', env)).toEqual([7]);
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'config', 'marks.json'), 'utf8')).files).sort()).toEqual([
      'az://logs/a%20b.log',
      'pg://applogs/app/body',
    ]);
    expect(() => listMarks('pg://applogs/app', env)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });

  it('concurrent marks from two windows are all kept (the file lock)', async () => {
    const a = file('a.log');
    await Promise.all(Array.from({ length: 20 }, (_, i) => setMark(a, i + 1, true, { env })));
    expect(listMarks(a, env)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it(`keeps the ${MARKED_FILES_MAX} files marked most recently`, async () => {
    const paths = Array.from({ length: MARKED_FILES_MAX + 1 }, (_, i) => file(`f${i}.log`));
    for (let i = 0; i < paths.length; i++) await setMark(paths[i]!, 1, true, { env, now: new Date(Date.UTC(2026, 0, 1, 0, 0, i)) });
    expect(listMarks(paths[0]!, env)).toEqual([]);
    expect(listMarks(paths[1]!, env)).toEqual([1]);
    expect(listMarks(paths[MARKED_FILES_MAX]!, env)).toEqual([1]);
  });
});

describe('through the operation table', () => {
  it('highlights_* and marks_* answer, bad input is invalid_input, and agents do not get them as tools', async () => {
    const me = { kind: 'human' as const, name: 'me' };
    const saved = process.env.FOLIO_CONFIG_DIR;
    process.env.FOLIO_CONFIG_DIR = env.FOLIO_CONFIG_DIR;
    try {
      file('rel.log');
      expect((await handle('highlights_set', { rules: [rule('WARN')] }, me)).rules).toEqual([rule('WARN')]);
      expect((await handle('highlights_list', {}, me)).rules).toEqual([rule('WARN')]);
      await expect(handle('highlights_set', { rules: [{ ...rule('x'), color: 'mauve' }] } as never, me)).rejects.toMatchObject({ code: 'invalid_input' });
      const ws = { workspace: join(dir, 'files') };
      const marked = await handle('marks_set', { path: 'rel.log', line: 1, marked: true }, me, ws);
      expect(marked).toEqual({ path: join(dir, 'files', 'rel.log'), lines: [1] });
      expect(await handle('marks_list', { path: 'rel.log' }, me, ws)).toEqual(marked);
      await expect(handle('marks_set', { path: 'rel.log', line: 0, marked: true }, me, ws)).rejects.toMatchObject({ code: 'invalid_input' });
      // rel.log has one line: line 2 cannot be marked, but a stale mark past the end can be removed.
      await expect(handle('marks_set', { path: 'rel.log', line: 2, marked: true }, me, ws)).rejects.toMatchObject({
        code: 'out_of_bounds',
        details: { total_lines: 1 },
      });
      await setMark(join(dir, 'files', 'rel.log'), 3, true, { env });
      expect((await handle('marks_set', { path: 'rel.log', line: 3, marked: false }, me, ws)).lines).toEqual([1]);
    } finally {
      if (saved === undefined) delete process.env.FOLIO_CONFIG_DIR;
      else process.env.FOLIO_CONFIG_DIR = saved;
    }
    const names = AGENT_TOOLS.map((t) => (t as { name: string }).name);
    expect(names.filter((x) => /highlight|mark/.test(x))).toEqual([]);
  });
});
