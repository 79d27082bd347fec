/**
 * Appends of tens of MiB, SIGKILLed mid-write (test/fixtures/append-kill-loop.ts), once
 * at each fault point of an append (src-main/engine/failpoint.ts: the intent written,
 * half the bytes copied, all copied before the intent is dropped), then at random moments:
 * the kernel copies a write page by page and stops between pages for a fatal
 * signal, so without the append intent a kill leaves part of the block, cut
 * mid-line. After every kill a reader and the next writer must see whole blocks
 * only: the last one done, or the one in flight. The full form (more kills, bigger
 * blocks) is `npm run bench -- crash`; the CLI kill loop of every append size is
 * append-kill-families.test.ts.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { closeIndexPools } from '../../src-main/engine/index/builder.ts';
import { appendKillLoop } from '../fixtures/append-kill-loop.ts';
import { scaled } from '../fixtures/effort.ts';
import { tempDir } from '../fixtures/generate.ts';

/** Random kills beside the points: 4 per commit (40 in `npm run test:deep`); 16 took 23 s on 2 cores. */
const KILLS = scaled(4);
const POINTS = ['append.intent-written', 'append.half-copied', 'append.copied'] as const;
/** Which points leave part of the append on disk (the intent rolls it back for every reader). */
const CUT = { 'append.intent-written': false, 'append.half-copied': true, 'append.copied': false } as const;
const BLOCK_BYTES = 16 * 1024 * 1024;

const tmp = tempDir('folio-append-crash-');
afterAll(async () => {
  await closeIndexPools();
  tmp.cleanup();
});

describe('append when its process is SIGKILLed mid-write', () => {
  it('a reader and the next writer see whole blocks only (old or new), never a cut append', { timeout: 300_000 }, async () => {
    const dir = tmp.path('appends');
    mkdirSync(dir);
    const stats = await appendKillLoop({ dir, blockBytes: BLOCK_BYTES, kills: KILLS, seed: 20261124, points: [...POINTS] });
    process.stderr.write(`append-crash: ${JSON.stringify({ ...stats, appendMs: undefined })}\n`);
    expect(stats.torn, stats.firstTorn ?? '').toBe(0);
    // Each point was reached (appendKillLoop checks the child died there), mid-append, and
    // left the file on disk as it should: cut by a torn append only.
    expect(stats.pointKills).toEqual(POINTS.map((point) => ({ point, cut: CUT[point] })));
    expect(stats.midAppend).toBeGreaterThanOrEqual(POINTS.length);
    expect(stats.nextWrites).toBe(Math.floor((KILLS + POINTS.length) / 2));
  });
});
