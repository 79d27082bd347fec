/**
 * A small pool of persistent worker threads running one script: jobs go to an idle
 * worker (or one is spawned, up to `size`, or they queue behind the next one). Workers
 * are ref'd while busy and unref'd while idle, so an idle pool never keeps a CLI
 * process alive. A worker that dies rejects its jobs and is replaced on next use; one
 * terminated for a runaway job (`terminate`) rejects that job only: the others queued
 * on it (another caller's, sent there while it ran) go to another worker.
 *
 * A fresh thread scans its first tens of MiB several times slower while V8 compiles
 * the scan loops; `warm()` spawns every worker and runs a few jobs on each ahead of
 * the first real one (the app's doors do so when a big file is opened,
 * search/warm-workers.ts).
 * Jobs of a foreground pool (search, histogram: someone waits for them) are counted in
 * `foregroundScans`, which background work (the whole-file hash) waits on.
 */
import { Worker } from 'node:worker_threads';

interface Slot {
  worker: Worker;
  busy: number;
  /** warm: has finished its warm-up jobs, or run WARM_AFTER_JOBS real ones; 'warming' while a warm-up runs */
  warm: boolean | 'warming';
  /** real jobs sent to it */
  jobs: number;
  /** ids of the jobs it was terminated for (terminate()); set once it is being terminated */
  condemned?: Set<number>;
}

/** A worker that has run this many real jobs has warmed up by itself (its code is compiled by then). */
const WARM_AFTER_JOBS = 4;

/**
 * [jobs of foreground pools running now, foreground jobs started so far]: shared with
 * background workers (file-facts.ts's hash), which pause while the first is non-zero
 * and until the second has held still for a moment.
 */
export const foregroundScans = new Int32Array(new SharedArrayBuffer(8));

export interface PoolOptions {
  /** someone waits for these jobs: count them in foregroundScans */
  foreground?: boolean;
}

interface Waiting<J, R> {
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
  slot: Slot;
  /** what was posted, to post it again elsewhere if its worker is terminated for another job */
  job: J;
}

/** What a worker posts back: the job id and a result, or a serialized error. */
export interface WorkerReply<R> {
  id: number;
  result?: R;
  error?: { message: string; code?: string } & Record<string, unknown>;
}

export class WorkerPool<J extends object, R> {
  private slots: Slot[] = [];
  private next = 0;
  private seq = 0;
  private waiting = new Map<number, Waiting<J, R>>();

  constructor(
    private readonly size: number,
    private readonly script: URL,
    private readonly workerData: () => unknown,
    private readonly label: string,
    private readonly opts: PoolOptions = {},
  ) {}

  private spawn(): Slot {
    const worker = new Worker(this.script, { workerData: this.workerData() });
    const slot: Slot = { worker, busy: 0, warm: false, jobs: 0 };
    worker.on('message', (msg: WorkerReply<R>) => {
      const w = this.waiting.get(msg.id);
      // Not (or no longer) this worker's: a job moved off it while it was being terminated answers from its new worker.
      if (!w || w.slot !== slot) return;
      this.waiting.delete(msg.id);
      if (--slot.busy === 0) slot.worker.unref();
      if (msg.error) w.reject(Object.assign(new Error(msg.error.message), msg.error));
      else w.resolve(msg.result as R);
    });
    worker.on('error', (err) => this.fail(slot, err));
    worker.on('exit', (code) => this.fail(slot, new Error(`${this.label} worker exited with code ${code}`)));
    worker.unref(); // after the listeners, which ref it again; run() refs it while busy
    return slot;
  }

  private fail(slot: Slot, err: unknown): void {
    this.slots = this.slots.filter((s) => s !== slot);
    for (const [id, w] of this.waiting) {
      if (w.slot !== slot) continue;
      if (slot.condemned && !slot.condemned.has(id)) {
        // Queued behind a runaway job that was stopped: not this job's fault, it runs elsewhere.
        w.slot = this.pick();
        this.post(w.slot, id, w.job);
        continue;
      }
      this.waiting.delete(id);
      w.reject(err);
    }
  }

  /** An idle worker, else a new one (up to `size`), else the next in turn. */
  private pick(): Slot {
    let slot = this.slots.find((s) => s.busy === 0);
    if (!slot && this.slots.length < this.size) this.slots.push((slot = this.spawn()));
    return slot ?? this.slots[this.next++ % this.slots.length]!;
  }

