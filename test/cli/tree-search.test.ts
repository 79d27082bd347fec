/**
 * `folio search DIR REGEX` and `folio list DIR` as a person runs them (a real
 * `node bin/folio.mjs` process): the same lines as `rg -n` in the same format
 * (path:line:text), --count like `rg -c`, --json answers, --cursor continuing
 * over everything exactly once, and list agreeing with git.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/generate.ts';
import { gitEnv, writeSourceTree } from '../fixtures/source-tree.ts';

const tmp = tempDir('folio-cli-tree-');
const root = tmp.path('tree');
const BIN = join(process.cwd(), 'bin/folio.mjs');
const folio = (args: string[], cwd = process.cwd()) =>
  spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', maxBuffer: 1 << 26, env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') } });
const rg = (args: string[], cwd = process.cwd()) =>
  spawnSync('rg', ['--hidden', '--no-ignore-global', '-g', '!.git', '--color', 'never', ...args], { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
const lines = (s: string) => s.split('\n').filter(Boolean);

beforeAll(() => {
  mkdirSync(root);
  writeSourceTree(root, 5, { files: 250 });
  writeFileSync(tmp.path('outside.c'), 'static int alloc_buffer(struct outside *o)\n');
  symlinkSync(tmp.path('outside.c'), join(root, 'src/link.c'));
});
afterAll(() => tmp.cleanup());

describe('folio search DIR', () => {
  it('prints path:line:text like rg -n, for the directory as named (absolute, relative, .)', () => {
    for (const [dir, cwd] of [
      [root, process.cwd()],
      ['tree', tmp.dir],
      ['.', root],
    ] as const) {
      const r = folio(['search', dir, 'alloc_\\w+\\(', '--max', '10000'], cwd);
      expect(r.status, r.stderr).toBe(0);
      const out = lines(r.stdout);
      expect(out.pop()).toMatch(/^-- \d+ matching lines in \d+ files \(\d+ searched\)$/);
      const expected = lines(rg(['-n', '--no-heading', '--with-filename', 'alloc_\\w+\\(', dir], cwd).stdout).map((l) =>
        l.replace(/\r$/, '').replace(/^\.\//, ''),
      );
      expect(expected.length).toBeGreaterThan(10);
      expect([...out].sort()).toEqual([...expected].sort());
    }
  });

  it('--count prints path:count like rg -c; -i and --glob narrow (.gitignore still applies: rg -g would override it, so rg gets the directory)', () => {
    const count = lines(folio(['search', '.', 'goto', '--count', '-i', '--glob', 'src/**'], root).stdout);
    const expected = lines(rg(['-c', '-i', 'goto', 'src'], root).stdout);
    expect(count.sort()).toEqual(expected.sort());
  });

  it('--json answers the search_tree shape; --cursor continues until every match was printed exactly once', () => {
    const all = JSON.parse(folio(['search', root, 'static|goto', '--max', '10000', '--json']).stdout);
    expect(all).toMatchObject({ truncated: false, next_cursor: null, glob: null });
    const keys = (r: { matches: { path: string; line: number }[] }) => r.matches.map((m) => `${m.path}:${m.line}`);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 1000; page++) {
      const r = JSON.parse(folio(['search', root, 'static|goto', '--max', '1000', '--json', ...(cursor ? ['--cursor', cursor] : [])]).stdout);
      seen.push(...keys(r));
      cursor = r.next_cursor;
      if (!r.truncated) break;
    }
    expect(seen).toEqual(keys(all));
    const human = folio(['search', root, 'static', '--max', '3']);
    expect(lines(human.stdout).pop()).toMatch(/^-- 3 matching lines shown in \d+ files? \(cap reached\); continue with --cursor '.+:\d+'$/);
  });

  it('-C prints context lines as path-line-text, groups separated by --', () => {
    const r = lines(folio(['search', '.', 'goto mutex', '-C', '1', '--glob', 'src/core/*.c'], root).stdout);
    const m = r.find((l) => /^[^:]+:\d+:/.test(l))!;
    const [path, n] = m.split(':');
    expect(r[r.indexOf(m) - 1]).toMatch(new RegExp(`^${path!.replace(/\./g, '\\.')}-${Number(n) - 1}-`));
    expect(r).toContain('--');
  });

  it('a file with directory-only flags is refused (exit 1, invalid_input)', () => {
    const r = folio(['search', join(root, '.gitignore'), 'x', '--glob', '*.c', '--json']);
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe('invalid_input');
  });
});

describe('folio list DIR', () => {
  it('--json lists the files git sees (no symlinks) and their directories; human output one entry per line', () => {
    const r = JSON.parse(folio(['list', root, '--depth', '64', '--max', '100000', '--json']).stdout);
    const files = r.entries.filter((e: { kind: string }) => e.kind !== 'directory').map((e: { path: string }) => e.path);
    const git = lines(spawnSync('git', ['ls-files', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8', env: gitEnv() }).stdout).filter(
      (p) => p !== 'src/link.c',
    );
    expect(files.sort()).toEqual(git.sort());
    const human = lines(folio(['list', '.', '--depth', '1'], root).stdout);
    expect(human.some((l) => /^dir +- +- +src\/$/.test(l))).toBe(true);
    expect(human.pop()).toMatch(/^-- \d+ entries$/);
  });
});
