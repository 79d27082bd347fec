/**
 * `npm run bench -- compressed [--size 1G] [--runs 5]`: a gzipped log (the synthetic
 * log, gzip -1) opened as the app opens it, against zcat in the same run,
 * alternating: the first window (a head read while the decompression job runs,
 * api/compressed-paths.ts) and the whole decompression into the cache
 * (engine/read/decompressed.ts) against `zcat > /dev/null`, from an empty cache
 * each run; then `folio read --lines` of a deep window with the cache warm against
 * the same read of the plain file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { handle } from '../src-main/api/handle.ts';
import { closeIndexPools } from '../src-main/engine/index/builder.ts';
import { decompressDir, decompressed } from '../src-main/engine/read/decompressed.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, median, syntheticLog, table, timeCommand, warmPageCache } from './lib.ts';

const HUMAN = { kind: 'human', name: 'bench' } as const;
const FIRST_WINDOW_BYTES = 256 * 1024;

function gzipOf(file: string): string {
  const gz = `${file}.gz`;
  if (!existsSync(gz)) {
    process.stderr.write(`gzip -1 of ${file} (once)...\n`);
    execFileSync('sh', ['-c', `gzip -1 -c '${file}' > '${gz}.tmp'`]);
    renameSync(`${gz}.tmp`, gz);
  }
  return gz;
}

export async function benchCompressed(o: BenchOptions): Promise<void> {
  process.env.FOLIO_CACHE_DIR = join(DATA_DIR, 'cache-compressed');
  const file = syntheticLog(o.size);
  const gz = gzipOf(file);
  warmPageCache(gz);
  const runs = Math.max(o.runs, 5);
  const zcat: number[] = [];
  const first: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i <= runs; i++) {
    rmSync(decompressDir(), { recursive: true, force: true });
    let t = performance.now();
    const r = spawnSync('sh', ['-c', `zcat '${gz}' > /dev/null`]);
    if (r.status !== 0) throw new Error(`zcat failed: ${r.stderr}`);
    const zcatMs = performance.now() - t;
    t = performance.now();
    const head = await handle('read', { path: gz, start_byte: 0, max_bytes: FIRST_WINDOW_BYTES }, HUMAN);
    const firstMs = performance.now() - t;
    if (!head.indexing) throw new Error('the first window waited for the whole decompression');
    await decompressed(gz, 'gzip');
    const wholeMs = performance.now() - t;
    if (i === 0) continue; // warm-up
    zcat.push(zcatMs);
    first.push(firstMs);
    whole.push(wholeMs);
  }
  // A deep window, cache warm (and index persisted): the .gz against the plain file, each a `folio read` process.
  const bin = join(process.cwd(), 'bin/folio.mjs');
  const info = await handle('file_info', { path: gz }, HUMAN);
  await handle('file_info', { path: file }, HUMAN);
  const deep = Math.floor(info.lines * 0.9);
  const lines = `${deep}-${deep + 49}`;
  const viaGz = timeCommand(runs, process.execPath, [bin, 'read', gz, '--lines', lines]);
  const viaPlain = timeCommand(runs, process.execPath, [bin, 'read', file, '--lines', lines]);
  if (viaGz.stdout.split('---\n').at(-1) !== viaPlain.stdout.split('---\n').at(-1)) throw new Error('the .gz and the plain file read differently');
  await closeIndexPools();

  const mb = (n: number) => `${(n / 1024 ** 2).toFixed(0)} MiB`;
  const ms = (n: number) => `${n.toFixed(0)} ms`;
  console.log(
    `\n## compressed: ${mb(statSync(file).size)} of text, ${mb(statSync(gz).size)} of gzip -1; ${runs} alternating runs, medians\n\n` +
      table([
        ['step', 'Folio', 'baseline', 'ratio'],
        [`first window (${FIRST_WINDOW_BYTES / 1024} KiB) vs zcat whole`, ms(median(first)), ms(median(zcat)), (median(first) / median(zcat)).toFixed(3)],
        ['whole decompress into cache vs zcat > /dev/null', ms(median(whole)), ms(median(zcat)), (median(whole) / median(zcat)).toFixed(2)],
        [`folio read --lines ${lines}: .gz (cache warm) vs plain`, ms(viaGz.ms), ms(viaPlain.ms), (viaGz.ms / viaPlain.ms).toFixed(2)],
      ]),
  );
}
