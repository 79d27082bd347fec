/**
 * Approvals and undo under a check-then-use race: an agent's proposals (made by
 * the guard, so their paths were checked) are approved, then undone, by a person
 * while an attacker process swaps the file's directory for a symlink to a folder
 * outside the root, or the file for a symlink or hard link to a file outside.
 * The proposal's path was checked when it was made; every write must still land
 * in that file or be refused: nothing outside changes, no file appears outside,
 * and the file inside never takes in the outside text.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isFolioError } from '../../src-main/engine/errors.ts';
import { propose } from '../../src-main/review/proposals.ts';
import { approve } from '../../src-main/review/decisions.ts';
import { undo } from '../../src-main/review/journal.ts';
import { scaled } from '../fixtures/effort.ts';
import { tempDir } from '../fixtures/generate.ts';
import { stopAttacker, swapDirectory, swapFile } from '../fixtures/path-attacker.ts';

// 60 per commit, 600 in `npm run test:deep` (150 took 55 s of a 2-core CI): each approve
// and undo is one more chance for the attacker's swap to land between check and use.
const PROPOSALS = scaled(60);
const LATER = Date.parse('2100-01-01T00:00:00Z');
const agent = { kind: 'agent', name: 'race-agent' } as const;
const person = { kind: 'human', name: 'reviewer' } as const;
const tmp = tempDir('folio-approve-race-');
let attacker: ChildProcess | undefined;
afterEach(() => {
  attacker?.kill('SIGKILL');
  attacker = undefined;
});
afterAll(() => tmp.cleanup());

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n), 'utf8')]));
}

/** Propose PROPOSALS inserts to `rel` (no attacker yet), then approve and undo them all while `attack` runs. */
async function approveUnderAttack(root: string, rel: string, attack: () => ChildProcess): Promise<{ applied: number; undone: number; refused: string[] }> {
  const ids: string[] = [];
  for (let i = 0; i < PROPOSALS; i++) {
    const p = await propose(root, agent, {
      path: join(root, rel),
      target: { kind: 'insert', at: 2, units: 'lines' },
      content: `proposal ${i}\n`,
      preconditions: { ifNotModifiedSince: LATER },
      checked: { allowHardlinks: false },
    });
    ids.push(p.proposal_id);
  }
  attacker = attack();
  await new Promise((r) => setTimeout(r, 50));
  let applied = 0;
  let undone = 0;
  const refused: string[] = [];
  for (const id of ids) {
    try {
      await approve(root, person, id);
      applied++;
    } catch (err) {
      if (!isFolioError(err)) throw err;
      refused.push(err.code);
    }
  }
  for (let i = 0; i < applied; i++) {
    try {
      await undo(root, person, { path: rel, includeOthers: true });
      undone++;
    } catch (err) {
      if (!isFolioError(err)) throw err;
      refused.push(err.code);
    }
  }
  // Killed between its renames, the attacker would leave the file or its folder as its link outside.
  await stopAttacker(attacker, join(root, rel));
  await stopAttacker(attacker, dirname(join(root, rel)));
  return { applied, undone, refused };
}

describe('a person approving and undoing while an attacker swaps the path', () => {
  it(`a directory swapped for a symlink: ${PROPOSALS} approvals and their undos change nothing outside the root`, { timeout: 180_000 }, async () => {
    const ws = tmp.path('ws1');
    const outside = tmp.path('outside1');
    mkdirSync(join(ws, 'd'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(ws, 'd/f.txt'), 'same text on both sides\n'.repeat(30));
    writeFileSync(join(outside, 'f.txt'), 'same text on both sides\n'.repeat(30));
    const before = snapshot(outside);
    const { applied, undone, refused } = await approveUnderAttack(realpathSync(ws), 'd/f.txt', () => swapDirectory(join(ws, 'd'), outside));
    expect(snapshot(outside), `outside changed (${applied} applied, ${undone} undone, refused: ${refused.join(' ')})`).toEqual(before);
    expect(
      refused.every((c) => ['permission_denied', 'not_found', 'conflict', 'precondition_failed'].includes(c)),
      refused.join(' '),
    ).toBe(true);
    expect(applied, `only ${applied} approvals got through`).toBeGreaterThan(PROPOSALS / 10);
  });

  it(
    `the file swapped for a symlink or hard link: ${PROPOSALS} approvals and undos neither write nor copy the outside file`,
    { timeout: 180_000 },
    async () => {
      const ws = tmp.path('ws2');
      const outside = tmp.path('outside2');
      mkdirSync(join(ws, 'e'), { recursive: true });
      mkdirSync(outside);
      writeFileSync(join(ws, 'e/g.txt'), 'inside-the-root\n'.repeat(30));
      writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE-THE-ROOT\n'.repeat(30));
      const before = snapshot(outside);
      const { applied, undone, refused } = await approveUnderAttack(realpathSync(ws), 'e/g.txt', () =>
        swapFile(join(ws, 'e/g.txt'), join(outside, 'secret.txt')),
      );
      expect(snapshot(outside), `outside changed (${applied} applied, ${undone} undone)`).toEqual(before);
      expect(
        refused.every((c) => ['permission_denied', 'not_found', 'conflict', 'precondition_failed'].includes(c)),
        refused.join(' '),
      ).toBe(true);
      for (const name of readdirSync(join(ws, 'e')).filter((n) => n.startsWith('g.txt') && !n.endsWith('.swap'))) {
        expect(readFileSync(join(ws, 'e', name), 'utf8'), `${name} holds the outside text`).not.toContain('OUTSIDE');
      }
      expect(applied, `only ${applied} approvals got through`).toBeGreaterThan(PROPOSALS / 10);
    },
  );
});
