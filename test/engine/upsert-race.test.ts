/**
 * Real processes racing real upserts on one file: 8 long-lived children (test/fixtures/upsert-racer.ts)
 * get the same precondition at the same moment, 50 rounds (appends under
 * if_match, line replaces under hashline anchors); the cross-process
 * lock plus the precondition check under it must let exactly one through.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeIndexPools } from '../../src-main/engine/index/builder.ts';
import { read } from '../../src-main/engine/read/read.ts';
import { lineHash } from '../../src-main/engine/text/hashline.ts';
import { upsert } from '../../src-main/engine/write/upsert.ts';
import { LineChild } from '../fixtures/child-lines.ts';
import { tempDir } from '../fixtures/generate.ts';
import { racerLine, type RaceAnswer, type RaceCommand } from '../fixtures/upsert-racer.ts';

const RACERS = 8;
const ROUNDS = 50;
const RACER = join(import.meta.dirname, '../fixtures/upsert-racer.ts');
const HEADER = '# race log\n';

const tmp = tempDir('folio-race-');
afterAll(async () => {
  await closeIndexPools();
  tmp.cleanup();
});

/** `N#HHH` anchors of a hashline read's content. */
function anchorsOf(hashlined: string): string[] {
  return [...hashlined.matchAll(/^(\d+#[0-9a-f]{3})\|/gm)].map((m) => m[1]!);
}

/**
 * A placeholder line for round `round` whose hashline hash differs from every
 * racer's line: anchors are 12-bit hashes, and a collision would let a loser
 * through for a reason that has nothing to do with the race.
 */
function placeholderFor(round: number): string {
  const taken = new Set(Array.from({ length: RACERS }, (_, c) => lineHash(Buffer.from(racerLine(round, c)))));
  for (let salt = 0; ; salt++) {
    const line = `placeholder ${round} salt ${salt}\n`;
    if (!taken.has(lineHash(Buffer.from(line)))) return line;
  }
}

/** The command of round `round`: even rounds append under if_match, odd ones replace a placeholder line under its anchor. */
async function commandFor(file: string, round: number): Promise<RaceCommand> {
  const { version } = await read(file, { mode: 'head', lines: 1 });
  if (round % 2 === 0) return { round, kind: 'append', etag: version.etag };
  const placeholder = placeholderFor(round);
  await upsert(file, { target: { kind: 'append' }, content: placeholder, preconditions: { ifMatch: version.etag } });
  const tail = await read(file, { mode: 'tail', lines: 1 }, { hashlines: true });
  const anchors = anchorsOf(tail.content);
  const total = tail.totalLines!;
  expect(anchors).toEqual([`${total}#${lineHash(Buffer.from(placeholder))}`]);
  return { round, kind: 'replace', start: total, end: total, anchors };
}

describe('upsert under real cross-process races', () => {
  it(
    'lets exactly one of 8 racing processes win each of 50 rounds, with no lost or torn lines and no temp or lock files left',
    { timeout: 90_000 },
    async () => {
      const dir = tmp.path('race');
      mkdirSync(dir);
      const file = join(dir, 'race.log');
      writeFileSync(file, HEADER);
      const env = { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') };
      const racers = Array.from({ length: RACERS }, (_, i) => new LineChild(RACER, [file, String(i)], env));
      try {
        for (const r of racers) expect(await r.next()).toBe('ready');
        const winners: number[] = [];
        const losses = new Map<string, number>();
        for (let round = 0; round < ROUNDS; round++) {
          const cmd = await commandFor(file, round);
          const line = JSON.stringify(cmd);
          for (const r of racers) r.send(line);
          const answers = await Promise.all(racers.map(async (r) => JSON.parse((await r.next()) ?? 'null') as RaceAnswer));
          for (const a of answers) expect(a.round).toBe(round);
          const won = answers.flatMap((a, childId) => (a.won ? [childId] : []));
          expect(won, `round ${round} (${cmd.kind}): winners ${won.join(', ')}`).toHaveLength(1);
          for (const a of answers) {
            if (a.won) continue;
            // conflict would mean a lock wait timed out (15 s): never with rounds this small.
            expect(a.code, `round ${round}: ${a.message}`).toBe('precondition_failed');
            losses.set(a.code, (losses.get(a.code) ?? 0) + 1);
          }
          winners.push(won[0]!);
        }
        expect(losses.get('precondition_failed')).toBe(ROUNDS * (RACERS - 1));
        const expected = HEADER + winners.map((c, round) => racerLine(round, c)).join('');
        expect(readFileSync(file, 'utf8')).toBe(expected);
        expect(readdirSync(dir)).toEqual(['race.log']);
      } finally {
        for (const r of racers) r.proc.stdin.end();
        const exits = await Promise.all(racers.map((r) => r.exited));
        expect(exits.map((e) => e.code)).toEqual(Array(RACERS).fill(0));
      }
    },
  );
});
