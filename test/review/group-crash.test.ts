/**
 * Several files in one call (review/group.ts) when the process is SIGKILLed: a
 * child edits three ~1 MiB files together again and again (group-crasher.ts) and is
 * killed once at each fault point of a group edit (src-main/engine/failpoint.ts: an
 * intent written, the first file written, the second half written, all written, two
 * of three entries committed), then a few times at random moments, a third of them as soon as
 * the first file changed (between the files' writes). After every kill:
 * - each file is a whole version (never torn);
 * - the journal says which files of the interrupted group were written: as settled
 *   by a reader and once the next writer reconciled, each file's latest entry made
 *   the file as it is, and the latest group's entries are exactly the files it wrote;
 * - the next group edit and an undo / redo of the latest entry still work.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeIndexPools } from '../../src-main/engine/index/builder.ts';
import { etagOf, statRegularFile } from '../../src-main/engine/index/identity.ts';
import { forgetStores, history, redo, storeOf, undo } from '../../src-main/review/index.ts';
import { LineChild } from '../fixtures/child-lines.ts';
import { scaled } from '../fixtures/effort.ts';
import { prng, tempDir } from '../fixtures/generate.ts';
import { failpointEnv, killedAt, type FailpointSpec } from '../fixtures/failpoint-child.ts';
import { fileText, generationOf, GROUP_FILES, PERSON } from '../fixtures/group-crasher.ts';

/**
 * The fault points of one group edit of three files: each file's intent is written and
 * its file written in turn (the Nth hit: the Nth file), then the entries are committed.
 */
const POINTS: FailpointSpec[] = [
  'review.intent-written',
  'write.done', // the first file written, the others not
  'write.temp-partial@2',
  'write.done@3', // all written, nothing committed
  'review.committed@2', // two files' entries committed, the third not
];
// Random kills beside the points: 3 per commit (30 in `npm run test:deep`); 20 random
// kills alone took 51 s of a 2-core CI.
const KILLS = POINTS.length + (Number(process.env.FOLIO_GROUP_KILLS) || scaled(3));
const CRASHER = join(import.meta.dirname, '../fixtures/group-crasher.ts');
const tmp = tempDir('folio-group-crash-');
afterAll(async () => {
  await closeIndexPools();
  tmp.cleanup();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What contradicts the files in the journal (as settled by the files), or null:
 * each file's latest applied entry must have produced the file as it is, and the
 * latest group's entries must be exactly the files at the newest generation.
 */
function disagreementOf(root: string, gens: number[]): string | null {
  const entries = history(root)
    .filter((e) => !e.undone)
    .sort((a, b) => b.applied_seq - a.applied_seq);
  if (!entries.length) return gens.every((g) => g === 0) ? null : `files ${JSON.stringify(gens)} changed but the journal is empty`;
  for (const f of GROUP_FILES) {
    const latest = entries.find((e) => e.path === f);
    const etag = etagOf(statRegularFile(join(root, f)));
    if (latest && latest.last_version.etag !== etag) return `${f}: its latest entry ${latest.id} made ${latest.last_version.etag}, the file is ${etag}`;
  }
  const group = entries[0]!.group;
  if (!group) return `entry ${entries[0]!.id} has no group`;
  const written = entries.filter((e) => e.group?.id === group.id).map((e) => e.path);
  const newest = GROUP_FILES.filter((_, i) => gens[i] === Math.max(...gens));
  if (written.sort().join() !== newest.sort().join())
    return `group ${group.id} has entries for ${written} but the files at v ${Math.max(...gens)} are ${newest}`;
  return null;
}

describe('several files in one call when the process is SIGKILLed', () => {
  it('every file stays a whole version, the journal says which files of the group were written, and undo/redo go on', { timeout: 300_000 }, async () => {
    const root = tmp.path('ws');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(root);
    for (const f of GROUP_FILES) writeFileSync(join(root, f), fileText(0));
    const rand = prng(9117);
    const stats = { kills: 0, split: 0, torn: 0, disagreements: 0, stepsAfter: 0, first: null as string | null };
    const problem = (what: string) => {
      stats.first ??= `kill ${stats.kills}: ${what}`;
    };
    while (stats.kills < KILLS) {
      const point = POINTS[stats.kills];
      const child = new LineChild(CRASHER, [root], point ? failpointEnv(process.env, point) : process.env);
      expect(await child.next(60_000)).toBe('{"ready":true}');
      if (point) await killedAt(child, point);
      const rounds = point ? 0 : 1 + Math.floor(rand() * 3);
      for (let r = 0; r < rounds; r++) {
        const line = await child.next(60_000);
        if (!line?.startsWith('{"attempt"')) break;
        if (r < rounds - 1) await child.next(60_000);
      }
      // Kill: at a random moment of the call, or as soon as the first file (in path order) changed.
      if (point) {
        // dead already, at its point
      } else if (rand() < 1 / 3) {
        const before = statSync(join(root, GROUP_FILES[0]!)).mtimeMs;
        const t0 = Date.now();
        while (statSync(join(root, GROUP_FILES[0]!)).mtimeMs === before && Date.now() - t0 < 5000) await sleep(0);
      } else {
        await sleep(rand() * 60);
      }
      child.proc.kill('SIGKILL');
      await child.exited;
      stats.kills++;
      forgetStores();
      const gens = GROUP_FILES.map((f) => generationOf(readFileSync(join(root, f), 'utf8')));
      if (gens.some((g) => g === null)) {
        stats.torn++;
        problem(`torn file: ${JSON.stringify(gens)}`);
        break;
      }
      const g = gens as number[];
      if (Math.max(...g) !== Math.min(...g)) stats.split++;
      // As a reader (settled view), then as the next writer (a locked no-op reconciles).
      let d = disagreementOf(root, g);
      await storeOf(root).locked(() => undefined);
      d ??= disagreementOf(root, g);
      if (d) {
        stats.disagreements++;
        problem(d);
      }
      // Undo and redo of the latest entry still work, bytes back each time.
      if (stats.kills % 3 === 0 && Math.max(...g) > 0) {
        const latest = history(root)
          .filter((e) => !e.undone)
          .sort((a, b) => b.applied_seq - a.applied_seq)[0]!;
        const file = join(root, latest.path);
        const now = readFileSync(file, 'utf8');
        await undo(root, PERSON, { id: latest.id });
        if (!((generationOf(readFileSync(file, 'utf8')) ?? Infinity) < generationOf(now)!)) problem(`undo of ${latest.id} did not step ${latest.path} back`);
        await redo(root, PERSON, { id: latest.id });
        if (readFileSync(file, 'utf8') !== now) problem(`redo of ${latest.id} did not restore ${latest.path}`);
        stats.stepsAfter++;
      }
    }
    process.stderr.write(`group-crash: ${JSON.stringify(stats)}\n`);
    expect(stats.torn, stats.first ?? '').toBe(0);
    expect(stats.disagreements, stats.first ?? '').toBe(0);
    expect(stats.first).toBeNull();
    expect(stats.kills).toBe(KILLS);
    // Some kills must have landed between the files' writes, or the test proved little.
    expect(stats.split, JSON.stringify(stats)).toBeGreaterThan(0);
  });
});
