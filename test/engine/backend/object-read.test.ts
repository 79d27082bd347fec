/**
 * Every read mode over an object in object storage, az:// on Azurite and s3:// on the
 * S3 server test/fixtures/s3-server.ts picks (Swift s3api, or s3rver), through the
 * engine as the doors call it, with the same bytes in a local file as the oracle (the
 * local read path is itself checked against sed, grep and wc in test/engine/read.test.ts),
 * as postgres-read.test.ts does for pg://. The fixtures say what each server proves.
 * What every backend does alike (every read mode against the oracle, sed, wc, grep,
 * past the end, bytes that are not UTF-8, the cost of a window, a value changed
 * behind the process's back, two versions at once) is in conformance-read.test.ts;
 * this file keeps what is object storage's own.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { read, type ReadRequest } from '../../../src-main/engine/read/read.ts';
import { fileInfo } from '../../../src-main/engine/read/file-info.ts';
import { forgetRemote, onRemote, openRemote, readRemote, remoteInfo, runOn } from '../../../src-main/engine/backend/remote.ts';
import { readByInput } from '../../../src-main/api/read-address.ts';
import { startObjectStores, type ObjectStore, type ObjectStores } from '../../fixtures/object-stores.ts';
import { engineTempDir } from '../../fixtures/engine-env.ts';
import { pick, sampleValue } from '../../fixtures/remote-value.ts';

const tmp = engineTempDir();
let stores: ObjectStores;

const bytes = sampleValue();

beforeAll(async () => {
  stores = await startObjectStores();
});

afterAll(async () => {
  await stores?.stop();
});

describe.each(['az', 's3'] as const)('%s:// objects read like the same bytes in a local file', (scheme) => {
  const store = (): ObjectStore => stores[scheme];

  it('sections, JSON paths and tokens read through the same engine calls as for a file', async () => {
    const md = Buffer.from('# Title\n\nintro ✓\n\n## Part one\n\nalpha\nbeta\n\n## Part two\n\ngamma\n');
    const json = Buffer.from(JSON.stringify({ a: true, b: [1, 2, { c: 'ü' }], d: { e: 'x'.repeat(100) } }, null, 2) + '\n');
    await store().put('docs/readme.md', md);
    await store().put('docs/data.json', json);
    writeFileSync(tmp.path('readme.md'), md);
    writeFileSync(tmp.path('data.json'), json);
    const inputs: Array<[string, string, Record<string, unknown>]> = [
      ['docs/readme.md', 'readme.md', { section: 'Part one' }],
      ['docs/readme.md', 'readme.md', { lines: '3-6' }],
      ['docs/data.json', 'data.json', { json_path: '$.b[?@.c]' }],
      ['docs/data.json', 'data.json', { json_path: '$.d.e' }],
      ['docs/readme.md', 'readme.md', { token_start: 3, token_end: 12 }],
      ['docs/readme.md', 'readme.md', { page_tokens: 8, page: 2 }],
    ];
    for (const [key, file, input] of inputs) {
      const want = await readByInput({ path: tmp.path(file), ...input } as Parameters<typeof readByInput>[0]).catch((e: unknown) => e);
      const got = await onRemote(store().locator(key), (v) => readByInput({ path: v.backend.locator, ...input } as Parameters<typeof readByInput>[0])).catch(
        (e: unknown) => e,
      );
      const strip = (r: unknown) =>
        JSON.parse(JSON.stringify(r, (k, val) => (['path', 'version', 'elapsed_ms', 'etag', 'mtimeMs', 'mtime'].includes(k) ? undefined : val)));
      expect(strip(got), `${key} ${JSON.stringify(input)}`).toEqual(strip(want));
    }
  });
});

describe.each(['az', 's3'] as const)('%s:// the index sidecar and versions', (scheme) => {
  const store = (): ObjectStore => stores[scheme];

  it("is an object under .folio-index/ named by the object's ETag; a fresh process state reads it instead of the object", async () => {
    const key = 'side/kept.log';
    await store().put(key, bytes.subarray(0, 400_000));
    forgetRemote();
    const first = await openRemote(store().locator(key));
    expect(first.indexFrom).toBe('stream');
    expect(first.version.token).toBe(await store().etag(key));
    const sidecars = await store().list(`.folio-index/${key}/`);
    expect(sidecars.length).toBeGreaterThanOrEqual(1);
    forgetRemote();
    const again = await openRemote(store().locator(key));
    expect(again.indexFrom).toBe('sidecar');
    expect(again.index.lineCount).toBe(first.index.lineCount);
  });

  it('a sidecar of another ETag is never used: the object is indexed again', async () => {
    const key = 'side/rewritten.log';
    await store().put(key, bytes.subarray(0, 300_000));
    await remoteInfo(store().locator(key));
    const changed = Buffer.concat([Buffer.from('new first line\n'), bytes.subarray(0, 300_000), Buffer.from('\nappended\n')]);
    await store().put(key, changed);
    forgetRemote();
    const v = await openRemote(store().locator(key));
    expect(v.indexFrom).toBe('stream');
    const f = tmp.path(`${scheme}-rewritten.txt`);
    writeFileSync(f, changed);
    for (const req of [
      { mode: 'tail', lines: 3 },
      { mode: 'head', lines: 2 },
    ] as ReadRequest[]) {
      expect(pick(await readRemote(store().locator(key), req))).toEqual(pick(await read(f, req)));
    }
  });

  it('follow mode: an unchanged object answers from this process; an appended one extends the index, equal to a rebuild', async () => {
    const key = 'side/followed.log';
    const base = Buffer.from(Array.from({ length: 30000 }, (_, i) => `entry ${i} ✓ ${'y'.repeat(i % 90)}\r\n`).join('') + 'partial ü');
    await store().put(key, base);
    const loc = store().locator(key);
    forgetRemote();
    const first = await remoteInfo(loc);
    const again = await remoteInfo(loc);
    expect(again.backend.indexFrom).toBe('memory');
    expect(again.version.etag).toBe(first.version.etag);
    const more = Buffer.from(' tail\n' + 'next line ✓\r\n'.repeat(5000) + 'end');
    const whole = Buffer.concat([base, more]);
    await store().put(key, whole); // objects are rewritten whole; the engine sees only a bigger object
    const grown = await openRemote(loc);
    expect(grown.indexFrom).toBe('extended');
    const f = tmp.path(`${scheme}-growing.txt`);
    writeFileSync(f, whole);
    expect((await remoteInfo(loc)).lines).toBe((await fileInfo(f)).lines);
    forgetRemote();
    for (const s of await store().list(`.folio-index/${key}/`)) await store().remove(s);
    const rebuilt = await openRemote(loc);
    expect(rebuilt.indexFrom).toBe('stream');
    const facts = (i: typeof grown.index) => [i.lineCount, i.newlines, i.facts, i.newlineCounts, i.finalNewline, i.head, i.tail];
    expect(facts(grown.index)).toEqual(facts(rebuilt.index));
    for (const line of [1, 29999, 30001, 30002, 35001]) {
      expect(await runOn(grown, () => grown.index.lineStart(line - 1))).toBe(await runOn(rebuilt, () => rebuilt.index.lineStart(line - 1)));
    }
    expect((await readRemote(loc, { mode: 'tail', lines: 2 })).content).toBe((await read(f, { mode: 'tail', lines: 2 })).content);
  });
});

describe.each(['az', 's3'] as const)('%s:// adversarial', (scheme) => {
  const store = (): ObjectStore => stores[scheme];

  it('a missing object or container/bucket is not_found; a locator without a key is invalid_input', async () => {
    await expect(readRemote(store().locator('adv/no such object'), { mode: 'head', lines: 1 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(readRemote(`${scheme}://nosuchbucket/k.txt`, { mode: 'head', lines: 1 })).rejects.toMatchObject({ code: 'not_found' });
    for (const bad of [`${scheme}://folio`, `${scheme}://folio/`, `${scheme}:///key`]) {
      await expect(readRemote(bad, { mode: 'head', lines: 1 }), bad).rejects.toMatchObject({ code: 'invalid_input' });
    }
  });

  it('a name with a space, +, % and non-ASCII is the object its percent-encoded locator names', async () => {
    const key = 'odd/a b+c%d é.log';
    await store().put(key, Buffer.from('odd one\n'));
    await store().put('odd/a b+c%25d é.log', Buffer.from('decoy\n')); // what the encoded text would name verbatim
    const encoded = `${scheme}://${store().bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
    const r = await readRemote(encoded, { mode: 'head', lines: 1 });
    expect([r.content, r.path]).toEqual(['odd one\n', encoded]);
    expect((await remoteInfo(encoded)).backend.version).toBe(await store().etag(key));
  });

  it('an empty object reads as an empty file', async () => {
    await store().put('adv/empty.txt', Buffer.alloc(0));
    const f = tmp.path('empty.txt');
    writeFileSync(f, '');
    for (const req of [
      { mode: 'head', lines: 5 },
      { mode: 'tail', lines: 5 },
      { mode: 'bytes', startByte: 0, maxBytes: 10 },
    ] as ReadRequest[]) {
      expect(pick(await readRemote(store().locator('adv/empty.txt'), req))).toEqual(pick(await read(f, req)));
    }
    expect((await remoteInfo(store().locator('adv/empty.txt'))).lines).toBe((await fileInfo(f)).lines);
  });
});
