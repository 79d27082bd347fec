/**
 * When V8's regexp flags are set (search/regex-engine.mjs): not on import, not by a
 * read, an upsert or a literal search, but by the first search whose regex could
 * backtrack, and then for the whole process. `new RegExp('a', 'l')` tells whether they
 * are on (the `l` flag is a SyntaxError without --enable-experimental-regexp-engine).
 * Each check runs in a fresh process, as the flags cannot be unset.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { engineTempDir } from '../fixtures/engine-env.ts';

const tmp = engineTempDir();
const api = new URL('../../src-main/api/handle.ts', import.meta.url).href;
const regexEngine = new URL('../../src-main/engine/search/regex-engine.mjs', import.meta.url).href;

/** Runs an ES module script in a fresh Node (TypeScript through tsx) and returns the lines it printed. */
function runFresh(script: string): string[] {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 120_000, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim().split('\n');
}

const FLAGS_ON = `const flagsOn = () => { try { new RegExp('a', 'l'); return 'on'; } catch (e) { if (!(e instanceof SyntaxError)) throw e; return 'off'; } };`;

describe("V8's regexp flags are set at the first search that needs them", () => {
  it('importing the api and reading, upserting and searching literal text leave them off; a regex search sets them for the process', () => {
    const file = tmp.path('flags.log');
    writeFileSync(file, `hello\n${'a'.repeat(40)}!\nERROR here\n`);
    const out = runFresh(`
      ${FLAGS_ON}
      const { handle } = await import(${JSON.stringify(api)});
      const HUMAN = { kind: 'human', name: 'flags' };
      const path = ${JSON.stringify(file)};
      console.log('import', flagsOn());
      await handle('read', { path, lines: '1-2' }, HUMAN);
      console.log('read', flagsOn());
      await handle('file_info', { path }, HUMAN);
      console.log('file_info', flagsOn());
      const { version } = await handle('read', { path, lines: '1' }, HUMAN);
      await handle('upsert', { path, target: { replace: { start: 1, end: 1 } }, content: 'hi', if_match: version.etag }, HUMAN);
      console.log('upsert', flagsOn());
      await handle('search', { path, pattern: 'ERROR' }, HUMAN);
      console.log('literal search', flagsOn());
      const r = await handle('search', { path, pattern: '(a+)+$' }, HUMAN);
      console.log('regex search', flagsOn(), r.matches.length);
      process.exit(0);
    `);
    expect(out).toEqual(['import off', 'read off', 'file_info off', 'upsert off', 'literal search off', 'regex search on 0']);
  });

  it('the linearity check sets them before it compiles with the l flag, so its answer never depends on what ran before', () => {
    const out = runFresh(`
      ${FLAGS_ON}
      const { isLinearTimeRegex } = await import(${JSON.stringify(regexEngine)});
      console.log(flagsOn(), isLinearTimeRegex('(a+)+$', ''), isLinearTimeRegex('(a)\\\\1', ''), flagsOn());
    `);
    expect(out).toEqual(['off true false on']);
  });

  it('are per process, not per isolate: set in a worker thread, they hold in the main thread (so they cannot be kept to the search workers)', () => {
    const out = runFresh(`
      ${FLAGS_ON}
      const { Worker } = await import('node:worker_threads');
      console.log(flagsOn());
      const set = "Promise.all([import('node:v8'), import('node:worker_threads')]).then(([v8, wt]) => { v8.setFlagsFromString('--enable-experimental-regexp-engine'); wt.parentPort.postMessage(0); })";
      const w = new Worker(set, { eval: true });
      await new Promise((resolve) => w.once('message', resolve));
      console.log(flagsOn());
      await w.terminate();
    `);
    expect(out).toEqual(['off', 'on']);
  });
});
