/**
 * Matches asked of a big range: the first 4 MiB are searched in the calling thread
 * first (search.ts, HEAD_BYTES), and workers start only when the head does not
 * hold the cap. Either way the answer is the one a single-thread search gives:
 * same lines, same truncation, same cursor.
 */
import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex, closeIndexPools } from '../../src-main/engine/index/builder.ts';
import type { LineIndex } from '../../src-main/engine/index/line-index.ts';
import { closeSearchPools, searchFile } from '../../src-main/engine/search/search.ts';
import { tempDir, writeLogFile } from '../fixtures/generate.ts';

const tmp = tempDir('folio-search-head-');
let index: LineIndex;
beforeAll(async () => {
  const file = tmp.path('app.log');
  writeLogFile(file, 12 * 1024 * 1024, 9);
  appendFileSync(file, 'needle at the end\n'.repeat(3));
  index = await buildIndex(file);
});
afterAll(async () => {
  await closeSearchPools();
  await closeIndexPools();
  tmp.cleanup();
});

describe('search of a big range: the head first', () => {
  for (const [pattern, maxMatches] of [
    ['timeout', 1000], // the head holds them: no worker
    ['timeout', 10_000], // the head does not: workers search the rest
    ['Köln', 100], // sparse: spread over the file
    ['needle', 2], // only past the head, truncated
    ['needle', 5], // only past the head, all of them
  ] as const) {
    it(`answer /${pattern}/ (max ${maxMatches}) like a single-thread search`, async () => {
      const one = await searchFile(index, { pattern, maxMatches, threads: 0 });
      const both = await searchFile(index, { pattern, maxMatches, threads: 2 });
      expect({ ...both, elapsedMs: 0 }).toEqual({ ...one, elapsedMs: 0 });
    });
  }
});
