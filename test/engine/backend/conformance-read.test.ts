/**
 * Every read mode over one value in each remote backend (test/fixtures/backend-kinds.ts:
 * pg bytea, pg text, az:// on Azurite, s3:// on the S3 test server), through the engine as
 * the doors call it, with the same bytes in a local file as the oracle (the local read
 * path is itself checked against sed, grep and wc in test/engine/read.test.ts). A new
 * backend is one adapter in backend-kinds.ts, and these tests run on it.
 *
 * Also alike: a window read once the index exists costs one or two ranged reads, a
 * value changed behind this process's back is indexed again, and two versions of one
 * value read at once each read their own bytes. What only one backend does (pg's
 * text encodings and version, object sidecars and encoded names, Azure append blobs)
 * stays in that backend's own file.
 */
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { read, type ReadRequest } from '../../../src-main/engine/read/read.ts';
import { fileInfo } from '../../../src-main/engine/read/file-info.ts';
import { searchFile } from '../../../src-main/engine/search/search.ts';
import { openIndex } from '../../../src-main/engine/index/store.ts';
import { forgetRemote, openRemote, readRemote, remoteInfo, runOn, searchRemote } from '../../../src-main/engine/backend/remote.ts';
import { readBytes } from '../../../src-main/engine/text/window.ts';
import { BACKEND_KINDS, backendKindsConfig, startBackendKinds, stopBackendKinds } from '../../fixtures/backend-kinds.ts';
import { engineTempDir } from '../../fixtures/engine-env.ts';
import { pick, sampleValue } from '../../fixtures/remote-value.ts';

const tmp = engineTempDir();

const bytes = sampleValue();
const BIG = 'logs/big app.log'; // a space and a slash in the key, as object names have
let local: string;

beforeAll(async () => {
  await startBackendKinds();
  await Promise.all(BACKEND_KINDS.map((kind) => kind.put(BIG, bytes)));
  local = tmp.path('oracle.txt');
  writeFileSync(local, bytes);
});

afterAll(async () => {
  await stopBackendKinds();
});

const requests: ReadRequest[] = [
  { mode: 'lines', ranges: [{ start: 1, end: 5 }] },
  { mode: 'lines', ranges: [{ start: 996, end: 999 }] },
  {
    mode: 'lines',
    ranges: [
      { start: 12000, end: 12040 },
      { start: 29990, end: 30001 },
    ],
  },
  { mode: 'bytes', startByte: 0, maxBytes: 4096 },
  { mode: 'bytes', startByte: 1_500_001, maxBytes: 65536 },
  { mode: 'bytes', startByte: bytes.length - 100, maxBytes: 65536 },
  { mode: 'exact', startByte: 65530, endByte: 65550 },
  { mode: 'exact', startByte: 131070, endByte: 200000 },
  { mode: 'page', page: 1 },
  { mode: 'page', page: 7, pageChars: 20000 },
  { mode: 'head', lines: 20 },
  { mode: 'tail', lines: 20 },
];

