/**
 * The Azure blob backend against Azurite 3.35.0 on loopback (test/fixtures/azurite.ts says
 * what the emulator does and does not prove), every byte checked against a local splice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobServiceClient, ContainerSASPermissions, type ContainerClient } from '@azure/storage-blob';
import { openAzureBlob, type AzureBlobConfig } from '../../src-main/backends/azure/azure-blob.ts';
import { FolioError } from '../../src-main/engine/errors.ts';
import type { Backend } from '../../src-main/engine/backend/types.ts';
import { startAzurite, type Azurite } from '../fixtures/azurite.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
let azurite: Azurite;
let direct: ContainerClient;
let serial = 0;

/** Text lines with varying content, `size` bytes exactly. */
function textOf(size: number, seed = 1): Buffer {
  const out = Buffer.alloc(size);
  let at = 0;
  for (let i = 0; at < size; i++) {
    const line = Buffer.from(`${seed}:${i} ${'abcdefghij'.repeat((i * 7 + seed) % 9)}\n`);
    at += line.copy(out, at);
  }
  return out;
}

function splice(original: Buffer, start: number, end: number, content: Uint8Array): Buffer {
  return Buffer.concat([original.subarray(0, start), content, original.subarray(end)]);
}

async function putBlob(bytes: Uint8Array): Promise<string> {
  const name = `dir/blob-${++serial}.log`;
  await direct.getBlockBlobClient(name).upload(bytes, bytes.length);
  return name;
}

async function blobBytes(name: string): Promise<Buffer> {
  return direct.getBlockBlobClient(name).downloadToBuffer();
}

async function etagOf(name: string): Promise<string> {
  return (await direct.getBlockBlobClient(name).getProperties()).etag!;
}

function open(name: string, config: AzureBlobConfig = {}): Backend {
  return openAzureBlob(`az://folio/${name}`, { connectionString: azurite.connectionString, ...config });
}

async function failure(p: Promise<unknown>): Promise<FolioError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FolioError);
  return err as FolioError;
}

async function collect(it: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const c of it) chunks.push(c);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  azurite = await startAzurite();
  direct = BlobServiceClient.fromConnectionString(azurite.directConnectionString).getContainerClient('folio');
  await direct.create();
});

afterAll(async () => {
  await azurite?.stop();
});

describe('stat', () => {
  it('gives the ETag as the token, the size and the modification time', async () => {
    const bytes = textOf(10_000);
    const name = await putBlob(bytes);
    const v = await open(name).stat();
    const props = await direct.getBlockBlobClient(name).getProperties();
    expect(v).toEqual({ token: props.etag, size: 10_000, modifiedMs: props.lastModified!.getTime() });
  });

  it('is not_found for a missing blob and a missing container', async () => {
    expect((await failure(open('no/such/blob').stat())).code).toBe('not_found');
    const other = openAzureBlob('az://nocontainer/x', { connectionString: azurite.connectionString });
    expect((await failure(other.stat())).code).toBe('not_found');
  });

  it('is permission_denied with a wrong account key', async () => {
    const name = await putBlob(textOf(100));
    const wrongKey = Buffer.alloc(64, 7).toString('base64');
    const cs = azurite.connectionString.replace(/AccountKey=[^;]+/, `AccountKey=${wrongKey}`);
    const b = openAzureBlob(`az://folio/${name}`, { connectionString: cs });
    expect((await failure(b.stat())).code).toBe('permission_denied');
  });

  it('is io_error when the service is down, and invalid_input for a bad locator or no connection', async () => {
    const cs = azurite.directConnectionString.replace(/BlobEndpoint=[^;]+/, 'BlobEndpoint=http://127.0.0.1:1/devstoreaccount1');
    const b = openAzureBlob('az://folio/x', { connectionString: cs, pipeline: { retryOptions: { maxTries: 1 } } });
    expect((await failure(b.stat())).code).toBe('io_error');
    expect(() => openAzureBlob('az://only-container', { connectionString: cs })).toThrow(FolioError);
    const saved = process.env.AZURE_STORAGE_CONNECTION_STRING;
    delete process.env.AZURE_STORAGE_CONNECTION_STRING;
    try {
      expect(() => openAzureBlob('az://folio/x')).toThrow(/AZURE_STORAGE_CONNECTION_STRING/);
    } finally {
      if (saved !== undefined) process.env.AZURE_STORAGE_CONNECTION_STRING = saved;
    }
  });

  it('takes the connection from AZURE_STORAGE_CONNECTION_STRING', async () => {
    const name = await putBlob(textOf(77));
    const saved = process.env.AZURE_STORAGE_CONNECTION_STRING;
    process.env.AZURE_STORAGE_CONNECTION_STRING = azurite.connectionString;
    try {
      expect((await openAzureBlob(`az://folio/${name}`).stat()).size).toBe(77);
    } finally {
      if (saved === undefined) delete process.env.AZURE_STORAGE_CONNECTION_STRING;
      else process.env.AZURE_STORAGE_CONNECTION_STRING = saved;
    }
  });
});

