/**
 * Compressed logs decompressed once into the cache (engine/read/decompressed.ts):
 * every format's entry equals what the system tool prints (zcat, zstd -dc,
 * bzip2 -dc), through the system tool and through the JS fallback alike; corrupt and
 * truncated input is a typed error that leaves nothing behind; an abort removes the
 * temp; concurrent callers share one job; the cache stays under its cap, LRU first,
 * never evicting the entry it hands out; temps of dead processes are removed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { compressionOf, compressionOfBytes, type Compression } from '../../src-main/engine/read/compression.ts';
import { decompressDir, decompressed, headFileOf } from '../../src-main/engine/read/decompressed.ts';
import { FolioError } from '../../src-main/engine/errors.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { prng, writeLogFile } from '../fixtures/generate.ts';

const tmp = engineTempDir();
const TOOL: Record<Compression, string[]> = { gzip: ['gzip', '-dc'], zstd: ['zstd', '-dc'], bzip2: ['bzip2', '-dc'] };
const EXT: Record<Compression, string> = { gzip: 'gz', zstd: 'zst', bzip2: 'bz2' };
let plain: Buffer;

/** What the system tool prints for `path` (the reference). */
function toolOutput(format: Compression, path: string): Buffer {
  const [cmd, ...args] = TOOL[format];
  return execFileSync(cmd!, [...args, path], { maxBuffer: 1 << 30 });
}

/** `src` compressed by the system tool into `dest`. */
function compress(format: Compression, src: string, dest: string): string {
  const cmd = format === 'gzip' ? ['gzip', '-c', '-1'] : format === 'zstd' ? ['zstd', '-q', '-c'] : ['bzip2', '-c'];
  writeFileSync(dest, execFileSync(cmd[0]!, [...cmd.slice(1), src], { maxBuffer: 1 << 30 }));
  return dest;
}

function entries(): string[] {
  return existsSync(decompressDir()) ? readdirSync(decompressDir()) : [];
}

function withJs<T>(js: boolean, fn: () => Promise<T>): Promise<T> {
  const was = process.env.FOLIO_DECOMPRESS_JS;
  if (js) process.env.FOLIO_DECOMPRESS_JS = '1';
  else delete process.env.FOLIO_DECOMPRESS_JS;
  return fn().finally(() => {
    if (was === undefined) delete process.env.FOLIO_DECOMPRESS_JS;
    else process.env.FOLIO_DECOMPRESS_JS = was;
  });
}

beforeAll(() => {
  writeLogFile(tmp.path('app.log'), 6 * 1024 * 1024, 7);
  plain = readFileSync(tmp.path('app.log'));
  for (const f of ['gzip', 'zstd', 'bzip2'] as const) compress(f, tmp.path('app.log'), tmp.path(`app.log.${EXT[f]}`));
});

afterEach(() => {
  delete process.env.FOLIO_DECOMPRESS_CACHE_BYTES;
});

describe('compressionOf', () => {
  it('tells each format by its magic bytes, whatever the name; anything else is null', () => {
    for (const f of ['gzip', 'zstd', 'bzip2'] as const) {
      const renamed = tmp.path(`magic-${f}.txt`);
      writeFileSync(renamed, readFileSync(tmp.path(`app.log.${EXT[f]}`)).subarray(0, 64));
      expect(compressionOf(renamed)).toBe(f);
    }
    expect(compressionOf(tmp.path('app.log'))).toBeNull();
    expect(compressionOf(tmp.path('missing.gz'))).toBeNull();
    expect(compressionOf(tmp.dir)).toBeNull();
    // "BZh9" text without the block magic, and an empty bzip2 stream (end-of-stream magic).
    expect(compressionOfBytes(Buffer.from('BZh9 is not bzip2'))).toBeNull();
    expect(compressionOfBytes(execFileSync('bzip2', ['-c'], { input: '' }))).toBe('bzip2');
    expect(compressionOfBytes(Buffer.from([0x1f, 0x8b]))).toBeNull();
  });

  it('a FIFO named .gz is null at once (opened without blocking)', () => {
    const fifo = tmp.path('pipe.log.gz');
    execFileSync('mkfifo', [fifo]);
    expect(compressionOf(fifo)).toBeNull();
  });
});

