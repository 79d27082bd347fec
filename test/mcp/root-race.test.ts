/**
 * Check-then-use: while an attacker process swaps a directory of the path for a
 * symlink to a folder outside the root, or the file for a symlink or a hard link
 * to a file outside, again and again, an agent reads the file
 * through `folio mcp` (the real SDK client). Every read must answer the file inside
 * the root or an error: never the file outside. Before the guard pinned what it
 * opened (engine/index/pinned-file.ts), reads landed outside (an adversarial run saw
 * 91 of 4,000). The file swap caught the pin taking the link count after the
 * readlink: a hard link swapped out in between passed as a single link.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';
import { swapDirectory, swapFile } from '../fixtures/path-attacker.ts';

const tmp = tempDir('folio-race-');
const ws = tmp.path('ws');
const outside = tmp.path('outside');
const READS = 1500;
let mcp: McpSession;
let attacker: ChildProcess | undefined;

beforeAll(async () => {
  mkdirSync(join(ws, 'd'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  // Same name, same size: only the content tells which file a read reached.
  writeFileSync(join(ws, 'd/f.txt'), 'inside-the-root-0001\n'.repeat(50));
  writeFileSync(join(outside, 'f.txt'), 'OUTSIDE-THE-ROOT-001\n'.repeat(50));
  mkdirSync(join(ws, 'e'), { recursive: true });
  writeFileSync(join(ws, 'e/g.txt'), 'inside-the-root-0001\n'.repeat(50));
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache') });
});
afterEach(() => {
  attacker?.kill('SIGKILL');
  attacker = undefined;
});
afterAll(async () => {
  await mcp?.close();
  tmp.cleanup();
});

async function agentReads(path: string): Promise<{ inside: number; leaked: number; refused: number; first: string }> {
  let inside = 0;
  let leaked = 0;
  let refused = 0;
  // The first call that reached outside, as the agent got it: which tool, an error or not, and its text.
  let first = '';
  for (let i = 0; i < READS; i++) {
    const tool = i % 3 === 0 ? 'read' : i % 3 === 1 ? 'search' : 'file_info';
    const args = tool === 'read' ? { path, head: 3 } : tool === 'search' ? { path, pattern: 'ROOT|root', max: 2 } : { path };
    const r = await mcp.call(tool, args);
    if (r.text.includes('OUTSIDE')) {
      leaked++;
      first ||= `call ${i} (${tool}${r.isError ? ', an error' : ''}): ${r.text.slice(0, 2000)}`;
    } else if (r.isError) refused++;
    else inside++;
    if (!r.isError && r.body.path !== undefined) expect(r.body.path, r.text).toBe(join(realpathSync(ws), path));
  }
  return { inside, leaked, refused, first };
}

describe('a path swapped while an agent reads', () => {
  it(
    `a directory swapped for a symlink: none of ${READS} reads, searches and file_info calls reach the file outside the root`,
    { timeout: 120_000 },
    async () => {
      attacker = swapDirectory(join(ws, 'd'), outside);
      const { inside, leaked, refused, first } = await agentReads('d/f.txt');
      expect(leaked, `${leaked} of ${READS} calls answered the file outside the root (${inside} inside, ${refused} refused); ${first}`).toBe(0);
      expect(inside).toBeGreaterThan(READS / 10);
    },
  );

  it(`the file swapped for a symlink or hard link: none of ${READS} calls reach the file outside the root`, { timeout: 120_000 }, async () => {
    attacker = swapFile(join(ws, 'e/g.txt'), join(outside, 'f.txt'));
    const { inside, leaked, refused, first } = await agentReads('e/g.txt');
    expect(leaked, `${leaked} of ${READS} calls answered the file outside the root (${inside} inside, ${refused} refused); ${first}`).toBe(0);
    expect(inside).toBeGreaterThan(READS / 10);
  });
});
