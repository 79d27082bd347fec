/**
 * The suite's own tools: scripts/parallel.mjs (npm test's checks side by side) must
 * fail when any script fails and run them at the same time; scripts/cpu-hog.mjs
 * (npm run test:hog) must really load the cores and hand back its command's status.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killLineChildren, LineChild } from '../fixtures/child-lines.ts';
import { tempDir } from '../fixtures/generate.ts';

const ROOT = join(import.meta.dirname, '../..');
const tmp = tempDir('folio-suite-tools-');
afterAll(() => tmp.cleanup());

function run(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, out: stdout + stderr });
    });
  });
}

/** A package whose scripts wait for each other through marker files: they only end if run side by side. */
function rendezvousPackage(failing: boolean): string {
  const dir = tmp.path(`pkg-${failing ? 'bad' : 'ok'}`);
  const wait = (mine: string, other: string, exit: number) =>
    `node -e "require('fs').writeFileSync('${mine}','');const t=setInterval(()=>{if(require('fs').existsSync('${other}')){clearInterval(t);process.exit(${exit})}},20)"`;
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'p', scripts: { a: wait('a.up', 'b.up', 0), b: wait('b.up', 'a.up', failing ? 3 : 0) } }));
  return dir;
}

describe('scripts/parallel.mjs', () => {
  it('runs the scripts side by side and passes when all pass', async () => {
    const r = await run([join(ROOT, 'scripts/parallel.mjs'), 'a', 'b'], rendezvousPackage(false));
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('npm run a: ok');
    expect(r.out).toContain('all passed');
  });

  it('fails with the failing script named when one fails, after the others ended', async () => {
    const r = await run([join(ROOT, 'scripts/parallel.mjs'), 'a', 'b'], rendezvousPackage(true));
    expect(r.code, r.out).toBe(3);
    expect(r.out).toMatch(/npm run b: FAILED \(3\)/);
    expect(r.out).toContain('failed: b');
  });
});

describe('scripts/cpu-hog.mjs', () => {
  it('keeps a core busy while its command runs and exits with the command status', async () => {
    // The command measures the hog's CPU time through /proc while it runs.
    const probe = `const fs=require('fs');const ticks=()=>{const s=fs.readFileSync('/proc/'+process.ppid+'/stat','utf8');const f=s.slice(s.lastIndexOf(')')+2).split(' ');return Number(f[11])+Number(f[12])};const a=ticks();setTimeout(()=>{console.log('hog-ticks',ticks()-a);process.exit(7)},3000)`;
    const r = await run([join(ROOT, 'scripts/cpu-hog.mjs'), '--cores', '1', '--', process.execPath, '-e', probe], ROOT);
    expect(r.code, r.out).toBe(7);
    // 3 s of a busy core is ~300 ticks; a loaded machine gives it less (~20 at load 30), an idle hog none.
    expect(Number(/hog-ticks (\d+)/.exec(r.out)?.[1]), r.out).toBeGreaterThanOrEqual(5);
  });
});

describe('children left running by a test', () => {
  it('are SIGKILLed by killLineChildren (run after every file by suite-setup.ts)', async () => {
    const script = tmp.path('forever.mjs');
    writeFileSync(script, "console.log('up'); setInterval(() => {}, 1000);\n");
    const child = new LineChild(script, []);
    expect(await child.next(60_000)).toBe('up');
    expect(await killLineChildren()).toBe(1);
    expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await killLineChildren()).toBe(0);
  });
});
