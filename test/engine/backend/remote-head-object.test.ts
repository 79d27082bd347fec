/**
 * The head window of an object never indexed (engine/backend/remote.ts onRemoteHead)
 * on the S3 server the suite picks (test/fixtures/s3-server.ts) and on Azurite: the
 * same content as the indexed read of the same window, with no total lines yet.
 * (test/api/remote-head-read.test.ts counts the bytes on Azurite and checks sed.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { read } from '../../../src-main/engine/read/read.ts';
import { forgetRemote, onRemoteHead, readRemote } from '../../../src-main/engine/backend/remote.ts';
import { startObjectStores, type ObjectStores } from '../../fixtures/object-stores.ts';

let stores: ObjectStores;
const KEY = 'head/big.log';
const bytes = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `line ${i + 1} ${i % 9 === 0 ? 'ünï ✓' : ''} ${'z'.repeat((i * 13) % 97)}\n`).join(''));

/** windows-1252 text (é as 0xE9): not UTF-8, which only the whole value's index may call a legacy encoding. */
const LATIN1 = 'head/latin1.log';
const latin1 = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `ligne ${i + 1} café ${'w'.repeat(i % 50)}\n`).join(''), 'latin1');

beforeAll(async () => {
  stores = await startObjectStores();
  await Promise.all([stores.az.put(KEY, bytes), stores.s3.put(KEY, bytes), stores.az.put(LATIN1, latin1), stores.s3.put(LATIN1, latin1)]);
});

afterAll(async () => {
  await stores?.stop();
});

describe.each(['az', 's3'] as const)('%s head window before the index', (scheme) => {
  it('reads the same window as once indexed, without total lines', async () => {
    const loc = stores[scheme].locator(KEY);
    for (const maxBytes of [1, 4096, 65_536, 700_000]) {
      forgetRemote();
      const head = await onRemoteHead(loc, maxBytes, (v) => read(v.backend.locator, { mode: 'bytes', startByte: 0, maxBytes }));
      expect(head, `${maxBytes}: served from the head`).toBeDefined();
      expect(head!.totalLines).toBeNull();
      const indexed = await readRemote(loc, { mode: 'bytes', startByte: 0, maxBytes });
      expect(indexed.totalLines).toBe(40_000);
      const { totalLines: _a, indexing: _b, newlineStyle: _c, ...want } = indexed;
      const { totalLines: _d, indexing: _e, newlineStyle: _f, ...got } = head!;
      expect(got, `${maxBytes}`).toEqual(want);
      // Indexed now: the head path steps aside.
      expect(await onRemoteHead(loc, maxBytes, async () => 'head')).toBeUndefined();
    }
  });

  it('leaves a head that is not UTF-8 to the index', async () => {
    forgetRemote();
    expect(await onRemoteHead(stores[scheme].locator(LATIN1), 65_536, async () => 'head')).toBeUndefined();
  });
});
