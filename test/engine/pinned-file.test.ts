/**
 * The pin's own promise, hammered without the MCP door in between: while another
 * process swaps a file for a hard link to a file outside the root and back, as fast
 * as it can, a pin of the file's checked path is either refused or reads the file
 * inside. Removing a name drops the link count before the name leaves the kernel's
 * name cache (which /proc/self/fd reads), so without the wait in pinned-file.ts a pin
 * could take the count after the drop and the path before the name left. Beside a
 * CPU hog, this loop then read the outside file in 1 to 7 of 100,000 to 300,000
 * pins, a raw open/fstat/readlink loop in 432 of 1,032,682, and
 * test/mcp/root-race.test.ts once in 1,500 calls.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FolioError } from '../../src-main/engine/errors.ts';
import { HAS_PROC_FD, pinFile, releasePins } from '../../src-main/engine/index/pinned-file.ts';
import { tempDir } from '../fixtures/generate.ts';
import { stopAttacker, swapHardLink } from '../fixtures/path-attacker.ts';

const tmp = tempDir('folio-pin-');
afterAll(() => {
  releasePins();
  tmp.cleanup();
});

const PINS = Number(process.env.FOLIO_PIN_RACE ?? (process.env.FOLIO_DEEP ? 1_000_000 : 60_000));

describe.skipIf(!HAS_PROC_FD)('pinning a file swapped for a hard link to a file outside', () => {
  it(`none of ${PINS} pins reads the file outside`, { timeout: 300_000 }, async () => {
    mkdirSync(tmp.path('ws'));
    mkdirSync(tmp.path('out'));
    const file = join(tmp.path('ws'), 'g.txt');
    writeFileSync(file, 'inside\n');
    writeFileSync(tmp.path('out/f.txt'), 'OUTSIDE\n');
    const attacker = swapHardLink(file, tmp.path('out/f.txt'));
    let inside = 0;
    let refused = 0;
    const leaks: string[] = [];
    try {
      for (let i = 0; i < PINS; i++) {
        let pin;
        try {
          pin = pinFile(file);
        } catch (err) {
          if (!(err instanceof FolioError)) throw err;
          expect(['permission_denied', 'not_found']).toContain(err.code);
          refused++;
          continue;
        }
        try {
          const text = readFileSync(pin.path, 'utf8');
          if (text.startsWith('OUTSIDE')) leaks.push(`pin ${i}: ${pin.path} (${pin.dev}:${pin.ino})`);
          else inside++;
        } finally {
          pin.release();
        }
        // Let the attacker's exit and other events through now and then; the loop itself is synchronous.
        if (i % 10_000 === 0) await new Promise((r) => setImmediate(r));
      }
    } finally {
      await stopAttacker(attacker, file);
    }
    expect(leaks, `${leaks.length} of ${PINS} pins read the outside file (${inside} inside, ${refused} refused): ${leaks.slice(0, 3).join('; ')}`).toEqual([]);
    // The attacker really raced: both outcomes happened.
    expect(inside).toBeGreaterThan(PINS / 100);
    expect(refused).toBeGreaterThan(PINS / 100);
  });
});
