/**
 * One cold index build in a fresh process, for the scale rows of `npm run bench --
 * index` (bench/index.bench.ts): `node --import tsx bench/index-scale-child.ts FILE`.
 * Prints one JSON line: how soon line 1,000 was located while the build ran, the
 * build's time, its index memory and newline count, and the process's peak RSS.
 * The index is never saved or loaded from a cache (FOLIO_CACHE_DIR is a fresh one).
 */
import { availableParallelism } from 'node:os';
import { closeIndexPools, startBuild } from '../src-main/engine/index/builder.ts';

const file = process.argv[2];
if (!file) throw new Error('usage: index-scale-child.ts FILE');
const t = performance.now();
const build = startBuild(file, { threads: availableParallelism() });
build.index.lineStart(1000);
const firstLineMs = performance.now() - t;
const index = await build.done;
const buildMs = performance.now() - t;
await closeIndexPools();
process.stdout.write(
  JSON.stringify({ firstLineMs, buildMs, memoryBytes: index.memoryBytes, newlines: index.newlines, maxRssBytes: process.resourceUsage().maxRSS * 1024 }) + '\n',
);
