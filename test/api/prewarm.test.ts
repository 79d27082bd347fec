/**
 * The agent door's prewarm (api/agent-door.ts prewarmAgentDoor): once a client has
 * initialized, the index and search workers are started ahead of the first call,
 * and that call runs on them (no further worker is spawned) with the same answer.
 * Over a real `folio mcp` child: the first search of a big file after initialize
 * answers what grep counts, whether the prewarm is on or off (FOLIO_PREWARM=0).
 */
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { prewarmAgentDoor } from '../../src-main/api/agent-door.ts';
import { closeIndexPools, defaultIndexPool, defaultThreads } from '../../src-main/engine/index/builder.ts';
import { openIndex } from '../../src-main/engine/index/store.ts';
import { closeSearchPools, pool as searchPool, searchFile } from '../../src-main/engine/search/search.ts';
import { connectStdio } from '../fixtures/mcp-client.ts';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';

const tmp = tempDir('folio-prewarm-');
afterAll(async () => {
  await closeSearchPools();
  await closeIndexPools();
  tmp.cleanup();
});

const grepCount = (word: string, file: string) => Number(execFileSync('grep', ['-c', word, file], { encoding: 'utf8' }).trim());

describe('prewarmAgentDoor', () => {
  it('starts the default index and search workers, and the first search runs on them', async () => {
    await closeSearchPools();
    await closeIndexPools();
    const threads = defaultThreads();
    expect(searchPool(threads).spawned).toBe(0);
    expect(defaultIndexPool().spawned).toBe(0);
    await prewarmAgentDoor();
    expect(searchPool(threads).spawned).toBe(threads);
    expect(defaultIndexPool().spawned).toBe(threads);

    const log = tmp.path('big.log');
    writeLogFile(log, 12 * 1024 * 1024, 3);
    const index = await openIndex(log, { noCache: true });
    const r = await searchFile(index, { pattern: 'ERROR', countOnly: true, smallRangeBytes: 0 });
    expect(r.count).toBe(grepCount('ERROR', log));
    expect(searchPool(threads).spawned).toBe(threads);
    expect(defaultIndexPool().spawned).toBe(threads);
  });

  for (const prewarm of ['1', '0']) {
    it(`a fresh folio mcp answers its first search of a big log as grep counts (FOLIO_PREWARM=${prewarm})`, async () => {
      const ws = tmp.path(`ws-${prewarm}`);
      const log = `${ws}/app.log`;
      execFileSync('mkdir', ['-p', ws]);
      writeLogFile(log, 12 * 1024 * 1024, 5);
      const mcp = await connectStdio(ws, { cacheDir: tmp.path(`cache-${prewarm}`), env: { FOLIO_PREWARM: prewarm } });
      try {
        const r = await mcp.call('search', { path: log, pattern: 'ERROR', count_only: true });
        expect(r.body.count).toBe(grepCount('ERROR', log));
      } finally {
        await mcp.close();
      }
    });
  }
});
