/**
 * Appends of 1 KiB to 32 MiB by the CLI, SIGKILLed at random moments (half of them
 * aimed at the write itself), each followed by the next process's read, append
 * and read, while a reader child reads all along (test/fixtures/append-kill-families.ts).
 * A few kills per size family here (30 in `npm run test:deep`); `npm run bench -- crash`
 * runs ≥ 200. Each phase of an append is killed on purpose, by its fault point, in
 * append-crash.test.ts: these random kills add the CLI path and a reader beside it.
 */
import { mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { appendKillFamilies, familiesTable } from '../fixtures/append-kill-families.ts';
import { scaled } from '../fixtures/effort.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

// At least 2 per family: with one, no kill at all might land mid-write (asserted below).
const KILLS_PER_FAMILY = Math.max(2, scaled(2));

const tmp = engineTempDir();

describe('the next write after a killed append', () => {
  it('never fails, never doubles an append, and no reader sees a cut line or an internal error', { timeout: 300_000 }, async () => {
    const dir = tmp.path('kills');
    mkdirSync(dir);
    const st = await appendKillFamilies({ dir, kills: KILLS_PER_FAMILY, seed: 20261127, maxFileBytes: 48 * 1024 * 1024 });
    const table = familiesTable(st)
      .map((r) => r.join(' | '))
      .join('\n');
    process.stderr.write(`append-kill-families (${Math.round(st.ms)} ms):\n${table}\n`);
    const problems = Object.values(st.families).flatMap((f) => f.problems);
    expect(problems, table).toEqual([]);
    for (const f of Object.values(st.families)) {
      expect(f.nextWriteFailures + f.duplicatedAppends + f.cutLines + f.internalErrors + f.appliedDespiteError).toBe(0);
    }
    expect(st.reader.internal + st.reader.cutLines, st.reader.firstProblem ?? '').toBe(0);
    expect(st.reader.reads).toBeGreaterThan(0);
    // Some kills must have hit writes in flight (intent written, bytes being copied), or the test proved
    // little; each of those phases is killed on purpose in append-crash.test.ts (fault points).
    const kills = Object.values(st.families).reduce((n, f) => n + f.kills, 0);
    const midWrite = Object.values(st.families).reduce((n, f) => n + (f.phases.intent ?? 0) + (f.phases.copying ?? 0) + (f.phases.copied ?? 0), 0);
    expect(kills).toBeGreaterThanOrEqual(KILLS_PER_FAMILY * 4 * 0.75);
    expect(midWrite).toBeGreaterThanOrEqual(1);
  });
});
