/**
 * A vitest run that is SIGKILLed leaves nothing behind (test/fixtures/reaper.ts): no
 * worker, no child a test started, no PostgreSQL, no temp dir. A vitest of its own
 * runs a victim file (fixtures/reaper-victim.vt.ts) that takes the run's PostgreSQL,
 * starts a child and makes a temp dir; this test kills that vitest with SIGKILL, so
 * no teardown or afterAll runs, and waits for the marked processes to go.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { tempDir } from '../fixtures/generate.ts';
import { processesMarked } from '../fixtures/marked-processes.mjs';
import { RUN_MARK_ENV } from '../fixtures/reaper.ts';
import { RUN_DIR_ENV } from '../fixtures/run-dir.ts';

const tmp = tempDir('folio-reaper-');
afterAll(() => tmp.cleanup());

const envOf = (pid: number, name: string): string | undefined =>
  readFileSync(`/proc/${pid}/environ`, 'latin1')
    .split('\0')
    .find((e) => e.startsWith(`${name}=`));

/** Resolves when `check` holds, checking as often as the machine lets; rejects after `limitMs`. */
async function until(check: () => boolean, limitMs: number, what: () => string): Promise<void> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > limitMs) throw new Error(`not within ${limitMs} ms: ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('a SIGKILLed run leaves no worker, child, PostgreSQL or temp dir behind', async () => {
  const ready = tmp.path('ready.json');
  const { [RUN_MARK_ENV]: _m, [RUN_DIR_ENV]: _d, FOLIO_TEST_SERVERS: _s, ...env } = process.env;
  const vitest = join(createRequire(import.meta.url).resolve('vitest/package.json'), '..', 'vitest.mjs');
  const run = spawn(process.execPath, [vitest, 'run', '--config', 'test/fixtures/reaper-vitest.config.ts'], {
    env: { ...env, REAPER_VICTIM_READY: ready },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => run.once('exit', resolve));
  let mark: string | undefined;
  try {
    await until(
      () => existsSync(ready) && readFileSync(ready, 'utf8').endsWith('}'),
      240_000,
      () => 'the victim did not get ready',
    );
    const victim = JSON.parse(readFileSync(ready, 'utf8')) as { worker: number; child: number; pgDir: string; tmp: string };
    mark = envOf(victim.child, RUN_MARK_ENV);
    expect(mark, 'the run marks what its tests start').toBeDefined();
    const before = processesMarked(mark!);
    // The marker reaches each kind of process: the worker, the test's child, PostgreSQL.
    expect(before.some((p) => p.startsWith(`${victim.worker} `))).toBe(true);
    expect(before.some((p) => p.startsWith(`${victim.child} `))).toBe(true);
    expect(
      before.some((p) => /postgres/.test(p)),
      before.join('\n'),
    ).toBe(true);
    expect(existsSync(victim.pgDir) && existsSync(victim.tmp)).toBe(true);

    run.kill('SIGKILL');
    await exited;
    await until(
      () => processesMarked(mark!).length === 0,
      60_000,
      () => `still running:\n${processesMarked(mark!).join('\n')}`,
    );
    await until(
      () => !existsSync(victim.pgDir) && !existsSync(victim.tmp),
      60_000,
      () => `left: ${victim.pgDir} ${victim.tmp}`,
    );
  } finally {
    run.kill('SIGKILL');
    if (mark) processesMarked(mark, { kill: true }); // a failure above leaves no orphan either
  }
});
