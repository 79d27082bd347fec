/**
 * The review journal when its process is SIGKILLed (test/fixtures/journal-kill-loop.ts):
 * approve, undo, redo and a person's own edit journaled as a record (as `folio
 * upsert` does, review/applied-log.ts) are killed at each fault point of a journaled
 * write (src-main/engine/failpoint.ts: the intent written, the file being written or
 * renamed, the file written but the journal not committed, the journal committed but
 * the intent not dropped), then at random moments and right after the file changed.
 * Every time the file must be old or new and
 * the journal must agree with it once the next writer reconciled, and the next
 * approve / undo / redo must work. This bounded form uses small files; the full
 * form (64 MiB files, >= 200 kills) is `npm run bench -- crash`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeIndexPools } from '../../src-main/engine/index/builder.ts';
import { scaled } from '../fixtures/effort.ts';
import { tempDir } from '../fixtures/generate.ts';
import type { FailpointSpec } from '../fixtures/failpoint-child.ts';
import { journalKillLoop } from '../fixtures/journal-kill-loop.ts';

// Random kills per family beside the fault points: 1 per commit (10 in `npm run test:deep`);
// each is a fresh child, and 8 per family (before the points) took 54 s of a 2-core CI.
// Two thirds of them wait for the file to change. The bench keeps 70 per family on 64 MiB.
const KILLS = Number(process.env.FOLIO_JOURNAL_KILLS) || scaled(1);

/**
 * The journal's fault points in every family, and one of the engine's write per family
 * (upsert-crash.test.ts kills at all of them). Undo and redo run after the random kills
 * (a fresh workspace has nothing to undo, the child approves first); a redo child finds
 * nothing to redo (the loop's own steps redid), undoes one (the first hit) and redoes it.
 */
const JOURNAL_POINTS = ['review.intent-written', 'review.before-commit', 'review.committed'] as const;
const ENGINE_POINT = { approve: 'write.temp-partial', undo: 'write.renamed', redo: 'write.temp-synced', own: 'write.done' } as const;
const NTH = { approve: 1, undo: 1, redo: 2, own: 1 } as const;
const FILE_BYTES = 256 * 1024;

const tmp = tempDir('folio-journal-crash-');
afterAll(async () => {
  await closeIndexPools();
  tmp.cleanup();
});

describe('review journal when its process is SIGKILLed mid-decision', () => {
  for (const [i, family] of (['approve', 'undo', 'redo', 'own'] as const).entries()) {
    it(`${family}: after every kill the file is old or new, the journal agrees with it, and the next step works`, { timeout: 180_000 }, async () => {
      const points = [...JOURNAL_POINTS, ENGINE_POINT[family]].map((p): FailpointSpec => (NTH[family] === 1 ? p : `${p}@${NTH[family]}`));
      const stats = await journalKillLoop({ dir: tmp.dir, family, fileBytes: FILE_BYTES, kills: KILLS, seed: 4242 + i, points, randomFirst: KILLS });
      process.stderr.write(`journal-crash: ${JSON.stringify(stats)}\n`);
      // Each point was reached (journalKillLoop checks the child died there) in a write of this family.
      expect(stats.pointKills).toEqual(points.map((point) => ({ point, action: family })));
      expect(stats.torn, stats.firstProblem ?? '').toBe(0);
      expect(stats.disagreements, stats.firstProblem ?? '').toBe(0);
      expect(stats.kills).toBe(KILLS + points.length);
      // Some kills must have split the write from the commit, or the test proved little.
      expect(stats.betweenWriteAndCommit, JSON.stringify(stats)).toBeGreaterThan(0);
    });
  }
});
