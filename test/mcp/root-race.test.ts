/**
 * Check-then-use: while an attacker process swaps a directory of the path for a
 * symlink to a folder outside the root, again and again, an agent reads the file
 * through `folio mcp` (the real SDK client). Every read must answer the file inside
 * the root or an error: never the file outside. Before the guard pinned what it
 * opened (api/agent/pinned-file.ts), reads landed outside (an adversarial run saw
 * 91 of 4,000).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-race-');
const ws = tmp.path('ws');
const outside = tmp.path('outside');
const READS = 1500;
let mcp: McpSession;
let attacker: ChildProcess | undefined;

// Flip ws/d between the real folder and a symlink to the outside one, as fast as it can.
const ATTACK = `
const fs = require('node:fs');
const [d, real, out] = process.argv.slice(1);
for (;;) {
  try { fs.renameSync(d, real); fs.symlinkSync(out, d); fs.unlinkSync(d); fs.renameSync(real, d); } catch {}
}`;

beforeAll(async () => {
  mkdirSync(join(ws, 'd'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  // Same name, same size: only the content tells which file a read reached.
  writeFileSync(join(ws, 'd/f.txt'), 'inside-the-root-0001\n'.repeat(50));
  writeFileSync(join(outside, 'f.txt'), 'OUTSIDE-THE-ROOT-001\n'.repeat(50));
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache') });
});
afterAll(async () => {
  attacker?.kill('SIGKILL');
  await mcp?.close();
  tmp.cleanup();
});

describe('a directory swapped for a symlink while an agent reads', () => {
  it(`never lets ${READS} reads, searches and file_info calls reach the file outside the root`, { timeout: 120_000 }, async () => {
    attacker = spawn(process.execPath, ['-e', ATTACK, join(ws, 'd'), join(ws, 'd.real'), outside], { stdio: 'ignore' });
    let inside = 0;
    let leaked = 0;
    let refused = 0;
    for (let i = 0; i < READS; i++) {
      const tool = i % 3 === 0 ? 'read' : i % 3 === 1 ? 'search' : 'file_info';
      const args = tool === 'read' ? { path: 'd/f.txt', head: 3 } : tool === 'search' ? { path: 'd/f.txt', pattern: 'ROOT|root', max: 2 } : { path: 'd/f.txt' };
      const r = await mcp.call(tool, args);
      if (r.text.includes('OUTSIDE')) leaked++;
      else if (r.isError) refused++;
      else inside++;
      if (!r.isError && r.body.path !== undefined) expect(r.body.path, r.text).toBe(join(realpathSync(ws), 'd/f.txt'));
    }
    attacker.kill('SIGKILL');
    expect(leaked, `${leaked} of ${READS} calls answered the file outside the root (${inside} inside, ${refused} refused)`).toBe(0);
    expect(inside).toBeGreaterThan(0);
  });
});
