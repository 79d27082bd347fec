/**
 * A runaway regex never blocks `folio mcp` (stdio, real SDK client): a
 * backreference blow-up runs in a worker and answers a `timeout` error within the
 * budget (FOLIO_SEARCH_TIMEOUT_MS in the child's env), other calls on the same
 * connection answer meanwhile, and afterwards the server uses no CPU (no worker
 * left spinning).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';
import { budgetMs } from '../fixtures/load.ts';

const tmp = tempDir('folio-mcp-search-timeout-');
const ws = tmp.path('ws');
const RUNAWAY = 'a'.repeat(40) + '!';
const BUDGET_MS = 2000;
let mcp: McpSession;
let savedBudget: string | undefined;

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'small.txt'), `hello\n${RUNAWAY}\n`);
  writeLogFile(join(ws, 'big.log'), 9 * 1024 * 1024, 9);
  appendFileSync(join(ws, 'big.log'), `${RUNAWAY}\n`);
  // connectStdio passes this process's env to the child.
  savedBudget = process.env.FOLIO_SEARCH_TIMEOUT_MS;
  process.env.FOLIO_SEARCH_TIMEOUT_MS = String(BUDGET_MS);
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache') });
});
afterAll(async () => {
  if (savedBudget === undefined) delete process.env.FOLIO_SEARCH_TIMEOUT_MS;
  else process.env.FOLIO_SEARCH_TIMEOUT_MS = savedBudget;
  await mcp?.close();
  tmp.cleanup();
});

/** CPU ticks (10 ms) the process `pid` has used so far (Linux /proc). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

describe('folio mcp search with a runaway regex', () => {
  it('answer timeout within the budget while a concurrent file_info answers within 1 s', async () => {
    await mcp.call('file_info', { path: 'small.txt' }); // warm: the timed call measures waiting, not first loads
    const started = performance.now();
    let searchDone = false;
    const search = mcp.call('search', { path: 'small.txt', pattern: '(a+)+\\1$' }).finally(() => (searchDone = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const infoStarted = performance.now();
    const info = await mcp.call('file_info', { path: 'small.txt' });
    const infoMs = performance.now() - infoStarted;
    expect(info.isError, info.text).toBe(false);
    expect(info.body).toMatchObject({ lines: 2 });
    expect(searchDone).toBe(false); // file_info really ran while the search was running
    expect(infoMs).toBeLessThan(budgetMs(1000));
    const s = await search;
    const searchMs = performance.now() - started;
    expect(s.isError).toBe(true);
    expect(s.body.error).toMatchObject({ code: 'timeout', budget_ms: BUDGET_MS, bytes_scanned: 0, lines_scanned: 0, matches_found: 0 });
    expect(searchMs).toBeGreaterThanOrEqual(BUDGET_MS - 100);
    expect(searchMs).toBeLessThan(BUDGET_MS + budgetMs(10_000));
    // The server still searches.
    const ok = await mcp.call('search', { path: 'small.txt', pattern: '^hel+o$' });
    expect(ok.body.matches.map((m: { line: number }) => m.line)).toEqual([1]);
  });

  it.runIf(existsSync('/proc/self/stat'))('time out on a big file (> 8 MiB) and leave no worker spinning in the server', async () => {
    const pid = (mcp.client.transport as StdioClientTransport).pid!;
    const s = await mcp.call('search', { path: 'big.log', pattern: 'ERROR|(a+)+\\1$', count_only: true });
    expect(s.isError, s.text).toBe(true);
    expect(s.body.error).toMatchObject({ code: 'timeout', budget_ms: BUDGET_MS });
    expect(s.body.error.matches_found).toBeGreaterThan(0);
    const before = cpuTicks(pid);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    // A spinning worker would add ~200 ticks here (tens even on a loaded machine); an idle server about none.
    expect(cpuTicks(pid) - before).toBeLessThan(10);
  });
});
