/**
 * The two object-storage adapters at the engine's Backend interface, alike: az:// on
 * Azurite (test/fixtures/azurite.ts) and s3:// on the S3 test server (s3-server.ts),
 * each through its counting proxy, every byte checked against a local splice. What
 * only one vendor does (Azure's block composition, SAS and account settings; S3's
 * multipart part plan, conditional headers and environment) stays in
 * azure-blob.test.ts and s3-object.test.ts. A new object store is one entry in
 * VENDORS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobServiceClient } from '@azure/storage-blob';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { openAzureBlob, type AzureBlobConfig } from '../../src-main/backends/azure/azure-blob.ts';
import { openS3Object, type S3ObjectConfig } from '../../src-main/backends/s3/s3-object.ts';
import { FolioError } from '../../src-main/engine/errors.ts';
import type { Backend } from '../../src-main/engine/backend/types.ts';
import type { CountingProxy } from '../fixtures/counting-proxy.ts';
import { startAzurite, type Azurite } from '../fixtures/azurite.ts';
import { startS3Server, type S3TestServer } from '../fixtures/s3-server.ts';
import { startConditionalProxy, type ConditionalProxy } from '../fixtures/s3-conditional-proxy.ts';
import { azureStore, headEtag, s3Store, type ObjectStore } from '../fixtures/object-stores.ts';
import { collect, failure, KiB, MiB, splice, textOf } from '../fixtures/object-bytes.ts';

interface Vendor {
  scheme: 'az' | 's3';
  store: ObjectStore;
  proxy: CountingProxy;
  /** the adapter for `key`, talking through the counting proxy */
  open(key: string): Backend;
  /** an adapter whose replace composes on the server, and the smallest object size that makes it do so */
  composing: { open(key: string): Backend; size: number };
  /** an adapter whose conditional writes the server (or the conditional proxy in front of it) decides */
  racing(key: string): Backend;
  modifiedMs(key: string): Promise<number>;
  /** an adapter for a key in a container or bucket that does not exist */
  missingContainer(): Backend;
  /** an adapter for a service that is not there (one try) */
  down(): Backend;
  /** a locator with no key */
  keyless: string;
  /** what the vendor checks of the requests a small replace sent (after proxy.reset()) */
  smallReplaceSent?(token: string): void;
  /** what the vendor checks of the requests a create sent (after proxy.reset()) */
  createSent?(): void;
}

let azurite: Azurite;
let s3: S3TestServer;
let conditional: ConditionalProxy | undefined;
let serial = 0;

const vendors = {} as Record<'az' | 's3', Vendor>;

function azVendor(): Vendor {
  const container = BlobServiceClient.fromConnectionString(azurite.directConnectionString).getContainerClient('folio');
  const open = (key: string, config: AzureBlobConfig = {}): Backend =>
    openAzureBlob(`az://folio/${key}`, { connectionString: azurite.connectionString, ...config });
  return {
    scheme: 'az',
    store: azureStore(azurite, container),
    proxy: azurite.proxy,
    open,
    composing: { open: (key) => open(key, { maxCopyBlockBytes: 512 * KiB }), size: 2 * MiB },
    racing: (key) => open(key, { maxCopyBlockBytes: 512 * KiB }),
    modifiedMs: async (key) => (await container.getBlockBlobClient(key).getProperties()).lastModified!.getTime(),
    missingContainer: () => openAzureBlob('az://nocontainer/x', { connectionString: azurite.connectionString }),
    down: () =>
      openAzureBlob('az://folio/x', {
        connectionString: azurite.directConnectionString.replace(/BlobEndpoint=[^;]+/, 'BlobEndpoint=http://127.0.0.1:1/devstoreaccount1'),
        pipeline: { retryOptions: { maxTries: 1 } },
      }),
    keyless: 'az://only-container',
  };
}

/** The parts the proxy saw for the last multipart upload, in part order (s3-object.test.ts has the part plan). */
const partRequests = (): unknown[] => s3.proxy.counts.requests.filter((r) => r.method === 'PUT' && r.url.includes('partNumber='));

