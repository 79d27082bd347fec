/**
 * `folio` on compressed logs, against the system tools: `folio read x.log.gz
 * --lines A-B` prints what `zcat x.log.gz | sed -n A,Bp` prints, `folio search`
 * what `zcat | grep -n` prints; a CLI killed with SIGKILL mid-decompress (at each
 * phase of the copy's fault points; at a random moment in the deep run) leaves no
 * entry that is trusted, and the next call decompresses afresh (removing the dead
 * temp) and answers right.
 */
import { execSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEEP } from '../fixtures/effort.ts';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const BIN = join(process.cwd(), 'bin/folio.mjs');
const cache = tmp.path('cache');
const decompressedDir = join(cache, 'decompressed');

function folio(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, FOLIO_CACHE_DIR: cache, ...env } });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

const sh = (cmd: string) => execSync(cmd, { maxBuffer: 1 << 28, encoding: 'utf8' });

beforeAll(() => {
  writeLogFile(tmp.path('app.log'), 3 * 1024 * 1024, 11);
  sh(`gzip -1 -c '${tmp.path('app.log')}' > '${tmp.path('app.log.gz')}'`);
  sh(`zstd -q -c '${tmp.path('app.log')}' > '${tmp.path('app.log.zst')}'`);
  sh(`bzip2 -c '${tmp.path('app.log')}' > '${tmp.path('app.log.bz2')}'`);
});

describe('folio on compressed logs', () => {
  for (const [ext, cat] of [
    ['gz', 'zcat'],
    ['zst', 'zstd -dc'],
    ['bz2', 'bzip2 -dc'],
  ] as const) {
    it(`read --lines of .${ext} equals ${cat} | sed -n; search equals ${cat} | grep -n`, () => {
      const file = tmp.path(`app.log.${ext}`);
      for (const [a, b] of [
        [1, 3],
        [12_345, 12_400],
      ] as const) {
        const r = folio(['read', file, '--lines', `${a}-${b}`, '--json']);
        expect(r.status, r.stderr).toBe(0);
        const out = JSON.parse(r.stdout);
        expect(out.path).toBe(file);
        expect(out.content).toBe(sh(`${cat} '${file}' | sed -n '${a},${b}p'`));
      }
      const s = folio(['search', file, 'ERROR \\[auth\\] retry']);
      expect(s.status, s.stderr).toBe(0);
      // Less its trailer ("-- N matching lines").
      expect(s.stdout.replace(/^-- .*\n/m, '')).toBe(sh(`${cat} '${file}' | grep -n 'ERROR \\[auth\\] retry'`));
    });
  }

  it('two processes decompressing the same .gz at once both answer right; one entry is left, no temp', async () => {
    const file = tmp.path('racers.log.gz');
    sh(`cp '${tmp.path('app.log.gz')}' '${file}'`);
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, 'read', file, '--lines', '20000-20002', '--json'], { env: { ...process.env, FOLIO_CACHE_DIR: cache } });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`))));
      });
    const answers = await Promise.all([run(), run()]);
    for (const a of answers) expect(JSON.parse(a).content).toBe(sh(`zcat '${file}' | sed -n '20000,20002p'`));
    expect(readdirSync(decompressedDir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('a write of a .gz exits with binary_file naming it compressed; the file is unchanged', () => {
    const file = tmp.path('app.log.gz');
    const before = statSync(file).mtimeMs;
    const r = folio(['upsert', file, '--replace', '1-1', '--content', 'x', '--if-match', 'any', '--json']);
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('gzip-compressed');
    expect(statSync(file).mtimeMs).toBe(before);
  });

  /** Entries of the decompressed cache. */
  const entries = () => (existsSync(decompressedDir) ? readdirSync(decompressedDir) : []);

  // Killed on purpose at each phase of the copy (src-main/engine/failpoint.ts): the
  // temp holding its first bytes, and the temp whole and fsynced but not renamed.
  for (const [point, ext] of [
    ['decompress.temp-partial', 'gz'],
    ['decompress.temp-synced', 'bz2'],
  ] as const) {
    it(`SIGKILL at ${point} leaves no trusted entry; the next call removes the dead temp and answers as sed`, () => {
      const file = tmp.path(`killed-${point}.log.${ext}`);
      sh(`cp '${tmp.path(`app.log.${ext}`)}' '${file}' && touch -d '2024-01-02 03:04:05' '${file}'`);
      const before = new Set(entries());
      const killed = folio(['read', file, '--lines', '20000-20003'], { FOLIO_FAILPOINT: point });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      expect(killed.stderr).toContain(`failpoint ${point}\n`);
      const fresh = entries().filter((n) => !before.has(n));
      const temps = fresh.filter((n) => n.endsWith('.tmp') && !n.includes('.head.'));
      expect(temps).toHaveLength(1);
      expect(statSync(join(decompressedDir, temps[0]!)).size).toBeGreaterThan(0);
      expect(fresh.filter((n) => !n.endsWith('.tmp') && !n.endsWith('.head'))).toEqual([]);
      const r = folio(['read', file, '--lines', '20000-20003', '--json']);
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).content).toBe(sh(`sed -n '20000,20003p' '${tmp.path('app.log')}'`));
      expect(existsSync(join(decompressedDir, temps[0]!))).toBe(false);
    });
  }

  // And at a moment nobody chose, in the deep run: the JS bzip2 decoder is slow enough
  // (about 10 MB/s) to be caught mid-way in a 24 MiB log (~70 s of a per-commit run).
  it.runIf(DEEP)('SIGKILL mid-decompress leaves no trusted entry; the next call removes the dead temp and answers as zcat | sed', async () => {
    const src = tmp.path('big.log');
    writeLogFile(src, 24 * 1024 * 1024, 12);
    const bz = tmp.path('killed.log.bz2');
    sh(`bzip2 -c '${src}' > '${bz}'`);
    const before = new Set(entries());
    const child = spawn(process.execPath, [BIN, 'read', bz, '--lines', '5-6'], {
      env: { ...process.env, FOLIO_CACHE_DIR: cache, FOLIO_DECOMPRESS_JS: '1' },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    // Wait until its temp holds decompressed bytes, then kill it.
    const tempWithBytes = () => entries().find((n) => n.endsWith('.tmp') && statSync(join(decompressedDir, n)).size > 1_000_000);
    await expect.poll(tempWithBytes, { timeout: 120_000, interval: 20 }).toBeTruthy();
    const temp = tempWithBytes()!;
    child.kill('SIGKILL');
    await exited;
    expect(entries().filter((n) => !before.has(n) && !n.endsWith('.tmp') && !n.endsWith('.head'))).toEqual([]);
    expect(existsSync(join(decompressedDir, temp))).toBe(true);
    const r = folio(['read', bz, '--lines', '200000-200003', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).content).toBe(sh(`bzip2 -dc '${bz}' | sed -n '200000,200003p'`));
    expect(existsSync(join(decompressedDir, temp))).toBe(false);
  });
});
