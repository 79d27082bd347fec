/**
 * The worker pool (engine/index/worker-pool.ts) when a runaway job's worker is
 * terminated (a search aborted, its grace over): that job rejects, and a job another
 * caller queued on the same worker meanwhile still gets its answer, from another
 * worker. Under load an e2e run of find-as-you-type saw a keystroke's search fail
 * with "search worker exited with code 0": the previous keystroke's stale job was
 * terminated on a worker still booting (a worker terminated while it boots exits
 * with 0), and the new job queued on it died with it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src-main/engine/index/worker-pool.ts';

type Job = { ms: number; value: string };
type Answer = { value: string; thread: number };
const SCRIPT = new URL('../fixtures/pool-worker.mjs', import.meta.url);
let pool: WorkerPool<Job, Answer> | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('a worker terminated for a runaway job', () => {
  it('while it boots: the runaway rejects, the job queued behind it is answered', async () => {
    pool = new WorkerPool<Job, Answer>(1, SCRIPT, () => null, 'test');
    // One worker: the second job queues behind the first on it.
    const runaway = pool.run({ ms: 60_000, value: 'stale' });
    const queued = pool.run({ ms: 0, value: 'fresh' });
    pool.terminate(runaway.id);
    await expect(runaway.done).rejects.toThrow(/test worker exited/);
    await expect(queued.done).resolves.toMatchObject({ value: 'fresh' });
  });

  it('while it runs: the runaway rejects, the queued job is answered by another thread, and the pool goes on', async () => {
    pool = new WorkerPool<Job, Answer>(1, SCRIPT, () => null, 'test');
    const warm = await pool.run({ ms: 0, value: 'warm' }).done; // booted: the next job runs as soon as it lands
    const runaway = pool.run({ ms: 60_000, value: 'stale' });
    const queued = pool.run({ ms: 0, value: 'fresh' });
    pool.terminate(runaway.id);
    await expect(runaway.done).rejects.toThrow(/test worker exited/);
    const answer = await queued.done;
    expect(answer.value).toBe('fresh');
    expect(answer.thread).not.toBe(warm.thread);
    await expect(pool.run({ ms: 0, value: 'after' }).done).resolves.toMatchObject({ value: 'after', thread: answer.thread });
  });

  it('terminated for two of its jobs: both reject, once', async () => {
    pool = new WorkerPool<Job, Answer>(1, SCRIPT, () => null, 'test');
    const a = pool.run({ ms: 60_000, value: 'a' });
    const b = pool.run({ ms: 60_000, value: 'b' });
    const c = pool.run({ ms: 0, value: 'c' });
    pool.terminate(a.id);
    pool.terminate(b.id);
    await expect(a.done).rejects.toThrow(/exited/);
    await expect(b.done).rejects.toThrow(/exited/);
    await expect(c.done).resolves.toMatchObject({ value: 'c' });
  });
});