describe('decompressed', () => {
  for (const format of ['gzip', 'zstd', 'bzip2'] as const) {
    for (const js of format === 'gzip' ? [false] : [false, true]) {
      it(`${format}${js ? ' (JS decoder)' : ''}: the entry equals ${TOOL[format].join(' ')}, progress ends at the compressed size`, async () => {
        const src = tmp.path(`copy-${format}-${js}.log.${EXT[format]}`);
        writeFileSync(src, readFileSync(tmp.path(`app.log.${EXT[format]}`)));
        const seen: number[] = [];
        const d = await withJs(js, () => decompressed(src, format, { onProgress: (p) => seen.push(p.bytesDone) }));
        expect(readFileSync(d.path).equals(toolOutput(format, src))).toBe(true);
        expect(readFileSync(d.path).equals(plain)).toBe(true);
        expect(d.compressedBytes).toBe(statSync(src).size);
        expect(seen.at(-1)).toBe(statSync(src).size);
        expect(seen).toEqual([...seen].sort((a, b) => a - b));
        // A second call is the same entry, no job.
        expect((await decompressed(src, format)).path).toBe(d.path);
      });
    }
  }

  it('a multi-member gzip decodes whole, as zcat does', async () => {
    const src = tmp.path('multi.log.gz');
    const cut = 1_000_003;
    writeFileSync(src, Buffer.concat([gzipSync(plain.subarray(0, cut)), gzipSync(plain.subarray(cut, cut + 10)), gzipSync(plain.subarray(cut + 10))]));
    const d = await decompressed(src, 'gzip');
    expect(readFileSync(d.path).equals(toolOutput('gzip', src))).toBe(true);
    expect(readFileSync(d.path).equals(plain)).toBe(true);
  });

  it('concurrent callers share one job and one entry', async () => {
    const src = tmp.path('shared.log.gz');
    writeFileSync(src, readFileSync(tmp.path('app.log.gz')));
    const [a, b, c] = await Promise.all([decompressed(src, 'gzip'), decompressed(src, 'gzip'), decompressed(src, 'gzip')]);
    expect(new Set([a.path, b.path, c.path]).size).toBe(1);
    expect(entries().filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  for (const format of ['gzip', 'zstd', 'bzip2'] as const) {
    for (const js of format === 'gzip' ? [false] : [false, true]) {
      it(`${format}${js ? ' (JS decoder)' : ''}: a truncated file is parse_error {format, at_byte} and leaves no entry, like the tool's failure`, async () => {
        const whole = readFileSync(tmp.path(`app.log.${EXT[format]}`));
        const src = tmp.path(`trunc-${format}-${js}.log.${EXT[format]}`);
        writeFileSync(src, whole.subarray(0, Math.floor(whole.length / 2)));
        expect(spawnSync(TOOL[format][0]!, [...TOOL[format].slice(1), src]).status).not.toBe(0);
        const before = entries().length;
        const err = await withJs(js, () => decompressed(src, format)).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(FolioError);
        expect(err).toMatchObject({ code: 'parse_error', details: { path: src, format } });
        expect((err as FolioError).details.at_byte).toBeGreaterThan(0);
        expect(entries().length).toBe(before);
      });
    }
  }

  // A decoder that fails while the temp's write is in flight: the sink is destroyed under
  // that write. A run beside the CPU hog saw 'Cannot call write after a stream was
  // destroyed' escape as an uncaught exception (vitest fails the run on one).
  it('30 truncated decodes cut at seeded places: each parse_error, no temp and no entry left, nothing escapes', async () => {
    const rand = prng(30);
    const before = entries().length;
    const escaped: unknown[] = [];
    const onEscape = (err: unknown) => escaped.push(err);
    process.on('uncaughtException', onEscape);
    onTestFinished(() => void process.off('uncaughtException', onEscape));
    for (let i = 0; i < 30; i++) {
      const format = (['gzip', 'zstd', 'bzip2'] as const)[i % 3]!;
      const whole = readFileSync(tmp.path(`app.log.${EXT[format]}`));
      const src = tmp.path(`cut-${i}.log.${EXT[format]}`);
      writeFileSync(src, whole.subarray(0, Math.floor(whole.length * (0.2 + 0.7 * rand()))));
      const err = await withJs(i % 2 === 0, () => decompressed(src, format)).catch((e: unknown) => e);
      expect(err, `cut ${i} (${format})`).toMatchObject({ code: 'parse_error' });
    }
    expect(escaped).toEqual([]);
    expect(entries().length).toBe(before);
    expect(entries().filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('a corrupt gzip (bytes overwritten mid-stream) is parse_error and leaves no entry', async () => {
    const whole = Buffer.from(readFileSync(tmp.path('app.log.gz')));
    whole.fill(0x55, 5000, 5100);
    const src = tmp.path('corrupt.log.gz');
    writeFileSync(src, whole);
    expect(spawnSync('gzip', ['-dc', src]).status).not.toBe(0);
    const before = entries().length;
    await expect(decompressed(src, 'gzip')).rejects.toMatchObject({ code: 'parse_error', details: { format: 'gzip' } });
    expect(entries().length).toBe(before);
  });

  it('an abort is cancelled and removes the temp; the next call decompresses afresh', async () => {
    const src = tmp.path('abort.log.bz2');
    writeFileSync(src, readFileSync(tmp.path('app.log.bz2')));
    const stop = new AbortController();
    const p = withJs(true, () =>
      decompressed(src, 'bzip2', {
        signal: stop.signal,
        onProgress: (pr) => {
          if (pr.bytesDone > 0) stop.abort();
        },
      }),
    );
    await expect(p).rejects.toMatchObject({ code: 'cancelled' });
    // The job's temp goes when its pipeline has stopped: wait for that, not for a time.
    await expect.poll(() => entries().filter((n) => n.endsWith('.tmp')), { timeout: 60_000 }).toEqual([]);
    const d = await decompressed(src, 'bzip2');
    expect(readFileSync(d.path).equals(plain)).toBe(true);
  });

  it('one caller aborting leaves the job to the others; it stops when the last one leaves', async () => {
    const src = tmp.path('two-waiters.log.bz2');
    writeFileSync(src, readFileSync(tmp.path('app.log.bz2')));
    const first = new AbortController();
    await withJs(true, async () => {
      const a = decompressed(src, 'bzip2', { signal: first.signal });
      const b = decompressed(src, 'bzip2');
      first.abort();
      await expect(a).rejects.toMatchObject({ code: 'cancelled' });
      expect(readFileSync((await b).path).equals(plain)).toBe(true);
    });
  });

  it('a temp left by a dead process is removed by the next job; a live one is kept', async () => {
    const dir = decompressDir();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const deadTemp = join(dir, `${'a'.repeat(32)}.${dead}.0badf00d.tmp`);
    const liveTemp = join(dir, `${'b'.repeat(32)}.${process.ppid}.0badf00d.tmp`);
    writeFileSync(deadTemp, 'partial');
    writeFileSync(liveTemp, 'partial');
    const src = tmp.path('after-crash.log.gz');
    writeFileSync(src, gzipSync(plain.subarray(0, 100_000)));
    await decompressed(src, 'gzip');
    expect(existsSync(deadTemp)).toBe(false);
    expect(existsSync(liveTemp)).toBe(true);
  });

  it('evicts least recently used entries beyond the cap, never the one handed out', async () => {
    // A cache of its own: the other tests' entries are more recently used than these.
    const cacheWas = process.env.FOLIO_CACHE_DIR;
    process.env.FOLIO_CACHE_DIR = tmp.path('cache-evict');
    onTestFinished(() => {
      process.env.FOLIO_CACHE_DIR = cacheWas;
    });
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const src = tmp.path(`evict-${i}.log.gz`);
      writeFileSync(src, gzipSync(plain.subarray(i, i + 1_000_000)));
      made.push((await decompressed(src, 'gzip')).path);
      // Used in order 0, 1, 2, seconds apart (the order is by mtime of <key>.used).
      const t = new Date(Date.now() - (3 - i) * 10_000);
      utimesSync(`${made[i]}.used`, t, t);
    }
    process.env.FOLIO_DECOMPRESS_CACHE_BYTES = String(statSync(made[0]!).size * 2 + 10);
    const src = tmp.path('evict-3.log.gz');
    writeFileSync(src, gzipSync(plain.subarray(3, 3 + 1_000_000)));
    const newest = (await decompressed(src, 'gzip')).path;
    const left = entries().filter((n) => /^[0-9a-f]{32}$/.test(n));
    const total = left.reduce((sum, n) => sum + statSync(join(decompressDir(), n)).size, 0);
    expect(total).toBeLessThanOrEqual(Number(process.env.FOLIO_DECOMPRESS_CACHE_BYTES));
    expect(existsSync(newest)).toBe(true);
    expect(existsSync(made[2]!)).toBe(true);
    expect(existsSync(made[0]!)).toBe(false);
    expect(existsSync(made[1]!)).toBe(false);
    // A cap below the entry itself: it is still handed out and kept.
    process.env.FOLIO_DECOMPRESS_CACHE_BYTES = '1';
    const src5 = tmp.path('evict-5.log.gz');
    writeFileSync(src5, gzipSync(plain.subarray(5, 5 + 500_000)));
    const kept = (await decompressed(src5, 'gzip')).path;
    expect(readFileSync(kept).equals(plain.subarray(5, 5 + 500_000))).toBe(true);
    expect(existsSync(newest)).toBe(false);
  });

  it('counts the head of an entry with it, and evicts a head whose entry never came', async () => {
    const cacheWas = process.env.FOLIO_CACHE_DIR;
    process.env.FOLIO_CACHE_DIR = tmp.path('cache-heads');
    onTestFinished(() => {
      process.env.FOLIO_CACHE_DIR = cacheWas;
    });
    const src = tmp.path('heads-0.log.gz');
    writeFileSync(src, gzipSync(plain.subarray(0, 1_000_000)));
    const entry = (await decompressed(src, 'gzip')).path;
    const head = await headFileOf(src, 'gzip', 200_000);
    expect(head).toBe(`${entry}.head`);
    // A head left by a job that stopped (no entry beside it), the oldest thing in the cache.
    const orphan = join(decompressDir(), `${'f'.repeat(32)}.head`);
    writeFileSync(orphan, Buffer.alloc(3_000_000, 97));
    const old = new Date(Date.now() - 60_000);
    utimesSync(orphan, old, old);
    const older = new Date(Date.now() - 30_000);
    utimesSync(`${entry}.used`, older, older);
    // Room for the entry and its head, not for the orphan nor for one more entry beside them.
    process.env.FOLIO_DECOMPRESS_CACHE_BYTES = String(statSync(entry).size + statSync(head).size + 100);
    const next = tmp.path('heads-1.log.gz');
    writeFileSync(next, gzipSync(plain.subarray(1, 100_001)));
    const kept = (await decompressed(next, 'gzip')).path;
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(entry)).toBe(false);
    expect(existsSync(head)).toBe(false);
    expect(existsSync(kept)).toBe(true);
    const total = entries().reduce((sum, n) => sum + (/^[0-9a-f]{32}(\.head)?$/.test(n) ? statSync(join(decompressDir(), n)).size : 0), 0);
    expect(total).toBeLessThanOrEqual(Number(process.env.FOLIO_DECOMPRESS_CACHE_BYTES));
  });

  it('a changed file is another entry (the key is its identity)', async () => {
    const src = tmp.path('changing.log.gz');
    writeFileSync(src, gzipSync(plain.subarray(0, 200_000)));
    const a = await decompressed(src, 'gzip');
    writeFileSync(src, gzipSync(plain.subarray(0, 300_000)));
    const b = await decompressed(src, 'gzip');
    expect(b.path).not.toBe(a.path);
    expect(readFileSync(b.path).equals(plain.subarray(0, 300_000))).toBe(true);
  });

  it('headFileOf holds the first bytes, as the tool prints them', async () => {
    for (const format of ['gzip', 'zstd', 'bzip2'] as const) {
      const head = await headFileOf(tmp.path(`app.log.${EXT[format]}`), format, 300_000);
      expect(readFileSync(head).equals(plain.subarray(0, 300_000))).toBe(true);
    }
  });
});