function s3Vendor(): Vendor {
  const open = (key: string, config: S3ObjectConfig = {}): Backend =>
    openS3Object(`s3://${s3.bucket}/${key}`, { endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials, ...config });
  return {
    scheme: 's3',
    store: s3Store(s3, conditional),
    proxy: s3.proxy,
    open,
    composing: { open, size: 12 * MiB },
    // A server that ignores If-Match on writes (Swift s3api, s3rver) gets S3's rule from
    // the conditional proxy in front of it (docs/OBJECT-STORES.md says what that proves).
    racing: (key) => open(key, { endpoint: conditional?.url ?? s3.endpoint }),
    modifiedMs: async (Key) => (await s3.direct.send(new HeadObjectCommand({ Bucket: s3.bucket, Key }))).LastModified!.getTime(),
    missingContainer: () => openS3Object('s3://no-such-bucket/x', { endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials }),
    down: () => openS3Object('s3://folio/x', { endpoint: 'http://127.0.0.1:1', forcePathStyle: true, credentials: s3.credentials, client: { maxAttempts: 1 } }),
    keyless: 's3://bucket-only',
    // Under 5 MiB: read, spliced and put back whole, in one PutObject with If-Match.
    smallReplaceSent: (token) => {
      expect(partRequests()).toEqual([]);
      const put = s3.proxy.counts.requests.filter((r) => r.method === 'PUT');
      expect(put).toHaveLength(1);
      expect(put[0]!.headers['if-match']).toBe(token);
    },
    createSent: () => expect(s3.proxy.counts.requests.filter((r) => r.method === 'PUT').at(-1)?.headers['if-none-match']).toBe('*'),
  };
}

beforeAll(async () => {
  [azurite, s3] = await Promise.all([startAzurite(), startS3Server()]);
  await BlobServiceClient.fromConnectionString(azurite.directConnectionString).getContainerClient('folio').create();
  conditional = s3.conditionalWrites ? undefined : await startConditionalProxy(s3.endpoint, { headEtag: headEtag(s3) });
  vendors.az = azVendor();
  vendors.s3 = s3Vendor();
}); // the config's hookTimeout: starting Azurite and the S3 server beside the whole suite took over 2 min

afterAll(async () => {
  await conditional?.close();
  await Promise.allSettled([azurite?.stop(), s3?.stop()]);
});

