/**
 * `npm run bench -- log [--size 1G] [--runs N]`: the log viewer's engine work on
 * the page-cached synthetic log (ordered ISO stamps), against tools measured in
 * the same run: the histogram of the whole file (in process and `folio
 * histogram` as a process) against awk counting the same per hour and level and
 * against `wc -l` (reading the file once is the floor); the filter view's regex
 * (a level and a term, as the app sends it) counted over the whole file against
 * grep -cE; time_seek's latency and windows read.
 */
import { join } from 'node:path';
import { closeIndexPools } from '../src-main/engine/index/builder.ts';
import { openIndex } from '../src-main/engine/index/store.ts';
import { closeHistogramPools, histogramFile } from '../src-main/engine/search/histogram.ts';
import { closeSearchPools, searchFile } from '../src-main/engine/search/search.ts';
import { timeSeek } from '../src-main/engine/search/time-seek.ts';
import { warmScanWorkers } from '../src-main/engine/search/warm-workers.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, gbps, median, syntheticLog, table, timeCommand, timeMedian, warmPageCache } from './lib.ts';
import { prng } from '../test/fixtures/generate.ts';

const FILTER = '^(?=.*?(?:timeout))(?=.*?(?:\\b(?:ERROR|ERR)\\b))';
/** The level chip alone, as the filter view sends it. */
const LEVEL = '\\b(?:ERROR|ERR)\\b';

