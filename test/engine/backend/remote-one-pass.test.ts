/**
 * A whole-value step over a remote value costs one pass of transfer (the seam of
 * source/byte-source.ts), not one rerun per missing range: counted at an in-memory
 * backend (test/fixtures/memory-backend.ts). Also: a value bigger than the cache,
 * search in the worker pool, and the bound on windowed steps' reruns.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { outlineOf } from '../../../src-main/engine/address/markdown-outline.ts';
import { loadJsonFile, queryJson } from '../../../src-main/engine/address/json-address.ts';
import { forgetRemote, onRemote, openRemote, readRemote, searchRemote } from '../../../src-main/engine/backend/remote.ts';
import { setRemoteSourceOptions } from '../../../src-main/engine/backend/remote-index.ts';
import { WorkerPool } from '../../../src-main/engine/index/worker-pool.ts';
import { searchPath } from '../../../src-main/engine/search/search-path.ts';
import { closeSearchPools } from '../../../src-main/engine/search/search.ts';
import { engineTempDir } from '../../fixtures/engine-env.ts';
import { bigMarkdown } from '../../fixtures/markdown.ts';
import { memoryBackend } from '../../fixtures/memory-backend.ts';

const tmp = engineTempDir();
const mem = memoryBackend('s3');
const MiB = 1024 * 1024;

afterEach(() => {
  setRemoteSourceOptions({});
  forgetRemote();
  mem.reset();
  vi.restoreAllMocks();
});
afterAll(() => closeSearchPools());

/** The same bytes as a local file and a remote value; the remote one opened (index streamed), counters zeroed. */
async function both(name: string, text: string): Promise<{ local: string; loc: string; size: number }> {
  const local = tmp.path(name);
  writeFileSync(local, text);
  const loc = `s3://bucket/${name}`;
  mem.put(loc, Buffer.from(text));
  await openRemote(loc);
  // The line index: one stream of the value, no ranged read.
  expect(mem.traffic.streams).toBe(1);
  expect(mem.traffic.streamBytes).toBe(Buffer.byteLength(text));
  expect(mem.traffic.reads).toHaveLength(0);
  mem.reset();
  return { local, loc, size: Buffer.byteLength(text) };
}

const headingsOf = (o: Awaited<ReturnType<typeof outlineOf>>) => o.headings.map((h) => [h.line, h.endLine, h.level, h.text, h.startByte, h.endByte, h.sha256]);

describe('a whole-value step over a remote value reads it once', () => {
  it('outline of 3 MiB of markdown in 64 KiB chunks: the local outline, ranged reads sized by read-ahead (not by chunk), at most 1.1x the bytes', async () => {
    const { local, loc, size } = await both('doc.md', bigMarkdown(3 * MiB));
    // Small chunks: a step that reran per missing chunk would send one ranged read (and one rerun) per 128 KiB.
    const remote = await onRemote(loc, (v) => outlineOf(v.backend.locator, { chunkBytes: 64 * 1024 }));
    const want = await outlineOf(local);
    expect(headingsOf(remote)).toEqual(headingsOf(want));
    expect(remote.totalLines).toBe(want.totalLines);
    expect(mem.traffic.readBytes).toBeLessThanOrEqual(1.1 * size);
    expect(mem.traffic.reads.length).toBeLessThanOrEqual(Math.ceil(size / MiB) + 2);
  });

  it('outline of a value 4x bigger than the cache completes in one pass, the cache within its cap', async () => {
    setRemoteSourceOptions({ maxCachedBytes: 512 * 1024, maxReadAheadBytes: 128 * 1024 });
    const { local, loc, size } = await both('big.md', bigMarkdown(2 * MiB));
    const remote = await onRemote(loc, async (v) => {
      const o = await outlineOf(v.backend.locator);
      expect(v.source.heldBlocks * 64 * 1024).toBeLessThanOrEqual(512 * 1024);
      return o;
    });
    expect(headingsOf(remote)).toEqual(headingsOf(await outlineOf(local)));
    expect(mem.traffic.readBytes).toBeLessThanOrEqual(1.1 * size);
  });

  it('a JSON document is read in one pass', async () => {
    const doc = JSON.stringify({ items: Array.from({ length: 40_000 }, (_, i) => ({ id: i, name: `item ${i}` })) });
    const { loc, size } = await both('doc.json', doc);
    const n = await onRemote(loc, async (v) => queryJson(await loadJsonFile(v.backend.locator), '$.items[?@.id > 39990]', loc).length);
    expect(n).toBe(9);
    expect(mem.traffic.readBytes).toBeLessThanOrEqual(1.1 * size);
    expect(mem.traffic.reads.length).toBeLessThanOrEqual(Math.ceil(size / (128 * 1024)) + 2);
  });
});

