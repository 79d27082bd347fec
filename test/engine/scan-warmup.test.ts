/**
 * What the app's doors do for the first filter and histogram of a big file: the
 * search and histogram workers are spawned and warmed once the file's index is
 * complete (and only in a process that asked for it, as `folio serve` does), and
 * the background SHA-256 of the file waits while a search or histogram runs.
 * Threads are read from /proc (each thread's nice value: field 19 of
 * /proc/self/task/TID/stat).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultThreads } from '../../src-main/engine/index/builder.ts';
import { forgetIndexes, startIndex } from '../../src-main/engine/index/store.ts';
import { foregroundScans } from '../../src-main/engine/index/worker-pool.ts';
import { factsOf } from '../../src-main/engine/read/file-facts.ts';
import { closeHistogramPools, histogramFile, histogramPool } from '../../src-main/engine/search/histogram.ts';
import { closeSearchPools, pool as searchPool, searchFile } from '../../src-main/engine/search/search.ts';
import { warmScanWorkers, warmScanWorkersOnOpen, warmUpSettled } from '../../src-main/engine/search/warm-workers.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { writeLogFile } from '../fixtures/generate.ts';

const tmp = engineTempDir();
afterAll(async () => {
  warmScanWorkersOnOpen(false);
  await Promise.all([closeHistogramPools(), closeSearchPools()]);
});

/** Nice value of every other thread of this process. */
function threadNiceness(): number[] {
  return readdirSync('/proc/self/task')
    .filter((tid) => tid !== String(process.pid))
    .flatMap((tid) => {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
      } catch {
        return []; // the thread ended
      }
    });
}

const threads = () => readdirSync('/proc/self/task').length;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) return false;
    await sleep(20);
  }
  return true;
}

describe.runIf(process.platform === 'linux')('scan workers warmed on open', () => {
  // Past the 64 MiB a file must have to count as big.
  const big = tmp.path('big.log');
  const { lines } = writeLogFile(big, 65 * 1024 * 1024, 7);
  const n = defaultThreads();

  it('an app process spawns and warms both pools once a big file is indexed, once', async () => {
    await Promise.all([closeHistogramPools(), closeSearchPools()]);
    forgetIndexes();
    warmScanWorkersOnOpen(true);
    const before = threads();
    const index = await startIndex(big).done;
    expect(await until(() => !histogramPool(n).cold && !searchPool(n).cold, 60_000)).toBe(true);
    await warmUpSettled();
    expect(threads() - before).toBeGreaterThanOrEqual(2 * n);
    // Opened again (every read does): nothing more is spawned.
    const warmed = threads();
    startIndex(big);
    await warmUpSettled();
    expect(threads()).toBeLessThanOrEqual(warmed);
    // The warm workers answer as before.
    const h = await histogramFile(index, { encoding: 'utf-8' });
    expect(h.lines).toBe(lines);
    const level = await searchFile(index, { pattern: '\\b(?:ERROR|ERR)\\b', countOnly: true });
    expect(level.count).toBe(Number(execFileSync('grep', ['-cwE', 'ERROR|ERR', big]).toString()));
  });

  it('a process that did not ask (the CLI) spawns no scan worker on open', async () => {
    warmScanWorkersOnOpen(false);
    await warmUpSettled(); // a warm-up of the test before, if one is still waiting for quiet, gives up
    await Promise.all([closeHistogramPools(), closeSearchPools()]);
    forgetIndexes();
    await startIndex(big).done;
    await warmUpSettled();
    expect(histogramPool(n).cold).toBe(true);
    expect(searchPool(n).cold).toBe(true);
  });

  it('a warm-up gives way to a running scan, leaves its workers cold, and warms them once called again', async () => {
    await Promise.all([closeHistogramPools(), closeSearchPools()]);
    const index = await startIndex(big).done;
    Atomics.add(foregroundScans, 0, 1); // a scan is running
    try {
      expect(await warmScanWorkers(index)).toBe(false);
      expect(histogramPool(n).cold).toBe(true);
      expect(searchPool(n).cold).toBe(true);
    } finally {
      if (Atomics.sub(foregroundScans, 0, 1) === 1) Atomics.notify(foregroundScans, 0);
    }
    expect(await warmScanWorkers(index)).toBe(true);
    expect(histogramPool(n).cold).toBe(false);
    expect(searchPool(n).cold).toBe(false);
  });

  it('a search over workers counts as a foreground scan while it runs', async () => {
    const index = await startIndex(big).done;
    const started = Atomics.load(foregroundScans, 1);
    const search = searchFile(index, { pattern: 'timeout', countOnly: true, threads: 2 });
    expect(Atomics.load(foregroundScans, 0)).toBe(2);
    await search;
    expect(Atomics.load(foregroundScans, 0)).toBe(0);
    expect(Atomics.load(foregroundScans, 1)).toBe(started + 2);
  });

  it("the background hash of a big file waits while a scan runs, at nice 10, then gives the file's SHA-256", async () => {
    const file = tmp.path('hashed.log');
    writeLogFile(file, 4 * 1024 * 1024, 3);
    const expected = execFileSync('sha256sum', [file]).toString().split(' ')[0];
    Atomics.add(foregroundScans, 0, 1); // a scan is running
    try {
      expect((await factsOf(file)).version.sha256).toBeUndefined(); // too big to hash inline: the hash starts a second later
      // The hash thread has started (at nice 10); given a while to (wrongly) hash on, it still has no digest.
      expect(await until(() => threadNiceness().includes(10), 60_000)).toBe(true);
      await sleep(500);
      expect((await factsOf(file, { hash: false })).version.sha256).toBeUndefined();
    } finally {
      if (Atomics.sub(foregroundScans, 0, 1) === 1) Atomics.notify(foregroundScans, 0);
    }
    const digest = async () => (await factsOf(file, { hash: false })).version.sha256;
    expect(await until(async () => (await digest()) !== undefined, 60_000)).toBe(true);
    expect(await digest()).toBe(expected);
  });
});
