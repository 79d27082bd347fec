/**
 * Real crashes: a child process (test/fixtures/upsert-crasher.ts) rewrites a
 * > 2 MiB file version after version and is SIGKILLed, once at every fault point
 * of the write (src-main/engine/failpoint.ts: taking the lock, the temp file made,
 * partly and fully written, renamed, done) and a few times at a random moment, for
 * what the named points miss. After every kill the file must be one complete version
 * (the last one done, or the one being written: which one each point must leave is
 * asserted), and the next writer, this process or a fresh one, must break the dead
 * writer's lock at once and clean its temp files.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FailpointName } from '../../src-main/engine/failpoint.ts';
import { closeIndexPools } from '../../src-main/engine/index/builder.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { upsert } from '../../src-main/engine/write/upsert.ts';
import { LineChild } from '../fixtures/child-lines.ts';
import { scaled } from '../fixtures/effort.ts';
import { failpointEnv, killedAt } from '../fixtures/failpoint-child.ts';
import { prng, tempDir } from '../fixtures/generate.ts';
import { nextVersionRequest, versionOf, versionText } from '../fixtures/upsert-crasher.ts';

const CRASHER = join(import.meta.dirname, '../fixtures/upsert-crasher.ts');
/** Kills at a random moment per commit (40 in `npm run test:deep`), beside the named points. */
const RANDOM_KILLS = scaled(4);

/**
 * Every fault point of an upsert, in the order a write reaches them, and what a kill
 * there leaves: the file's version (the old one, or the new one once renamed), a temp
 * file, the dead writer's lock, its private lock file. `lock.breaker-taken` comes right
 * after `lock.taken`: its child finds that dead lock and dies while breaking it.
 */
const POINTS: { point: FailpointName; file: 'old' | 'new'; temp: boolean; lock: boolean; litter: boolean }[] = [
  { point: 'lock.private-written', file: 'old', temp: false, lock: false, litter: true },
  { point: 'lock.taken', file: 'old', temp: false, lock: true, litter: false },
  { point: 'lock.breaker-taken', file: 'old', temp: false, lock: true, litter: true },
  { point: 'write.temp-created', file: 'old', temp: true, lock: true, litter: false },
  { point: 'write.temp-partial', file: 'old', temp: true, lock: true, litter: false },
  { point: 'write.temp-synced', file: 'old', temp: true, lock: true, litter: false },
  { point: 'write.renamed', file: 'new', temp: false, lock: true, litter: false },
  { point: 'write.done', file: 'new', temp: false, lock: true, litter: false },
];

const tmp = tempDir('folio-crash-');
afterAll(async () => {
  await closeIndexPools();
  tmp.cleanup();
});

type CrasherMessage = { ready: number } | { attempt: number } | { done: number; leftovers: string[]; notes: string[] } | { corrupt: true };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The workspace of one crash run: the versioned file, its directory and what a dead writer may leave there. */
function workspace(name: string) {
  const dir = tmp.path(name);
  mkdirSync(dir);
  const file = join(dir, 'versions.txt');
  const base = basename(file);
  writeFileSync(file, versionText(0));
  return {
    file,
    env: { ...process.env, FOLIO_CACHE_DIR: tmp.path(`cache-${name}`) },
    isTemp: (n: string) => n.startsWith(`.${base}.folio-tmp-`),
    isLock: (n: string) => n === `.${base}.folio-lock`,
    // A writer killed while taking the lock leaves the private file it links into place;
    // one killed while breaking a dead writer's lock leaves its breaker file.
    isLockLitter: (n: string) => (n.startsWith(`.${base}.folio-lock.`) && /\.\d+-\w+$/.test(n)) || n === `.${base}.folio-lock.break`,
    leftovers: () => readdirSync(dir).filter((n) => n !== base),
  };
}
type Workspace = ReturnType<typeof workspace>;

/** Start a crasher on version `k`; it says ready with the version it found. */
async function startCrasher(ws: Workspace, k: number, env: NodeJS.ProcessEnv = ws.env, count?: number): Promise<LineChild> {
  const child = new LineChild(CRASHER, count ? [ws.file, String(count)] : [ws.file], env);
  const first = JSON.parse((await child.next()) ?? 'null') as CrasherMessage;
  expect(first, child.stderr).toEqual({ ready: k });
  return child;
}

/**
 * After the crasher died: its attempts and dones agree, the file is one complete version
 * (the last done or the one in flight), and only a dead writer's files are left. The version.
 */
