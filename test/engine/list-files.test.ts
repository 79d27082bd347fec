/**
 * list against find and git on the same generated tree: the files are what `find`
 * sees minus what `git check-ignore` says is ignored (and minus symlinks, .git),
 * the same set `git ls-files --others --exclude-standard` gives; depth and max cap
 * it; text and binary come from the engine's sniff; line counts only when indexed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIndex } from '../../src-main/engine/index/store.ts';
import { listFiles } from '../../src-main/engine/read/list-files.ts';
import { tempDir } from '../fixtures/generate.ts';
import { gitEnv, writeSourceTree } from '../fixtures/source-tree.ts';

const tmp = tempDir('folio-list-');
const root = tmp.path('tree');
let real: string;

beforeAll(() => {
  mkdirSync(root);
  writeSourceTree(root, 21, { files: 300 });
  writeFileSync(tmp.path('outside.txt'), 'outside\n');
  symlinkSync(tmp.path('outside.txt'), join(root, 'src/link.txt'));
  real = realpathSync(root);
});
afterAll(() => tmp.cleanup());

const run = (cmd: string, args: string[], input?: string) =>
  execFileSync(cmd, args, { cwd: root, encoding: 'utf8', env: gitEnv(), maxBuffer: 1 << 26, ...(input !== undefined ? { input } : {}) });
const lines = (s: string) => s.split('\n').filter(Boolean);

/** git's verdict: files find sees (no symlinks, not under .git) that git check-ignore does not ignore. */
function gitFiles(): string[] {
  const found = lines(run('find', ['.', '-type', 'f', '-not', '-path', './.git/*'])).map((p) => p.replace(/^\.\//, ''));
  let ignored: string[] = [];
  try {
    ignored = lines(run('git', ['check-ignore', '--stdin'], found.join('\n')));
  } catch (err) {
    // exit 1: nothing ignored
    if ((err as { status?: number }).status !== 1) throw err;
  }
  const out = new Set(ignored);
  return found.filter((p) => !out.has(p)).sort();
}

describe('list', () => {
  it('lists the files find sees minus what git check-ignore ignores, the same as git ls-files --others', async () => {
    const r = await listFiles(real, { depth: 64, max: 100_000 });
    const files = r.entries.filter((e) => e.kind !== 'directory').map((e) => e.path);
    expect([...files].sort()).toEqual(gitFiles());
    // git lists a symlink as a file; the walk never follows (nor lists) one.
    const links = new Set(lines(run('find', ['.', '-type', 'l'])).map((p) => p.replace(/^\.\//, '')));
    expect(links.has('src/link.txt')).toBe(true);
    const lsFiles = lines(run('git', ['ls-files', '--others', '--exclude-standard'])).filter((p) => !links.has(p));
    expect([...files].sort()).toEqual(lsFiles.sort());
    expect(r.truncated).toBe(false);
  });

  it('lists directories before what they hold, in walk order, with depth', async () => {
    const r = await listFiles(real, { depth: 64, max: 100_000 });
    const paths = r.entries.map((e) => e.path);
    for (const e of r.entries) {
      expect(e.depth).toBe(e.path.split('/').length);
      const parent = e.path.split('/').slice(0, -1).join('/');
      if (parent) expect(paths.indexOf(parent)).toBeLessThan(paths.indexOf(e.path));
    }
    const dirs = lines(run('find', ['.', '-mindepth', '1', '-type', 'd', '-not', '-path', './.git', '-not', '-path', './.git/*'])).map((p) =>
      p.replace(/^\.\//, ''),
    );
    const listedDirs = r.entries.filter((e) => e.kind === 'directory').map((e) => e.path);
    // Every listed directory exists; an ignored one (build/, src/generated/) is not listed.
    for (const d of listedDirs) expect(dirs).toContain(d);
    expect(listedDirs).not.toContain('build');
    expect(listedDirs).not.toContain('src/generated');
    expect(listedDirs).toContain('.github/workflows');
  });

  it('stops at depth and max, saying truncated', async () => {
    const top = await listFiles(real, { depth: 1 });
    expect(top.entries.every((e) => e.depth === 1)).toBe(true);
    expect(top.entries.map((e) => e.path)).toEqual(
      lines(run('find', ['.', '-mindepth', '1', '-maxdepth', '1', '-not', '-name', '.git', '-not', '-name', 'build', '-not', '-name', 'logs']))
        .map((p) => p.replace(/^\.\//, ''))
        .concat(['logs'])
        .sort(cmp),
    );
    const capped = await listFiles(real, { depth: 64, max: 10 });
    expect(capped.entries.length).toBe(10);
    expect(capped.truncated).toBe(true);
  });

  it('glob keeps matching entries only; kind is text or binary by the sniff; lines only once indexed', async () => {
    const r = await listFiles(real, { depth: 64, max: 100_000, glob: '**/*.bin' });
    expect(r.entries.length).toBeGreaterThan(0);
    expect(r.entries.every((e) => e.kind === 'binary' && e.path.endsWith('.bin'))).toBe(true);
    const md = (await listFiles(real, { depth: 64, max: 100_000, glob: 'docs/*.md' })).entries.filter((e) => e.size > 0);
    expect(md.every((e) => e.kind === 'text' && e.lines === null)).toBe(true);
    await openIndex(join(real, md[0]!.path));
    const again = (await listFiles(real, { depth: 64, max: 100_000, glob: 'docs/*.md' })).entries;
    const indexed = again.find((e) => e.path === md[0]!.path)!;
    const text = readFileSync(join(real, md[0]!.path), 'utf8');
    expect(indexed.lines).toBe(text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
    expect(again.filter((e) => e.path !== md[0]!.path).every((e) => e.lines === null)).toBe(true);
  });
});

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