describe.each(['az', 's3'] as const)('%s', (scheme) => {
  const v = (): Vendor => vendors[scheme];
  const put = async (bytes: Uint8Array): Promise<string> => {
    const key = `dir/object-${++serial}.log`;
    await v().store.put(key, bytes);
    return key;
  };

  describe('stat', () => {
    it('gives the ETag as the token, the size and the modification time', async () => {
      const key = await put(textOf(10_000));
      expect(await v().open(key).stat()).toEqual({ token: await v().store.etag(key), size: 10_000, modifiedMs: await v().modifiedMs(key) });
    });

    it('is not_found for a missing object and a missing container or bucket', async () => {
      expect((await failure(v().open('no/such/key').stat())).code).toBe('not_found');
      expect((await failure(v().missingContainer().stat())).code).toBe('not_found');
    });

    it('is io_error when the service is down, invalid_input for a locator without a key', async () => {
      expect((await failure(v().down().stat())).code).toBe('io_error');
      let err: unknown;
      try {
        (scheme === 'az' ? openAzureBlob : openS3Object)(v().keyless, {});
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ name: 'FolioError', code: 'invalid_input' });
    });
  });

  describe('read', () => {
    const bytes = textOf(300 * KiB, 2);
    let key: string;
    beforeAll(async () => {
      key = await put(bytes);
    });

    it('reads ranges at the edges, empty ranges and ranges past the end, clamped to the size', async () => {
      const b = v().open(key);
      const size = bytes.length;
      const cases: Array<[number, number]> = [
        [0, 1],
        [0, 4096],
        [1000, 70_000],
        [size - 5, size],
        [size - 3, size + 100],
        [7, 7],
        [size, size],
        [size, size + 10],
        [size + 100, size + 200],
        [0, size],
      ];
      for (const [s, e] of cases) {
        expect(Buffer.from(await b.read(s, e)).equals(bytes.subarray(s, e)), `[${s}, ${e})`).toBe(true);
      }
    });

    it('reads one ranged GET, downloading only the window', async () => {
      const b = v().open(key);
      v().proxy.reset();
      const got = await b.read(100_000, 100_000 + 64 * KiB);
      expect(got.length).toBe(64 * KiB);
      expect(v().proxy.counts.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
      expect(v().proxy.counts.down.GET).toBe(64 * KiB);
    });

    it('checks the token with If-Match: a stale ETag is precondition_failed with the current version', async () => {
      const own = await put(textOf(5000, 3));
      const b = v().open(own);
      const before = await b.stat();
      expect((await b.read(0, 10, before.token)).length).toBe(10);
      await v().store.put(own, textOf(6000, 4));
      const now = await v().store.etag(own);
      for (const [s, e] of [
        [0, 10],
        [3, 3],
        [9000, 9100],
      ] as const) {
        const err = await failure(b.read(s, e, before.token));
        expect(err.code).toBe('precondition_failed');
        expect(err.details.current).toMatchObject({ token: now, size: 6000 });
      }
    });

    it('rejects a negative or fractional range with invalid_range', async () => {
      expect((await failure(v().open(key).read(-1, 5))).code).toBe('invalid_range');
      expect((await failure(v().open(key).read(0.5, 5))).code).toBe('invalid_range');
    });
  });

  describe('stream', () => {
    it('streams from a start offset to the end in one request', async () => {
      const bytes = textOf(2 * MiB + 123, 5);
      const b = v().open(await put(bytes));
      v().proxy.reset();
      expect((await collect(b.stream())).equals(bytes)).toBe(true);
      expect(v().proxy.counts.requests).toHaveLength(1);
      expect((await collect(b.stream(1_000_001))).equals(bytes.subarray(1_000_001))).toBe(true);
      expect((await collect(b.stream(bytes.length))).length).toBe(0);
      expect((await collect(b.stream(bytes.length + 5))).length).toBe(0);
    });

    it('with a stale token is precondition_failed', async () => {
      const key = await put(textOf(1000, 6));
      const b = v().open(key);
      const stale = await b.stat();
      await v().store.put(key, textOf(1000, 7));
      expect((await failure(collect(b.stream(0, stale.token)))).code).toBe('precondition_failed');
      expect((await collect(b.stream(10, await v().store.etag(key)))).equals(textOf(1000, 7).subarray(10))).toBe(true);
    });
  });

  describe('replace', () => {
    it('replaces at the edges: at 0, up to the end, an insert, a delete, the whole, an append, past the end, an empty object', async () => {
      const bytes = textOf(40 * KiB, 10);
      const size = bytes.length;
      const cases: Array<[number, number, Buffer]> = [
        [0, 10, Buffer.from('HEAD')],
        [size - 100, size, Buffer.from('TAIL\n')],
        [500, 500, Buffer.from('inserted\n')],
        [1000, 5000, Buffer.alloc(0)],
        [0, size, Buffer.from('whole\n')],
        [size, size, Buffer.from('appended\n')],
        [10, size + 50, Buffer.from('clamped end\n')],
      ];
      for (const [s, e, content] of cases) {
        const key = await put(bytes);
        const b = v().open(key);
        const token = (await b.stat()).token;
        v().proxy.reset();
        const nv = await b.replace(s, e, content, token);
        const expected = splice(bytes, s, Math.min(e, size), content);
        expect((await v().store.get(key)).equals(expected), `[${s}, ${e})`).toBe(true);
        expect(nv.size).toBe(expected.length);
        v().smallReplaceSent?.(token);
      }
      const empty = await put(Buffer.alloc(0));
      const b = v().open(empty);
      await b.replace(0, 0, Buffer.from('first\n'), (await b.stat()).token);
      expect((await v().store.get(empty)).toString()).toBe('first\n');
      expect((await b.replace(0, 6, Buffer.alloc(0), (await b.stat()).token)).size).toBe(0);
      expect((await v().store.get(empty)).length).toBe(0);
    });

    it('rejects a start past the end (out_of_bounds) and end before start (invalid_range), writing nothing', async () => {
      const key = await put(textOf(1000, 11));
      const b = v().open(key);
      const now = await b.stat();
      expect((await failure(b.replace(1001, 1002, Buffer.from('x'), now.token))).code).toBe('out_of_bounds');
      expect((await failure(b.replace(10, 5, Buffer.from('x'), now.token))).code).toBe('invalid_range');
      expect(await v().store.etag(key)).toBe(now.token);
    });

    it('with a stale ETag is precondition_failed and the object is unchanged (composed on the server and small)', async () => {
      for (const size of [v().composing.size, 3000]) {
        const key = await put(textOf(size, 12));
        const b = v().composing.open(key);
        const stale = await b.stat();
        const changed = textOf(size, 13);
        await v().store.put(key, changed);
        const now = await v().store.etag(key);
        const err = await failure(b.replace(100, 200, Buffer.from('lost update'), stale.token));
        expect(err.code).toBe('precondition_failed');
        expect(err.details.current).toMatchObject({ token: now, size });
        expect(await v().store.etag(key)).toBe(now);
        expect((await v().store.get(key)).equals(changed)).toBe(true);
      }
    });

    it('is not_found on a missing object', async () => {
      expect((await failure(v().open('no/such').replace(0, 0, Buffer.from('x'), '"0x1"'))).code).toBe('not_found');
    });

    it('8 writers from the same ETag: exactly one wins, the others are precondition_failed, no lost update', async () => {
      const bytes = textOf(v().composing.size, 14);
      const key = await put(bytes);
      const token = await v().store.etag(key);
      const start = v().composing.size / 2;
      const writers = Array.from({ length: 8 }, (_, i) => ({ backend: v().racing(key), content: Buffer.from(`writer ${i} was here\n`.repeat(i + 1)) }));
      const results = await Promise.allSettled(writers.map((w) => w.backend.replace(start, start + 100, w.content, token)));
      const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      expect(won).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') {
          expect(r.reason).toBeInstanceOf(FolioError);
          expect((r.reason as FolioError).code).toBe('precondition_failed');
        }
      }
      const winner = won[0]!;
      expect((await v().store.get(key)).equals(splice(bytes, start, start + 100, writers[winner]!.content))).toBe(true);
      expect(await v().store.etag(key)).toBe((results[winner] as PromiseFulfilledResult<{ token: string }>).value.token);
    });
  });

  describe('create', () => {
    it('creates an object only if it does not exist', async () => {
      const key = `new/created-${++serial}.txt`;
      const b = v().open(key);
      v().proxy.reset();
      const created = await b.create(Buffer.from('hello\n'));
      v().createSent?.();
      expect(created).toMatchObject({ token: await v().store.etag(key), size: 6 });
      const err = await failure(b.create(Buffer.from('again\n')));
      expect(err.code).toBe('precondition_failed');
      expect(err.details.current).toMatchObject({ token: created.token });
      expect((await v().store.get(key)).toString()).toBe('hello\n');
    });
  });

  describe('sidecar', () => {
    it('keeps side data per ETag: a new version finds none, and the stale one is dropped', async () => {
      const key = await put(textOf(5000, 16));
      const b = v().open(key);
      const v1 = await b.stat();
      expect(await b.sidecar.get('lines', v1.token)).toBeNull();
      await b.sidecar.put('lines', v1.token, Buffer.from('index v1'));
      await b.sidecar.put('other', v1.token, Buffer.from('other v1'));
      expect(Buffer.from((await b.sidecar.get('lines', v1.token))!).toString()).toBe('index v1');
      // the sidecar's own writes do not change the resource's version
      expect((await b.stat()).token).toBe(v1.token);

      const v2 = await b.replace(0, 1, Buffer.from('X'), v1.token);
      expect(await b.sidecar.get('lines', v2.token)).toBeNull();
      await b.sidecar.put('lines', v2.token, Buffer.from('index v2'));
      expect(Buffer.from((await b.sidecar.get('lines', v2.token))!).toString()).toBe('index v2');
      expect(await b.sidecar.get('lines', v1.token)).toBeNull();
      const left = await v().store.list(`.folio-index/${key}/`);
      expect(left.filter((n) => n.endsWith('/lines'))).toHaveLength(1);
      expect(left.filter((n) => n.endsWith('/other'))).toHaveLength(1);
    });
  });
});
