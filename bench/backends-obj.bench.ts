/**
 * `npm run bench -- backends-obj [--size 1G]`: the object-store backends (Azure blob on
 * Azurite, S3 on Swift's s3api or s3rver, on loopback, test/fixtures/) on one object of `--size`
 * (at most 1 GiB; the synthetic log), beside the same operation on the local file, in
 * the same run:
 * - first window after open: a fresh backend's first 64 KiB read (one ranged GET);
 *   local: open + read 64 KiB + close;
 * - a 64 KiB window at 50 random offsets: p50 and p95;
 * - a middle replace of 100 bytes under the version token: objects compose on the
 *   server (bytes moved through the client are printed); local: the engine's byte
 *   upsert, which rewrites the file (temp file, fsync, rename).
 * Caveats: the servers are emulators on the same two cores. Azurite lacks Put Block From
 * URL (its test shim moves those bytes over loopback HTTP); Swift copies part ranges
 * itself. The replace figures measure these servers, not Azure's or S3's server-side
 * copies (which do not involve the client either). The reads are real ranged GETs.
 * `objectBackendRows` is exported so a combined `backends` bench can print these rows.
 */
import { copyFileSync, createReadStream, readFileSync, rmSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { CopyObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { openAzureBlob } from '../src-main/backends/azure/azure-blob.ts';
import { openS3Object } from '../src-main/backends/s3/s3-object.ts';
import type { Backend } from '../src-main/engine/backend/types.ts';
import { closeIndexPools } from '../src-main/engine/index/builder.ts';
import { read } from '../src-main/engine/read/read.ts';
import { upsert } from '../src-main/engine/write/upsert.ts';
import { startAzurite } from '../test/fixtures/azurite.ts';
import { startS3Server } from '../test/fixtures/s3-server.ts';
import type { CountingProxy } from '../test/fixtures/counting-proxy.ts';
import type { BenchOptions } from './main.ts';
import { DATA_DIR, fileSize, median, percentile, syntheticLog, table, warmPageCache } from './lib.ts';

const KiB = 1024;
const WINDOW = 64 * KiB;
const WINDOWS = 50;
const EDIT = 100;

interface Figures {
  name: string;
  firstMs: number;
  p50Ms: number;
  p95Ms: number;
  replaceMs: number;
  movedBytes?: string;
}

const bytes = (n: number): string => (n < 10 * KiB ? `${n} B` : `${(n / KiB).toFixed(0)} KiB`);

/** Offsets of the random windows, the same for every contender. */
function offsets(size: number): number[] {
  let x = 12345;
  return Array.from({ length: WINDOWS }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((x / 2 ** 31) * (size - WINDOW));
  });
}

/**
 * `forReplace(run)` gives the backend each timed replace runs on: the same object for
 * Azure; for S3 a fresh server-side copy per run, because Swift 2.30 refuses
 * x-amz-copy-source-if-match on an object a multipart upload completed (see
 * test/backends/s3-object.test.ts), which every replace after the first would be.
 */
async function objectFigures(
  name: string,
  open: () => Backend,
  forReplace: (run: number) => Promise<Backend>,
  size: number,
  runs: number,
  proxy: CountingProxy,
): Promise<Figures> {
  const first: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const t = performance.now();
    const b = open();
    const got = await b.read(0, WINDOW);
    const ms = performance.now() - t;
    await b.close();
    if (got.length !== WINDOW) throw new Error(`${name}: first window is ${got.length} bytes`);
    if (i > 0) first.push(ms);
  }
  const b = open();
  const times: number[] = [];
  for (const at of offsets(size)) {
    const t = performance.now();
    const got = await b.read(at, at + WINDOW);
    times.push(performance.now() - t);
    if (got.length !== WINDOW) throw new Error(`${name}: window at ${at} is ${got.length} bytes`);
  }
  const mid = Math.floor(size / 2);
  const replaces: number[] = [];
  let moved = '';
  await b.close();
  for (let i = 1; i <= runs; i++) {
    const r = await forReplace(i);
    const { token } = await r.stat();
    const content = Buffer.from(`run ${i} `.padEnd(EDIT - 1, '.') + '\n');
    proxy.reset();
    const t = performance.now();
    await r.replace(mid, mid + EDIT, content, token);
    replaces.push(performance.now() - t);
    const down = Object.values(proxy.counts.down).reduce((n, x) => n + x, 0);
    const up = Object.values(proxy.counts.up).reduce((n, x) => n + x, 0);
    moved = `${bytes(down)} down, ${bytes(up)} up`;
    if (!Buffer.from(await r.read(mid, mid + EDIT)).equals(content)) throw new Error(`${name}: the replace did not read back`);
    await r.close();
  }
  return { name, firstMs: median(first), p50Ms: percentile(times, 50), p95Ms: percentile(times, 95), replaceMs: median(replaces), movedBytes: moved };
}