export async function benchLog(o: BenchOptions): Promise<void> {
  process.env.FOLIO_CACHE_DIR = join(DATA_DIR, 'cache');
  const file = syntheticLog(o.size);
  warmPageCache(file);
  const index = await openIndex(file);
  const size = index.size;
  const runs = o.runs;
  const cpu0 = process.cpuUsage();
  let last: Awaited<ReturnType<typeof histogramFile>> | null = null;
  const histMs = await timeMedian(runs, async () => {
    last = await histogramFile(index, { encoding: 'utf-8' });
  });
  const cpu = process.cpuUsage(cpu0);
  const cpuMsPerRun = (cpu.user + cpu.system) / 1000 / (runs + 1);
  const h = last!;
  const cli = timeCommand(runs, process.execPath, [join(process.cwd(), 'bin/folio.mjs'), 'histogram', file, '--json']);
  const awk = timeCommand(runs, 'awk', ['{ c[substr($1, 1, 13) " " $2]++ } END { for (k in c) n++; print n }', file]);
  const wc = timeCommand(runs, 'wc', ['-l', file]);

  const filterMs = await timeMedian(runs, () => searchFile(index, { pattern: FILTER, countOnly: true, encoding: 'utf-8' }));
  const filterCount = (await searchFile(index, { pattern: FILTER, countOnly: true, encoding: 'utf-8' })).count;
  const grep = timeCommand(runs, 'grep', ['-cE', '(ERROR|ERR)\\b.*timeout|timeout.*\\b(ERROR|ERR)\\b', file], [0, 1]);
  const levelMs = await timeMedian(runs, () => searchFile(index, { pattern: LEVEL, countOnly: true, encoding: 'utf-8' }));
  const levelCount = (await searchFile(index, { pattern: LEVEL, countOnly: true, encoding: 'utf-8' })).count;
  const grepLevel = timeCommand(runs, 'grep', ['-cwE', 'ERROR|ERR', file], [0, 1]);

  // The app's first histogram / filter of a file: on fresh workers, and on workers the
  // app's doors warmed when the file was opened (warm-workers.ts), each run from new pools.
  const fresh = async () => Promise.all([closeHistogramPools(), closeSearchPools()]);
  const coldHist: number[] = [];
  const warmHist: number[] = [];
  const coldCount: number[] = [];
  const warmCount: number[] = [];
  const warmUps: number[] = [];
  const timed = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  for (let i = 0; i < runs; i++) {
    await fresh();
    coldHist.push(await timed(() => histogramFile(index, { encoding: 'utf-8' })));
    coldCount.push(await timed(() => searchFile(index, { pattern: FILTER, countOnly: true, encoding: 'utf-8' })));
    await fresh();
    warmUps.push(await timed(() => warmScanWorkers(index)));
    warmHist.push(await timed(() => histogramFile(index, { encoding: 'utf-8' })));
    warmCount.push(await timed(() => searchFile(index, { pattern: FILTER, countOnly: true, encoding: 'utf-8' })));
  }

  const rand = prng(11);
  const seeks: number[] = [];
  let probes = 0;
  for (let i = 0; i < 50; i++) {
    const t = h.firstMs + Math.floor(rand() * (h.lastMs - h.firstMs));
    const started = performance.now();
    probes = Math.max(probes, timeSeek(index, t, 'utf-8').probes);
    seeks.push(performance.now() - started);
  }

  const ratio = (ms: number, base: number) => `${(ms / base).toFixed(2)}x`;
  process.stdout.write(`\n## log (${(size / 1024 ** 3).toFixed(2)} GiB, ${index.lineCount.toLocaleString('en-US')} lines, median of ${runs})\n\n`);
  process.stdout.write(
    table([
      ['measure', 'ms', 'throughput', 'vs baseline'],
      [
        `histogram, in process (${h.buckets.length} buckets of ${h.bucketMs / 1000} s; CPU ${Math.round(cpuMsPerRun)} ms)`,
        Math.round(histMs),
        gbps(size, histMs),
        `${ratio(histMs, awk.ms)} of awk, ${ratio(histMs, wc.ms)} of wc -l`,
      ],
      ['folio histogram (whole process)', Math.round(cli.ms), gbps(size, cli.ms), ratio(cli.ms, awk.ms) + ' of awk'],
      ['awk: lines per hour and level', Math.round(awk.ms), gbps(size, awk.ms), 'baseline'],
      ['wc -l', Math.round(wc.ms), gbps(size, wc.ms), 'floor'],
      [
        `filter regex (level + term), count over the whole file: ${filterCount.toLocaleString('en-US')} lines`,
        Math.round(filterMs),
        gbps(size, filterMs),
        ratio(filterMs, grep.ms) + ' of grep',
      ],
      [`grep -cE (same lines: ${grep.stdout.trim()})`, Math.round(grep.ms), gbps(size, grep.ms), 'baseline'],
      [
        `filter, ERROR level only: ${levelCount.toLocaleString('en-US')} lines`,
        Math.round(levelMs),
        gbps(size, levelMs),
        ratio(levelMs, grepLevel.ms) + ' of grep',
      ],
      [`grep -cwE 'ERROR|ERR' (${grepLevel.stdout.trim()})`, Math.round(grepLevel.ms), gbps(size, grepLevel.ms), 'baseline'],
      [`histogram, first call on fresh workers`, Math.round(median(coldHist)), gbps(size, median(coldHist)), 'baseline'],
      [
        `histogram, first call after the warm-up (${Math.round(median(warmUps))} ms, done on open)`,
        Math.round(median(warmHist)),
        gbps(size, median(warmHist)),
        ratio(median(warmHist), median(coldHist)) + ' of fresh',
      ],
      [`filter count, first call on fresh workers (after a histogram)`, Math.round(median(coldCount)), gbps(size, median(coldCount)), 'baseline'],
      [
        `filter count, first call after the warm-up (and a histogram)`,
        Math.round(median(warmCount)),
        gbps(size, median(warmCount)),
        ratio(median(warmCount), median(coldCount)) + ' of fresh',
      ],
      [`time_seek, 50 random times (median; at most ${probes} windows)`, median(seeks).toFixed(1), '', ''],
    ]) + '\n',
  );
  process.stdout.write(`segments parsed line by line: ${(h.parsedBytes / 1024 ** 2).toFixed(1)} MiB of ${(size / 1024 ** 2).toFixed(0)} MiB\n`);
  await closeHistogramPools();
  await closeSearchPools();
  await closeIndexPools();
}
