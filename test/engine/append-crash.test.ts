/**
 * Appends of tens of MiB, SIGKILLed mid-write (test/fixtures/append-kill-loop.ts):
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
import { tempDir } from '../fixtures/generate.ts';

const KILLS = 16;
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
    const stats = await appendKillLoop({ dir, blockBytes: BLOCK_BYTES, kills: KILLS, seed: 20261124 });
    process.stderr.write(`append-crash: ${JSON.stringify({ ...stats, appendMs: undefined })}\n`);
    expect(stats.torn, stats.firstTorn ?? '').toBe(0);
    // The kills must have hit appends in flight, and some mid-copy, or the test proved little.
    expect(stats.midAppend).toBeGreaterThan(KILLS / 3);
    expect(stats.cutOnDisk, JSON.stringify(stats)).toBeGreaterThan(0);
    expect(stats.nextWrites).toBe(KILLS / 2);
  });
});
