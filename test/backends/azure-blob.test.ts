/**
 * The Azure blob backend against Azurite 3.35.0 on loopback (test/fixtures/azurite.ts says
 * what the emulator does and does not prove), every byte checked against a local splice:
 * what is Azure's own (account keys and the connection string, composition from
 * staged blocks and Put Block From URL, SAS source URLs, a writer landing between the
 * check and the commit). What both object stores do alike at the Backend interface
 * (stat, ranged reads, streams, replaces at the edges, stale ETags, 8 racing writers,
 * create, sidecars) is in object-backend.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobServiceClient, ContainerSASPermissions, type ContainerClient } from '@azure/storage-blob';
import { openAzureBlob, type AzureBlobConfig } from '../../src-main/backends/azure/azure-blob.ts';
import type { Backend } from '../../src-main/engine/backend/types.ts';
import { startAzurite, type Azurite } from '../fixtures/azurite.ts';
import { failure, KiB, MiB, splice, textOf } from '../fixtures/object-bytes.ts';

let azurite: Azurite;
let direct: ContainerClient;
let serial = 0;

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

beforeAll(async () => {
  azurite = await startAzurite();
  direct = BlobServiceClient.fromConnectionString(azurite.directConnectionString).getContainerClient('folio');
  await direct.create();
});

afterAll(async () => {
  await azurite?.stop();
});

describe('stat', () => {
  it('is permission_denied with a wrong account key', async () => {
    const name = await putBlob(textOf(100));
    const wrongKey = Buffer.alloc(64, 7).toString('base64');
    const cs = azurite.connectionString.replace(/AccountKey=[^;]+/, `AccountKey=${wrongKey}`);
    const b = openAzureBlob(`az://folio/${name}`, { connectionString: cs });
    expect((await failure(b.stat())).code).toBe('permission_denied');
  });

  it('refuses to open without a connection, naming AZURE_STORAGE_CONNECTION_STRING', async () => {
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
});

describe('create', () => {
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
