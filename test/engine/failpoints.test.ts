/**
 * The fault points (src-main/engine/failpoint.ts) are a closed list: each is placed in
 * the code and killed at by a crash test. A point nobody kills at proves nothing; a
 * new point without a test fails here. Also: FOLIO_FAILPOINT kills at the named point
 * only, at its Nth hit, and a name not on the list is refused at start.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAILPOINTS } from '../../src-main/engine/failpoint.ts';

const ROOT = join(import.meta.dirname, '..', '..');

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((n) => ext.test(n))
    .map((n) => join(dir, n));
}

describe('fault points', () => {
  it('each listed point is placed once or more in src-main, and no unlisted one is', () => {
    const calls = filesUnder(join(ROOT, 'src-main'), /\.ts$/).flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/\bfailpoint(?:Armed)?\('([^']+)'\)/g)].map((m) => m[1]!),
    );
    for (const p of FAILPOINTS) expect(calls, p).toContain(p);
    expect(calls.filter((c) => !(FAILPOINTS as readonly string[]).includes(c))).toEqual([]);
  });

  it('each listed point is killed at by a crash test', () => {
    const tests = filesUnder(join(ROOT, 'test'), /\.test\.ts$/).filter((f) => !f.endsWith('failpoints.test.ts'));
    const untested = FAILPOINTS.filter((p) => !tests.some((f) => new RegExp(`'${p.replace('.', '\\.')}(@\\d+)?'`).test(readFileSync(f, 'utf8'))));
    expect(untested, `no test in ${relative(ROOT, join(ROOT, 'test'))} names these points`).toEqual([]);
  });

  const run = (spec: string | undefined, code: string) =>
    spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: ROOT,
      env: { ...process.env, FOLIO_FAILPOINT: spec },
      encoding: 'utf8',
    });
  const HITS = `import { failpoint } from './src-main/engine/failpoint.ts';
for (let i = 1; i <= 3; i++) { console.log('before', i); failpoint('write.renamed'); failpoint('write.done'); }
console.log('end');`;

  it('kills with SIGKILL at the Nth hit of the named point, saying so on stderr, and not elsewhere', () => {
    const r = run('write.done@2', HITS);
    expect(r.signal).toBe('SIGKILL');
    expect(r.stdout).toBe('before 1\nbefore 2\n');
    expect(r.stderr).toBe('failpoint write.done\n');
    expect(run(undefined, HITS).stdout).toContain('end');
  });

  it('refuses an unknown point or a bad hit count at start', () => {
    for (const spec of ['write.nope', 'write.done@0']) {
      const r = run(spec, HITS);
      expect(r.status, spec).not.toBe(0);
      expect(r.signal, spec).toBeNull();
      expect(r.stderr, spec).toContain(`FOLIO_FAILPOINT=${spec}`);
    }
  });
});