describe.each(BACKEND_KINDS.map((kind) => [kind.name, kind] as const))('%s: a value reads like the same bytes in a local file', (_name, kind) => {
  const loc = (): string => kind.locator(BIG);

  it('every mode gives the same content, lines, bytes and totals, with and without hashlines', async () => {
    for (const req of requests) {
      for (const hashlines of [false, true]) {
        const want = await read(local, req, { hashlines });
        const got = await readRemote(loc(), req, { hashlines });
        expect(pick(got), `${JSON.stringify(req)} hashlines=${hashlines}`).toEqual(pick(want));
        expect(got.path).toBe(kind.canonical(BIG)); // the canonical locator
      }
    }
  });

  it('the read operation says where the value lives: source (db or object-storage) and content_type', async () => {
    const { handle } = await import('../../../src-main/api/handle.ts');
    // The operation takes its backends from the workspace's folio.config.json: the same ones.
    const workspace = tmp.path(`ws-${kind.scheme}`);
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'folio.config.json'), JSON.stringify({ backends: backendKindsConfig() }));
    const r = await handle('read', { path: loc(), offset: 1, limit: 2 }, { kind: 'human', name: 'test' }, { workspace });
    expect(r).toMatchObject({ source: kind.scheme === 'pg' ? 'db' : 'object-storage', content_type: 'text/plain; charset=utf-8' });
  });

  it('lines read equal sed -n on the oracle file', async () => {
    const r = await readRemote(loc(), { mode: 'lines', ranges: [{ start: 25000, end: 25010 }] });
    expect(r.content).toBe(execSync(`sed -n '25000,25010p' ${local}`).toString());
  });

  it("info: size, lines (wc -l plus the unterminated last line) and the backend's version", async () => {
    const info = await remoteInfo(loc());
    expect(info.size).toBe(bytes.length);
    expect(info.newlines).toBe(Number(execSync(`wc -l < ${local}`).toString().trim()));
    expect(info.lines).toBe(info.newlines + 1);
    expect(info.newlineCounts).toEqual((await fileInfo(local)).newlineCounts);
    expect(info.backend).toMatchObject({ scheme: kind.scheme, version: await kind.version(BIG) });
    expect(info.index.blocks).toBe(Math.ceil(bytes.length / 65536));
  });

  it('search finds what grep finds, with line numbers', async () => {
    const got = await searchRemote(loc(), { pattern: 'ERROR disk', maxMatches: 10000 });
    const grep = execSync(`grep -n 'ERROR disk' ${local}`).toString().trim().split('\n');
    expect(got.matches.map((m) => m.line)).toEqual(grep.map((l) => Number(l.split(':')[0])));
    const want = await searchFile(await openIndex(local), { pattern: 'ünïcödé ✓ 日本語 x{3}$', maxMatches: 100 });
    const got2 = await searchRemote(loc(), { pattern: 'ünïcödé ✓ 日本語 x{3}$', maxMatches: 100 });
    expect(got2.matches).toEqual(want.matches);
  });

  it('read modes past the end answer as for a file; full is capped like a file', async () => {
    await expect(readRemote(loc(), { mode: 'lines', ranges: [{ start: 40000, end: 40001 }] })).rejects.toMatchObject({
      code: (await read(local, { mode: 'lines', ranges: [{ start: 40000, end: 40001 }] }).catch((e) => e)).code,
    });
    expect((await readRemote(loc(), { mode: 'full' })).content).toBe((await read(local, { mode: 'full' })).content);
    await expect(readRemote(loc(), { mode: 'full' }, { maxFullBytes: 1024 })).rejects.toMatchObject({ code: 'too_large' });
  });

  it('bytes that are not UTF-8 come back as from a file: U+FFFD and the offset of the first bad byte', async (ctx) => {
    if (!kind.anyBytes) ctx.skip(`${kind.name} holds only UTF-8 text`);
    const junk = Buffer.concat([Buffer.from('ok line\nbad \x80\xff here\n', 'latin1'), Buffer.from('✓ fine\n')]);
    await kind.put('adv/junk.txt', junk);
    const f = tmp.path('junk.txt');
    writeFileSync(f, junk);
    for (const req of requests.slice(0, 1).concat([{ mode: 'exact', startByte: 8, endByte: 20 }])) {
      const want = await read(f, req);
      const got = await readRemote(kind.locator('adv/junk.txt'), req);
      expect([got.content, got.invalidUtf8, got.encoding]).toEqual([want.content, want.invalidUtf8, want.encoding]);
    }
    expect((await remoteInfo(kind.locator('adv/junk.txt'))).utf8).toEqual((await fileInfo(f)).utf8);
  });

  it('a window after the index exists costs one or two ranged reads of the value', async () => {
    await remoteInfo(loc()); // the sidecar exists
    forgetRemote();
    const v = await openRemote(loc());
    expect(v.indexFrom).toBe('sidecar');
    const before = v.source.fetches;
    await readRemote(loc(), { mode: 'bytes', startByte: 2_000_000, maxBytes: 65536 });
    expect(v.source.fetches - before).toBeGreaterThanOrEqual(1);
    expect(v.source.fetches - before).toBeLessThanOrEqual(2);
  });

  it('a value changed between its index and a read is indexed again, never read with the old index', async () => {
    const key = 'adv/moving.txt';
    await kind.put(key, Buffer.from('v1 line\n'));
    const a = await readRemote(kind.locator(key), { mode: 'head', lines: 5 });
    expect(a.content).toBe('v1 line\n');
    // Changed behind this process's back: its cached index and version are stale.
    await kind.put(key, Buffer.from('version two\nsecond\n'));
    const b = await readRemote(kind.locator(key), { mode: 'lines', ranges: [{ start: 2, end: 2 }] });
    expect(b.content).toBe('second\n');
    expect(b.version.etag).not.toBe(a.version.etag);
  });

  it('two versions of one value at once: each call reads the bytes of its own version, whatever the other mounts meanwhile', async () => {
    const key = 'side/twice.txt';
    await kind.put(key, Buffer.from('version A\n'));
    const at = kind.locator(key);
    forgetRemote();
    const a = await openRemote(at);
    await runOn(a, () => readBytes(at, 0, 10)); // A's bytes fetched while A exists
    await kind.put(key, Buffer.from('version B\n'));
    const b = await openRemote(at);
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // A's call reads after B's call has mounted B (and before B's ends).
    const [fromA, fromB] = await Promise.all([
      runOn(a, async () => {
        await pause(30);
        return readBytes(at, 0, 10).toString();
      }),
      runOn(b, async () => {
        await pause(5);
        const first = readBytes(at, 0, 10).toString();
        await pause(60);
        return first;
      }),
    ]);
    expect([fromA, fromB]).toEqual(['version A\n', 'version B\n']);
  });
});