describe('read', () => {
  const bytes = textOf(300 * KiB, 2);
  let name: string;
  beforeAll(async () => {
    name = await putBlob(bytes);
  });

  it('reads ranges at the edges, empty ranges and ranges past the end, clamped to the size', async () => {
    const b = open(name);
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
    const b = open(name);
    azurite.proxy.reset();
    const got = await b.read(100_000, 100_000 + 64 * KiB);
    expect(got.length).toBe(64 * KiB);
    expect(azurite.proxy.counts.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
    expect(azurite.proxy.counts.down.GET).toBe(64 * KiB);
  });

  it('checks the token with If-Match: a stale ETag is precondition_failed with the current version', async () => {
    const own = await putBlob(textOf(5000, 3));
    const b = open(own);
    const before = await b.stat();
    expect((await b.read(0, 10, before.token)).length).toBe(10);
    await direct.getBlockBlobClient(own).upload(textOf(6000, 4), 6000);
    const now = await etagOf(own);
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
    expect((await failure(open(name).read(-1, 5))).code).toBe('invalid_range');
    expect((await failure(open(name).read(0.5, 5))).code).toBe('invalid_range');
  });
});

describe('stream', () => {
  it('streams from a start offset to the end in one request', async () => {
    const bytes = textOf(2 * MiB + 123, 5);
    const name = await putBlob(bytes);
    const b = open(name);
    azurite.proxy.reset();
    expect((await collect(b.stream())).equals(bytes)).toBe(true);
    expect(azurite.proxy.counts.requests).toHaveLength(1);
    expect((await collect(b.stream(1_000_001))).equals(bytes.subarray(1_000_001))).toBe(true);
    expect((await collect(b.stream(bytes.length))).length).toBe(0);
    expect((await collect(b.stream(bytes.length + 5))).length).toBe(0);
  });

  it('with a stale token is precondition_failed', async () => {
    const name = await putBlob(textOf(1000, 6));
    const b = open(name);
    const v = await b.stat();
    await direct.getBlockBlobClient(name).upload(textOf(1000, 7), 1000);
    expect((await failure(collect(b.stream(0, v.token)))).code).toBe('precondition_failed');
    expect((await collect(b.stream(10, await etagOf(name)))).equals(textOf(1000, 7).subarray(10))).toBe(true);
  });
});

describe('replace', () => {
  it('splices the middle of a 6 MiB blob on the server: byte-for-byte, and the untouched bytes never reach the client', async () => {
    const bytes = textOf(6 * MiB + 4321, 8);
    const name = await putBlob(bytes);
    // small blocks so the prefix and suffix are each split into several
    const b = open(name, { maxCopyBlockBytes: 1 * MiB, maxStageBlockBytes: 100 * KiB });
    const v = await b.stat();
    const start = 3 * MiB + 17;
    const end = start + 50_000;
    const content = textOf(250 * KiB, 9);
    azurite.proxy.reset();
    const shimmedBefore = azurite.shimmedBlocks;
    const nv = await b.replace(start, end, content, v.token);
    const expected = splice(bytes, start, end, content);

    expect(nv.size).toBe(expected.length);
    expect(nv.token).not.toBe(v.token);
    expect(nv.token).toBe(await etagOf(name));
    expect((await blobBytes(name)).equals(expected)).toBe(true);
    // What crossed the client's wire: the new bytes up, no blob bytes down.
    expect(azurite.proxy.counts.down.GET ?? 0).toBe(0);
    expect(azurite.proxy.counts.up.PUT).toBeLessThan(content.length + 4 * KiB);
    expect(azurite.proxy.counts.up.PUT).toBeGreaterThanOrEqual(content.length);
    // prefix 3 MiB+17 in 1 MiB blocks → 4, suffix ~3 MiB → 4 (or 3): all from the URL
    expect(azurite.shimmedBlocks - shimmedBefore).toBeGreaterThanOrEqual(7);
    const list = await direct.getBlockBlobClient(name).getBlockList('committed');
    const ids = list.committedBlocks!.map((x) => x.name);
    expect(ids.length).toBe(azurite.shimmedBlocks - shimmedBefore + 3); // + 250 KiB in 100 KiB blocks
    expect(new Set(ids.map((id) => id.length)).size).toBe(1);
    expect(list.committedBlocks!.every((x) => x.size <= 1 * MiB)).toBe(true);
  });

  it('composes a blob whose name has spaces, +, % and non-ASCII (the SAS source URL is encoded right)', async () => {
    const bytes = textOf(2 * MiB, 30);
    const name = `odd/a b+c%25 é ${++serial}.log`;
    await direct.getBlockBlobClient(name).upload(bytes, bytes.length);
    const b = open(name, { maxCopyBlockBytes: 512 * KiB });
    const content = Buffer.from('odd names too\n');
    await b.replace(MiB, MiB + 10, content, (await b.stat()).token);
    expect((await blobBytes(name)).equals(splice(bytes, MiB, MiB + 10, content))).toBe(true);
  });

  it('composes with a container SAS connection string (no account key): the source URL carries that SAS', async () => {
    // A container SAS (Azurite 3.35.0 answers 500 to Put Block From URL under an account SAS).
    const sas = new URL(
      await direct.generateSasUrl({ permissions: ContainerSASPermissions.parse('racwdl'), expiresOn: new Date(Date.now() + 3_600_000) }),
    ).search.slice(1);
    const endpoint = /BlobEndpoint=([^;]+)/.exec(azurite.connectionString)![1];
    const bytes = textOf(2 * MiB, 32);
    const name = await putBlob(bytes);
    const b = openAzureBlob(`az://folio/${name}`, { connectionString: `BlobEndpoint=${endpoint};SharedAccessSignature=${sas}`, maxCopyBlockBytes: 512 * KiB });
    const shimmed = azurite.shimmedBlocks;
    const content = Buffer.from('through a SAS\n');
    await b.replace(MiB, MiB + 10, content, (await b.stat()).token);
    expect(azurite.shimmedBlocks - shimmed).toBe(4);
    expect((await blobBytes(name)).equals(splice(bytes, MiB, MiB + 10, content))).toBe(true);
  });

  it('replaces at the edges: at 0, up to the end, an insert, a delete, the whole, an empty blob', async () => {
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
      const name = await putBlob(bytes);
      const b = open(name);
      const v = await b.replace(s, e, content, (await b.stat()).token);
      const expected = splice(bytes, s, Math.min(e, size), content);
      expect((await blobBytes(name)).equals(expected), `[${s}, ${e})`).toBe(true);
      expect(v.size).toBe(expected.length);
    }
    const empty = await putBlob(Buffer.alloc(0));
    const b = open(empty);
    await b.replace(0, 0, Buffer.from('first\n'), (await b.stat()).token);
    expect((await blobBytes(empty)).toString()).toBe('first\n');
    const cleared = await b.replace(0, 6, Buffer.alloc(0), (await b.stat()).token);
    expect(cleared.size).toBe(0);
    expect((await blobBytes(empty)).length).toBe(0);
  });

  it('rejects a start past the end (out_of_bounds) and end before start (invalid_range), writing nothing', async () => {
    const bytes = textOf(1000, 11);
    const name = await putBlob(bytes);
    const b = open(name);
    const v = await b.stat();
    expect((await failure(b.replace(1001, 1002, Buffer.from('x'), v.token))).code).toBe('out_of_bounds');
    expect((await failure(b.replace(10, 5, Buffer.from('x'), v.token))).code).toBe('invalid_range');
    expect(await etagOf(name)).toBe(v.token);
  });

  it('with a stale ETag is precondition_failed and the blob is unchanged', async () => {
    const name = await putBlob(textOf(3 * MiB, 12));
    const b = open(name, { maxCopyBlockBytes: 1 * MiB });
    const stale = await b.stat();
    const changed = textOf(3 * MiB, 13);
    await direct.getBlockBlobClient(name).upload(changed, changed.length);
    const now = await etagOf(name);
    const err = await failure(b.replace(100, 200, Buffer.from('lost update'), stale.token));
    expect(err.code).toBe('precondition_failed');
    expect(err.details.current).toMatchObject({ token: now, size: changed.length });
    expect(await etagOf(name)).toBe(now);
    expect((await blobBytes(name)).equals(changed)).toBe(true);
  });

  it('a write landing after the version check but before the blocks are staged is caught by If-Match on the commit', async () => {
    // The one interleaving the discarding of uncommitted blocks does not cover: the other
    // writer commits before this replace stages anything, so only If-Match can refuse it.
    const bytes = textOf(2 * MiB, 17);
    const name = await putBlob(bytes);
    const b = open(name, { maxCopyBlockBytes: 512 * KiB });
    const v = await b.stat();
    const other = textOf(2 * MiB, 18);
    let fired = false;
    azurite.proxy.before = async (req) => {
      if (!fired && req.method === 'PUT' && (req.url ?? '').includes('comp=block')) {
        fired = true;
        await direct.getBlockBlobClient(name).upload(other, other.length);
      }
    };
    try {
      const err = await failure(b.replace(1000, 2000, Buffer.from('late writer'), v.token));
      expect(fired).toBe(true);
      expect(err.code).toBe('precondition_failed');
    } finally {
      azurite.proxy.before = undefined;
    }
    expect((await blobBytes(name)).equals(other)).toBe(true);
  });

  it('is not_found on a missing blob', async () => {
    expect((await failure(open('no/such').replace(0, 0, Buffer.from('x'), '"0x1"'))).code).toBe('not_found');
  });

  it('8 writers from the same ETag: exactly one wins, the others are precondition_failed, no lost update', async () => {
    const bytes = textOf(2 * MiB, 14);
    const name = await putBlob(bytes);
    const token = (await open(name).stat()).token;
    const start = 1 * MiB;
    const writers = Array.from({ length: 8 }, (_, i) => ({
      backend: open(name, { maxCopyBlockBytes: 512 * KiB }),
      content: Buffer.from(`writer ${i} was here\n`.repeat(i + 1)),
    }));
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
    expect((await blobBytes(name)).equals(splice(bytes, start, start + 100, writers[winner]!.content))).toBe(true);
    expect(await etagOf(name)).toBe((results[winner] as PromiseFulfilledResult<{ token: string }>).value.token);
  });
});

