/**
 * The review journal when its process is SIGKILLed (test/fixtures/journal-kill-loop.ts):
 * approve, undo, redo and a person's own edit journaled as a record (as `folio
 * upsert` does, review/applied-log.ts) are killed at random moments and right after the file
 * changed, before the journal commit. Every time the file must be old or new and
 * the journal must agree with it once the next writer reconciled, and the next
 * approve / undo / redo must work. This bounded form uses small files; the full
 * form (64 MiB files, >= 200 kills) is `npm run bench -- crash`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeIndexPools } from '../../src-main/engine/index/builder.ts';
import { scaled } from '../fixtures/effort.ts';
import { tempDir } from '../fixtures/generate.ts';
import { journalKillLoop } from '../fixtures/journal-kill-loop.ts';

// 8 kills per family per commit (80 in `npm run test:deep`): each kill is a fresh child
// (~1 s to start on these 2-core machines), and 20 took 2.6 of CI's minutes; two thirds of
// the kills wait for the file to change and land between the write and the journal commit.
// The bench keeps 70 per family on 64 MiB.
const KILLS = Number(process.env.FOLIO_JOURNAL_KILLS) || scaled(8);
const FILE_BYTES = 256 * 1024;

const tmp = tempDir('folio-journal-crash-');
afterAll(async () => {
  await closeIndexPools();
  tmp.cleanup();
});

describe('review journal when its process is SIGKILLed mid-decision', () => {
  for (const [i, family] of (['approve', 'undo', 'redo', 'own'] as const).entries()) {
    it(`${family}: after every kill the file is old or new, the journal agrees with it, and the next step works`, { timeout: 180_000 }, async () => {
      const stats = await journalKillLoop({ dir: tmp.dir, family, fileBytes: FILE_BYTES, kills: KILLS, seed: 4242 + i });
      process.stderr.write(`journal-crash: ${JSON.stringify(stats)}\n`);
      expect(stats.torn, stats.firstProblem ?? '').toBe(0);
      expect(stats.disagreements, stats.firstProblem ?? '').toBe(0);
      expect(stats.kills).toBe(KILLS);
      // Some kills must have split the write from the commit, or the test proved little.
      expect(stats.betweenWriteAndCommit, JSON.stringify(stats)).toBeGreaterThan(0);
    });
  }
});
