/**
 * Directory search against ripgrep on the same generated tree: the same path:line
 * matches and texts, the same .gitignore behaviour (nested files, negations, an
 * ignored directory), binary files skipped; the cursor covers every match exactly
 * once; symlinks are not followed; big and UTF-16 files go through the one-file
 * search and still agree.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTreeSearchPools, searchTree, type TreeSearchOptions } from '../../src-main/engine/search/tree-search.ts';
import { etagOf, statRegularFile } from '../../src-main/engine/index/identity.ts';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';
import { writeSourceTree } from '../fixtures/source-tree.ts';
import { budgetMs } from '../fixtures/load.ts';

const tmp = tempDir('folio-tree-search-');
const root = tmp.path('tree');
let real: string;

beforeAll(() => {
  mkdirSync(root);
  writeSourceTree(root, 14, { files: 400 });
  // Outside the tree, reachable only through symlinks inside it.
  writeFileSync(tmp.path('outside.c'), 'static int alloc_buffer(struct outside *o)\n');
  mkdirSync(tmp.path('outside-dir'));
  writeFileSync(tmp.path('outside-dir/x.c'), 'static int alloc_buffer(struct outside *o)\n');
  symlinkSync(tmp.path('outside.c'), join(root, 'src/link.c'));
  symlinkSync(tmp.path('outside-dir'), join(root, 'src/linkdir'));
  // UTF-16LE with a BOM: a NUL in the head, but text (ripgrep transcodes it too).
  writeFileSync(
    join(root, 'docs/wide.txt'),
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('alpha\nstatic int alloc_buffer(void)\nomega\n', 'utf16le')]),
  );
  // Bigger than the batch limit (lowered to 4 MiB here): searched by the one-file engine.
  writeLogFile(join(root, 'docs/big.log.txt'), 5 * 1024 * 1024, 3);
  real = realpathSync(root);
});
afterAll(async () => {
  await closeTreeSearchPools();
  tmp.cleanup();
});

const BIG = 4 * 1024 * 1024;
const key = (m: { path: string; line: number }) => `${m.path}:${m.line}`;

/** ripgrep's matches in the tree: hidden files searched, .git skipped, no global config. */
function rg(pattern: string, extra: string[] = []): { path: string; line: number; text: string }[] {
  const r = spawnSync(
    'rg',
    ['-n', '--no-heading', '--with-filename', '--color', 'never', '--hidden', '--no-ignore-global', '-g', '!.git', ...extra, '-e', pattern, '.'],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
      env: { ...process.env, RIPGREP_CONFIG_PATH: '' },
    },
  );
  expect(r.status, r.stderr).toBeLessThanOrEqual(1);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const m = /^\.\/(.+?):(\d+):(.*)$/s.exec(l)!;
      return { path: m[1]!, line: Number(m[2]), text: m[3]!.replace(/\r$/, '') };
    });
}

async function all(pattern: string, opts: Partial<TreeSearchOptions> = {}) {
  return searchTree(real, { pattern, maxMatches: 10_000, timeoutMs: 60_000, bigFileBytes: BIG, ...opts });
}