async function localFigures(file: string, size: number, runs: number): Promise<Figures> {
  const first: number[] = [];
  const buf = Buffer.alloc(WINDOW);
  for (let i = 0; i <= runs; i++) {
    const t = performance.now();
    const fh = await openFile(file, 'r');
    await fh.read(buf, 0, WINDOW, 0);
    await fh.close();
    if (i > 0) first.push(performance.now() - t);
  }
  const fh = await openFile(file, 'r');
  const times: number[] = [];
  for (const at of offsets(size)) {
    const t = performance.now();
    await fh.read(buf, 0, WINDOW, at);
    times.push(performance.now() - t);
  }
  await fh.close();
  const mid = Math.floor(size / 2);
  const replaces: number[] = [];
  for (let i = 1; i <= runs; i++) {
    const { version } = await read(file, { mode: 'head', lines: 1 });
    const content = `run ${i} `.padEnd(EDIT - 1, '.') + '\n';
    const t = performance.now();
    await upsert(file, { target: { kind: 'replace', start: mid, end: mid + EDIT, units: 'bytes' }, content, preconditions: { ifMatch: version.etag } });
    replaces.push(performance.now() - t);
  }
  return {
    name: 'local file',
    firstMs: median(first),
    p50Ms: percentile(times, 50),
    p95Ms: percentile(times, 95),
    replaceMs: median(replaces),
    movedBytes: 'whole file rewritten',
  };
}

/** The rows (header first) for `size` bytes of the synthetic log: local file, az://, s3://. */
export async function objectBackendRows(atLeast: number, runs: number): Promise<(string | number)[][]> {
  const source = syntheticLog(atLeast);
  const size = fileSize(source);
  const work = join(DATA_DIR, 'backends-obj.log');
  copyFileSync(source, work);
  const azurite = await startAzurite();
  const s3 = await startS3Server().catch(async (err: unknown) => {
    await azurite.stop();
    throw err;
  });
  try {
    warmPageCache(work);
    process.stderr.write(`uploading ${(size / 1024 ** 2).toFixed(0)} MiB to Azurite and ${s3.name}...\n`);
    const container = BlobServiceClient.fromConnectionString(azurite.directConnectionString).getContainerClient('bench');
    await container.create();
    await container.getBlockBlobClient('log').uploadStream(createReadStream(source), 8 * 1024 * KiB, 4);
    await s3.direct.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'log', Body: readFileSync(source), ContentLength: size }));

    const local = await localFigures(work, size, runs);
    const openAz = (): Backend => openAzureBlob('az://bench/log', { connectionString: azurite.connectionString });
    const az = await objectFigures('az:// (Azurite)', openAz, async () => openAz(), size, runs, azurite.proxy);
    const openS3 = (locator: string): Backend => openS3Object(locator, { endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials });
    const s3f = await objectFigures(
      `s3:// (${s3.name})`,
      () => openS3(`s3://${s3.bucket}/log`),
      async (run) => {
        await s3.direct.send(new CopyObjectCommand({ Bucket: s3.bucket, Key: `log-${run}`, CopySource: `${s3.bucket}/log` }));
        return openS3(`s3://${s3.bucket}/log-${run}`);
      },
      size,
      runs,
      s3.proxy,
    );
    const x = (v: number, base: number) => `${(v / base).toFixed(1)}x`;
    const rows: (string | number)[][] = [
      ['backend', 'first window (ms)', '64 KiB p50 (ms)', '64 KiB p95 (ms)', 'middle replace (ms)', 'bytes through the client (replace)'],
    ];
    for (const f of [local, az, s3f]) {
      rows.push([
        f.name,
        `${f.firstMs.toFixed(2)}${f === local ? '' : ` (${x(f.firstMs, local.firstMs)})`}`,
        `${f.p50Ms.toFixed(2)}${f === local ? '' : ` (${x(f.p50Ms, local.p50Ms)})`}`,
        f.p95Ms.toFixed(2),
        `${f.replaceMs.toFixed(0)}${f === local ? '' : ` (${x(f.replaceMs, local.replaceMs)})`}`,
        f.movedBytes ?? '',
      ]);
    }
    return rows;
  } finally {
    await azurite.stop();
    await s3.stop();
    await closeIndexPools();
    rmSync(work, { force: true });
  }
}

export async function benchBackendsObj(opts: BenchOptions): Promise<void> {
  const size = Math.min(opts.size, 1024 ** 3);
  const rows = await objectBackendRows(size, opts.runs);
  process.stdout.write(`\n## object backends: ${(size / 1024 ** 2).toFixed(0)} MiB object, beside the local file (same run)\n\n${table(rows)}\n`);
}
