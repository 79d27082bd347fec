/**
 * Index threads of a command someone waits for run at normal priority; only
 * background indexing (the app's doors: BuildOptions.background or
 * indexInBackground) runs at nice 10. Read from /proc: each thread's nice value
 * (field 19 of /proc/self/task/TID/stat). Pool workers stay alive after a build, so
 * they are there to look at once it is done.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIndex, closeIndexPools } from '../../src-main/engine/index/builder.ts';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';

const tmp = tempDir('folio-index-priority-');
afterAll(async () => {
  await closeIndexPools();
  tmp.cleanup();
});

/** Nice value of every thread of this process (its main thread's first). */
function threadNiceness(): number[] {
  const tids = readdirSync('/proc/self/task').sort((a, b) => (a === String(process.pid) ? -1 : b === String(process.pid) ? 1 : 0));
  return tids.flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces) in parentheses: nice is field 19.
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // the thread ended
    }
  });
}

describe.runIf(process.platform === 'linux')('index thread priority', () => {
  const file = tmp.path('app.log');
  writeLogFile(file, 2 * 1024 * 1024, 4);

  it('index a file for a waiting caller at normal priority', async () => {
    await closeIndexPools();
    await buildIndex(file, { threads: 2, smallFileBytes: 0 });
    const [main, ...others] = threadNiceness();
    expect(others.filter((n) => n !== main)).toEqual([]);
  });

  it('index in the background at nice 10', async () => {
    await closeIndexPools();
    await buildIndex(file, { threads: 2, smallFileBytes: 0, background: true });
    expect(threadNiceness().slice(1)).toContain(10); // setpriority: nice 10, not +10
  });
});