describe('directory search agrees with ripgrep', () => {
  for (const [pattern, flags, rgFlags] of [
    ['alloc_buffer', '', []],
    ['\\bgoto (mutex|index);', '', []],
    ['^static int [a-z]+_entry', '', []],
    ['CAFÉ|köln', 'i', ['-i']],
    ['TODO|FIXME', '', []],
    ['🚀', '', []],
  ] as const) {
    it(`/${pattern}/${flags}: same path:line matches and texts, in walk order`, async () => {
      const expected = rg(pattern, [...rgFlags]);
      expect(expected.length).toBeGreaterThan(0);
      for (const threads of [0, 2]) {
        const r = await all(pattern, { flags, threads });
        expect(r.truncated).toBe(false);
        expect(r.matches.map(key).sort()).toEqual(expected.map(key).sort());
        const text = new Map(expected.map((m) => [key(m), m.text]));
        for (const m of r.matches) expect(m.text, key(m)).toBe(text.get(key(m)));
        // Walk order: files in path order, lines ascending within a file.
        const files = r.files.map((f) => f.path);
        expect(files).toEqual([...new Set(r.matches.map((m) => m.path))]);
        expect(r.files.reduce((n, f) => n + f.count, 0)).toBe(r.count);
        // Each file's version, as a read would answer it (nothing changes the tree here).
        for (const f of r.files) expect(f.etag, f.path).toBe(etagOf(statRegularFile(join(root, f.path))));
      }
    });
  }

  it('honours .gitignore like ripgrep: nested files, a negation, an ignored directory whose files a negation cannot bring back', async () => {
    const paths = new Set((await all('alloc_buffer|kernel_lookup|flush_guard|config_entry')).matches.map((m) => m.path));
    expect(paths.has('logs/keep.log')).toBe(true);
    expect(paths.has('logs/app.log')).toBe(false);
    expect(paths.has('build/out.c')).toBe(false);
    expect(paths.has('src/generated/table.c')).toBe(false);
    expect(paths.has('src/core/scratch.tmp')).toBe(false);
    expect([...paths].some((p) => p.startsWith('drivers/usb/host/'))).toBe(false);
    expect(paths.has('.hidden/notes.txt')).toBe(true);
    expect(paths.has('src/.config.c')).toBe(true);
  });

  it('skips binary files, and does not follow symlinks out of the tree', async () => {
    const r = await all('.');
    expect(r.matches.some((m) => m.path.endsWith('.bin'))).toBe(false);
    expect(r.matches.some((m) => m.path.startsWith('src/link'))).toBe(false);
    expect(JSON.stringify(r)).not.toContain('outside');
  });

  it('searches UTF-16 text and big files through the one-file engine, with the right lines', async () => {
    const wide = (await all('alloc_buffer')).matches.filter((m) => m.path === 'docs/wide.txt');
    expect(wide.map((m) => [m.line, m.text])).toEqual([[2, 'static int alloc_buffer(void)']]);
    const big = await all('ERROR \\[billing\\]', { glob: 'docs/*.txt' });
    const expected = rg('ERROR \\[billing\\]', ['-g', 'docs/*.txt']);
    expect(big.matches.map(key)).toEqual(expected.map(key));
    expect(big.files).toEqual([{ path: 'docs/big.log.txt', count: expected.length, etag: etagOf(statRegularFile(join(root, 'docs/big.log.txt'))) }]);
  });

  it('glob narrows to matching files, like rg -g', async () => {
    const r = await all('static', { glob: 'src/**/*.h' });
    expect(r.matches.map(key).sort()).toEqual(rg('static', ['-g', 'src/**/*.h']).map(key).sort());
    expect(r.matches.every((m) => m.path.startsWith('src/') && m.path.endsWith('.h'))).toBe(true);
  });

  it('count_only counts matching lines per file like rg -c', async () => {
    const r = await all('goto', { countOnly: true });
    const rgc = spawnSync('rg', ['-c', '--hidden', '--no-ignore-global', '-g', '!.git', 'goto', '.'], { cwd: root, encoding: 'utf8' }).stdout;
    const expected = rgc
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace(/^\.\//, ''));
    expect(r.files.map((f) => `${f.path}:${f.count}`).sort()).toEqual(expected.sort());
    expect(r.matches).toEqual([]);
  });

  it('context gives the lines around each match from the file', async () => {
    const r = await all('goto mutex', { context: 2 });
    expect(r.matches.length).toBeGreaterThan(0);
    for (const m of r.matches) {
      if (m.path.endsWith('big.log.txt')) continue;
      const lines = readFileSync(join(root, m.path), 'utf8').replace(/\r\n/g, '\n').split('\n');
      if (lines.at(-1) === '') lines.pop();
      expect(m.contextBefore).toEqual(lines.slice(Math.max(0, m.line - 3), m.line - 1));
      expect(m.contextAfter).toEqual(lines.slice(m.line, m.line + 2));
    }
  });
});

describe('the cursor', () => {
  it('pages through every match exactly once, in the order of one big answer', async () => {
    const whole = (await all('static|goto')).matches.map(key);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10_000; pages++) {
      const r = await searchTree(real, { pattern: 'static|goto', maxMatches: 37, cursor, threads: pages % 2 ? 0 : 2, bigFileBytes: BIG });
      seen.push(...r.matches.map(key));
      if (!r.truncated) break;
      expect(r.matches.length).toBe(37);
      cursor = r.nextCursor!;
    }
    expect(seen).toEqual(whole);
  });

  it('pages through a big file within it', async () => {
    const whole = (await all('WARN', { glob: 'docs/big.log.txt' })).matches.map(key);
    expect(whole.length).toBeGreaterThan(250);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const r = await searchTree(real, { pattern: 'WARN', glob: 'docs/big.log.txt', maxMatches: 100, cursor, bigFileBytes: BIG });
      seen.push(...r.matches.map(key));
      if (!r.truncated) break;
      cursor = r.nextCursor!;
    }
    expect(seen.slice(0, 10_000)).toEqual(whole);
  });

  it('refuses a malformed cursor', async () => {
    for (const cursor of ['nope', '/etc/passwd:0', '../x:0', 'a:-1']) {
      await expect(searchTree(real, { pattern: 'x', cursor })).rejects.toMatchObject({ code: 'invalid_input' });
    }
  });
});

describe('the time budget', () => {
  it('stops a regex that backtracks without limit and says where to resume (timeout with next_cursor)', async () => {
    const dir = tmp.path('slow');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.txt'), 'fine\n');
    writeFileSync(join(dir, 'b.txt'), 'a'.repeat(40) + 'b\n');
    const started = performance.now();
    const err = await searchTree(realpathSync(dir), { pattern: '(a+)+\\1$', timeoutMs: 500 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'timeout', details: { budget_ms: 500, next_cursor: expect.stringMatching(/^[ab]\.txt:0$/) } });
    expect(performance.now() - started).toBeLessThan(budgetMs(5000));
    // The worker stuck in the regex was stopped: the pool answers the next search at once.
    const next = await searchTree(realpathSync(dir), { pattern: 'fine', timeoutMs: 5000 });
    expect(next.matches.map((m) => m.path)).toEqual(['a.txt']);
  });
});

describe('the version of each file searched', () => {
  it('a file changed over a second before the search, and one changed just now, both get the etag a stat gives', async () => {
    const dir = tmp.path('versions');
    mkdirSync(dir);
    writeFileSync(join(dir, 'old.txt'), 'needle one\n');
    // Settled: its ctime over a second before the search (the worker then trusts one fstat).
    const ctime = statRegularFile(join(dir, 'old.txt')).ctimeNs;
    await expect.poll(() => BigInt(Date.now() - 1100) * 1_000_000n > BigInt(ctime), { timeout: 10_000, interval: 100 }).toBe(true);
    writeFileSync(join(dir, 'new.txt'), 'needle two\n'); // just now: read again between two fstats
    for (const threads of [0, 2]) {
      const r = await searchTree(realpathSync(dir), { pattern: 'needle', threads, timeoutMs: 60_000 });
      expect(r.files.map((f) => [f.path, f.etag])).toEqual(['new.txt', 'old.txt'].map((f) => [f, etagOf(statRegularFile(join(dir, f)))]));
    }
  });
});
