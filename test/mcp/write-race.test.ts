/**
 * Check-then-use on the write side: an agent's edits (`--review auto`: applied at
 * once) and appends go through `folio mcp` (the real SDK client) while an attacker
 * process swaps, again and again,
 * - a directory of the path for a symlink to a folder outside the root (the temp
 *   file, the rename, the lock and the append intent would land outside), and
 * - the file itself for a symlink, or a hard link, to a file outside the root (an
 *   append would write outside; a rewrite would copy the outside file's text into
 *   the root, and its diff preview would show it).
 * Nothing outside may change, no file may appear outside, and no answer and no
 * file inside may hold the outside text. The outside files hold the same text as
 * the inside ones where that lets every precondition pass outside too.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { scaled } from '../fixtures/effort.ts';
import { tempDir } from '../fixtures/generate.ts';
import { stopAttacker, swapDirectory, swapFile } from '../fixtures/path-attacker.ts';

const tmp = tempDir('folio-write-race-');
const ws = tmp.path('ws');
const outside = tmp.path('outside');
// 250 calls per commit, 2,500 in `npm run test:deep` (600 took 61 s of a 2-core CI): each
// call is one more chance for the attacker's swap to land between check and use.
const CALLS = scaled(250);
const LATER = '2100-01-01T00:00:00Z'; // a precondition that holds for any file of today
let mcp: McpSession;
let attacker: ChildProcess | undefined;

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n), 'utf8')]));
}

async function agentWrites(path: string, calls: number): Promise<{ applied: number; refused: number; answers: string[] }> {
  let applied = 0;
  let refused = 0;
  const answers: string[] = [];
  for (let i = 0; i < calls; i++) {
    const target = i % 2 ? { append: { at_end: true } } : { insert: { at: 2 } };
    const r = await mcp.call('upsert', { path, target, content: `agent line ${i}`, if_not_modified_since: LATER });
    answers.push(r.text);
    if (r.isError) refused++;
    else applied++;
  }
  return { applied, refused, answers };
}

beforeAll(async () => {
  mkdirSync(join(ws, 'd'), { recursive: true });
  mkdirSync(join(ws, 'e'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(ws, 'd/f.txt'), 'same text on both sides\n'.repeat(40));
  writeFileSync(join(outside, 'f.txt'), 'same text on both sides\n'.repeat(40));
  writeFileSync(join(ws, 'e/g.txt'), 'inside-the-root\n'.repeat(40));
  writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE-THE-ROOT\n'.repeat(40));
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache'), flags: ['--review', 'auto'] });
});
afterEach(() => {
  attacker?.kill('SIGKILL');
  attacker = undefined;
});
afterAll(async () => {
  await mcp?.close();
  tmp.cleanup();
});

describe('an agent writing while an attacker swaps the path', () => {
  it(`a directory swapped for a symlink: ${CALLS} edits and appends change nothing outside the root`, { timeout: 180_000 }, async () => {
    const before = snapshot(outside);
    const mtime = statSync(join(outside, 'f.txt')).mtimeMs;
    attacker = swapDirectory(join(ws, 'd'), outside);
    const { applied, refused } = await agentWrites('d/f.txt', CALLS);
    await stopAttacker(attacker, join(ws, 'd'));
    const after = snapshot(outside);
    expect(Object.keys(after).sort(), 'files appeared outside the root').toEqual(Object.keys(before).sort());
    expect(after, `the file outside the root changed (${applied} applied, ${refused} refused)`).toEqual(before);
    expect(statSync(join(outside, 'f.txt')).mtimeMs).toBe(mtime);
    expect(applied, `only ${applied} of ${CALLS} writes got through: the race test tests little`).toBeGreaterThan(CALLS / 10);
  });

  it(`the file swapped for a symlink or hard link: ${CALLS} edits and appends neither write nor copy the outside file`, { timeout: 180_000 }, async () => {
    const before = snapshot(outside);
    const file = join(ws, 'e/g.txt');
    attacker = swapFile(file, join(outside, 'secret.txt'));
    const { applied, refused, answers } = await agentWrites('e/g.txt', CALLS);
    // Killed between its renames, the attacker would leave g.txt as its link to the outside file.
    await stopAttacker(attacker, file);
    expect(snapshot(outside), `the file outside the root changed (${applied} applied, ${refused} refused)`).toEqual(before);
    const leaks = answers.filter((a) => a.includes('OUTSIDE'));
    expect(leaks.length, `answers showed the outside text: ${leaks[0]?.slice(0, 300)}`).toBe(0);
    // (g.txt.swap is the attacker's own link, left where it was killed.)
    for (const name of readdirSync(join(ws, 'e')).filter((n) => !n.endsWith('.swap'))) {
      const text = readFileSync(join(ws, 'e', name), 'utf8');
      expect(text, `${name} holds the outside text`).not.toContain('OUTSIDE');
    }
    expect(applied, `only ${applied} of ${CALLS} writes got through: the race test tests little`).toBeGreaterThan(CALLS / 10);
    expect(realpathSync(file)).toBe(join(realpathSync(ws), 'e/g.txt'));
  });
});