  run(job: J): { id: number; done: Promise<R> } {
    const slot = this.pick();
    const run = this.runOn(slot, job);
    if (++slot.jobs >= WARM_AFTER_JOBS && slot.warm === false) slot.warm = true;
    if (this.opts.foreground) {
      Atomics.add(foregroundScans, 0, 1);
      Atomics.add(foregroundScans, 1, 1);
      const settled = () => {
        if (Atomics.sub(foregroundScans, 0, 1) === 1) Atomics.notify(foregroundScans, 0);
      };
      run.done.then(settled, settled);
    }
    return run;
  }

  private runOn(slot: Slot, job: J): { id: number; done: Promise<R> } {
    const id = ++this.seq;
    const done = new Promise<R>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, slot, job });
      this.post(slot, id, job);
    });
    return { id, done };
  }

  /** Send job `id` to `slot`'s worker, ref'd while it has jobs. */
  private post(slot: Slot, id: number, job: J): void {
    if (slot.busy++ === 0) slot.worker.ref();
    slot.worker.postMessage({ id, ...job });
  }

  /** Workers spawned so far (alive or booting). */
  get spawned(): number {
    return this.slots.length;
  }

  /** Spawn the workers not spawned yet (each boots in its own thread; jobs sent meanwhile wait for it). */
  spawnAll(): void {
    while (this.slots.length < this.size) this.slots.push(this.spawn());
  }

  /** Some worker is yet to be spawned or warmed (and is not warming now). */
  get cold(): boolean {
    return this.slots.length < this.size || this.slots.some((s) => s.warm === false);
  }

  /**
   * Spawn the pool's workers and run warm-up jobs on each cold one, one worker and
   * one job after another (`jobsFor(i)` for the i-th of them); their answers and
   * failures are dropped. A worker whose warm-up was cut short (`stopped` says so of
   * an answer: it gave way to a real job) stays cold, for a later warm-up, and so do
   * the ones after it. Real jobs sent meanwhile queue behind the warm-up's.
   */
  async warm(jobsFor: (i: number) => J[], stopped: (r: R) => boolean = () => false): Promise<void> {
    while (this.slots.length < this.size) this.slots.push(this.spawn());
    const cold = this.slots.filter((s) => s.warm === false);
    cold.forEach((slot) => (slot.warm = 'warming'));
    // One worker at a time: a warm-up takes one core, never both of a 2-core machine
    // from the browser painting the file just opened.
    for (const [i, slot] of cold.entries()) {
      let whole = true;
      for (const job of jobsFor(i)) {
        const r = await this.runOn(slot, job).done.catch(() => null);
        if (r === null || stopped(r)) {
          whole = false;
          break;
        }
      }
      if (slot.warm === 'warming') slot.warm = whole || slot.jobs >= WARM_AFTER_JOBS;
      if (!whole) break; // gave way to a scan: the rest wait for a later warm-up
    }
    for (const slot of cold) if (slot.warm === 'warming') slot.warm = slot.jobs >= WARM_AFTER_JOBS;
  }

  /**
   * Kill the worker running job `id` (a runaway job after an abort): that job (and any
   * other it is terminated for) rejects; jobs of other callers queued on it run on
   * another worker.
   */
  terminate(id: number): void {
    const w = this.waiting.get(id);
    if (!w) return;
    const slot = w.slot;
    const first = !slot.condemned;
    (slot.condemned ??= new Set()).add(id);
    // Out of the pool now: no new job is sent to a worker on its way out.
    this.slots = this.slots.filter((s) => s !== slot);
    if (first) void slot.worker.terminate();
  }

  async close(): Promise<void> {
    const slots = this.slots;
    this.slots = [];
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}

/** Pools of one kind, one per size, created on first use. */
export function poolRegistry<J extends object, R>(script: URL, workerData: () => unknown, label: string, opts: PoolOptions = {}) {
  const pools = new Map<number, WorkerPool<J, R>>();
  return {
    get(size: number): WorkerPool<J, R> {
      let p = pools.get(size);
      if (!p) pools.set(size, (p = new WorkerPool<J, R>(size, script, workerData, label, opts)));
      return p;
    },
    async closeAll(): Promise<void> {
      await Promise.all([...pools.values()].map((p) => p.close()));
      pools.clear();
    },
  };
}