describe('create', () => {
  it('creates a blob only if it does not exist', async () => {
    const name = `new/created-${++serial}.txt`;
    const b = open(name);
    const v = await b.create(Buffer.from('hello\n'));
    expect(v).toMatchObject({ token: await etagOf(name), size: 6 });
    const err = await failure(b.create(Buffer.from('again\n')));
    expect(err.code).toBe('precondition_failed');
    expect(err.details.current).toMatchObject({ token: v.token });
    expect((await blobBytes(name)).toString()).toBe('hello\n');
  });

  it('creates a large blob in blocks, still only if absent', async () => {
    const name = `new/large-${++serial}.txt`;
    const bytes = textOf(700 * KiB, 15);
    const b = open(name, { maxSinglePutBytes: 256 * KiB, maxStageBlockBytes: 200 * KiB });
    expect((await b.create(bytes)).size).toBe(bytes.length);
    expect((await blobBytes(name)).equals(bytes)).toBe(true);
    expect((await direct.getBlockBlobClient(name).getBlockList('committed')).committedBlocks).toHaveLength(4);
    expect((await failure(b.create(bytes))).code).toBe('precondition_failed');
  });
});

describe('sidecar', () => {
  it('keeps side data per ETag: a new version finds none, and the stale one is dropped', async () => {
    const name = await putBlob(textOf(5000, 16));
    const b = open(name);
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
    const left: string[] = [];
    for await (const item of direct.listBlobsFlat({ prefix: `.folio-index/${name}/` })) left.push(item.name);
    expect(left.filter((n) => n.endsWith('/lines'))).toHaveLength(1);
    expect(left.filter((n) => n.endsWith('/other'))).toHaveLength(1);
  });
});