async function checkAfterKill(ws: Workspace, child: LineChild, k: number, what: string): Promise<{ v: number; inFlight: boolean; left: string[] }> {
  let lastAttempt = -1;
  let lastDone = k;
  for (let line = await child.next(); line !== null; line = await child.next()) {
    const msg = JSON.parse(line) as CrasherMessage;
    if ('attempt' in msg) {
      expect(msg.attempt).toBe(lastDone + 1);
      lastAttempt = msg.attempt;
    } else if ('done' in msg) {
      expect(msg.done).toBe(lastAttempt);
      // The crasher is the only writer: after its upsert nothing else may be there.
      expect(msg.leftovers, `after version ${msg.done}`).toEqual([]);
      lastDone = msg.done;
    }
  }
  const bytes = readFileSync(ws.file);
  const v = versionOf(bytes);
  expect(v, `${what}: the file (${bytes.length} bytes) is not one complete version`).not.toBeNull();
  const inFlight = lastAttempt > lastDone;
  expect(inFlight ? [lastDone, lastAttempt] : [lastDone], `${what}: version ${v}`).toContain(v);
  const left = ws.leftovers();
  expect(
    left.every((n) => ws.isTemp(n) || ws.isLock(n) || ws.isLockLitter(n)),
    left.join(', '),
  ).toBe(true);
  return { v: v!, inFlight, left };
}

/**
 * The next writer after a kill at version `k`: this process (`inProcess`) or a fresh
 * crasher, which must break the dead lock and remove the temp files. The new version.
 */
async function nextWriter(ws: Workspace, k: number, left: string[], inProcess: boolean, what: string): Promise<number> {
  if (inProcess) {
    const { version } = await read(ws.file, { mode: 'head', lines: 1 });
    // Succeeding at all proves the dead writer's lock was broken: a lock that is
    // waited out ends in `conflict`, never in a write.
    const res = await upsert(ws.file, nextVersionRequest(k, 'ifMatch', version.etag));
    if (left.some(ws.isTemp)) expect(res.notes.join(' ')).toContain('temp file');
  } else {
    const child = await startCrasher(ws, k, ws.env, 1);
    expect(JSON.parse((await child.next())!)).toEqual({ attempt: k + 1 });
    const done = JSON.parse((await child.next())!) as { done: number; leftovers: string[]; notes: string[] };
    expect((await child.closed).code, child.stderr).toBe(0);
    expect(done.done).toBe(k + 1);
    expect(done.leftovers).toEqual([]);
    if (left.some(ws.isTemp)) expect(done.notes.join(' ')).toContain('temp file');
  }
  expect(ws.leftovers(), `after ${what} (left: ${left.join(', ')}), ${inProcess ? 'this process' : 'a fresh one'} wrote`).toEqual([]);
  expect(readFileSync(ws.file).equals(Buffer.from(versionText(k + 1)))).toBe(true);
  return k + 1;
}

describe('upsert when its process is SIGKILLed mid-write', () => {
  it(
    'at every fault point: the file is the old or the new version as the point says, and the next writer breaks the dead lock and removes the temp files',
    { timeout: 120_000 },
    async () => {
      const ws = workspace('points');
      let k = 0;
      for (const [i, want] of POINTS.entries()) {
        const child = await startCrasher(ws, k, failpointEnv(ws.env, want.point));
        await killedAt(child, want.point);
        const { v, inFlight, left } = await checkAfterKill(ws, child, k, want.point);
        expect(inFlight, `${want.point}: the kill came before the upsert began`).toBe(true);
        expect(v, `${want.point}: the file`).toBe(want.file === 'old' ? k : k + 1);
        const seen = { temp: left.some(ws.isTemp), lock: left.some(ws.isLock), litter: left.some(ws.isLockLitter) };
        expect(seen, `${want.point} left ${left.join(', ')}`).toEqual({ temp: want.temp, lock: want.lock, litter: want.litter });
        k = v;
        // The dead lock of lock.taken is what the next point's child breaks.
        if (want.point !== 'lock.taken') k = await nextWriter(ws, k, left, i % 2 === 0, want.point);
      }
    },
  );

  it(
    'at random moments: the file is one complete version after every kill, and the next writer recovers',
    { timeout: 300_000 }, // generous: a loaded machine (CPU hog at load 17) is many times slower
    async () => {
      const ws = workspace('random');
      const rand = prng(20260123);
      let k = 0;
      let firstUpsertMs = 150; // from ready to the first done, a moving average
      for (let kill = 1; kill <= RANDOM_KILLS; kill++) {
        const child = await startCrasher(ws, k);
        // Kills spread over 0 to 1.5 times the first upsert's length land in any phase of it,
        // and in the next ones.
        const readyAt = performance.now();
        let doneAt: number | undefined;
        child.proc.stdout.on('data', (d: Buffer) => {
          if (doneAt === undefined && d.includes('"done"')) doneAt = performance.now();
        });
        await sleep(rand() * 1.5 * firstUpsertMs);
        child.proc.kill('SIGKILL');
        const exit = await child.exited;
        if (doneAt !== undefined) firstUpsertMs = 0.8 * firstUpsertMs + 0.2 * (doneAt - readyAt);
        expect(exit.signal, `the crasher ended by itself: ${child.stderr}`).toBe('SIGKILL');
        const { v, left } = await checkAfterKill(ws, child, k, `kill ${kill}`);
        k = await nextWriter(ws, v, left, kill % 2 === 0, `kill ${kill}`);
      }
    },
  );
});