describe('search of a remote value', () => {
  const log = () => {
    let s = '';
    for (let i = 0; s.length < 3 * MiB; i++)
      s += `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z ${i % 7 ? 'INFO' : 'ERROR'} req ${i} ${i % 11 ? 'ok' : 'aa'}\n`;
    return s;
  };

  it('runs in the worker pool, which gets the bytes this thread read once; the answer is the local one', async () => {
    const { local, loc, size } = await both('app.log', log());
    const run = vi.spyOn(WorkerPool.prototype, 'run');
    // A backreference runs only in a worker (no linear-time engine for it).
    const opts = { pattern: '(a)\\1', countOnly: true, smallRangeBytes: 64 * 1024 };
    const got = await searchRemote(loc, opts);
    const want = await searchPath(local, opts);
    expect(got.count).toBe(want.count);
    expect(got.count).toBeGreaterThan(1000);
    const jobs = run.mock.calls.map(([job]) => job as { bytes?: Uint8Array; path: string });
    expect(jobs.filter((j) => j.path === loc && j.bytes).length).toBeGreaterThan(0);
    expect(mem.traffic.readBytes).toBeLessThanOrEqual(1.1 * size);
  });

  it('a value 6x bigger than the cache is searched in one pass', async () => {
    setRemoteSourceOptions({ maxCachedBytes: 512 * 1024, maxReadAheadBytes: 128 * 1024 });
    const { local, loc, size } = await both('app3.log', log());
    const opts = { pattern: 'ERROR req \\d+ aa', countOnly: true, smallRangeBytes: 64 * 1024 };
    expect((await searchRemote(loc, opts)).count).toBe((await searchPath(local, opts)).count);
    expect(mem.traffic.readBytes).toBeLessThanOrEqual(1.1 * size);
  });

  it('matches and line numbers equal the local search, also capped early', async () => {
    const { local, loc } = await both('app2.log', log());
    for (const opts of [
      { pattern: 'ERROR req \\d+ aa', maxMatches: 5, smallRangeBytes: 64 * 1024 },
      { pattern: 'ERROR req (\\d)\\1', maxMatches: 50, smallRangeBytes: 64 * 1024 },
      { pattern: 'req 4242 ', maxMatches: 5 },
    ]) {
      const got = await searchRemote(loc, opts);
      const want = await searchPath(local, opts);
      expect(got.matches).toEqual(want.matches);
      expect(got.truncated).toBe(want.truncated);
    }
  });
});

describe('windowed steps rerun a bounded number of times', () => {
  it('a window bigger than half the cache fails with too_large after a few ranged reads, instead of evicting its own bytes forever', async () => {
    setRemoteSourceOptions({ maxCachedBytes: 1024 * 1024 });
    const { loc } = await both('wide.log', 'x'.repeat(100) + '\n'.repeat(1) + 'y'.repeat(3 * MiB) + '\n');
    const err = await readRemote(loc, { mode: 'full' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'too_large', details: { path: loc } });
    expect(mem.traffic.reads.length).toBeLessThanOrEqual(8);
  });

  it('a window after a failed ranged read fails with that error, and the next call reads', async () => {
    const { loc } = await both('flaky.log', 'line\n'.repeat(200_000));
    mem.failNextReads(1);
    await expect(readRemote(loc, { mode: 'lines', ranges: [{ start: 100_000, end: 100_001 }] })).rejects.toMatchObject({ code: 'io_error' });
    expect((await readRemote(loc, { mode: 'lines', ranges: [{ start: 100_000, end: 100_001 }] })).content).toBe('line\nline\n');
  });
});
