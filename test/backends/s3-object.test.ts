/**
 * The S3 backend against an S3-compatible server on loopback (test/fixtures/s3-server.ts
 * says which, and what it does and does not prove), every byte checked against a local
 * splice. The adapter's code path is the one real S3 takes. This file keeps what is S3's
 * own: the environment it is configured from, the multipart part plan (copy parts,
 * a borrowed head, the 5 MiB minimum), conditional headers on copies and completes, a
 * writer landing between the check and the copies, multipart creates. What both
 * object stores do alike at the Backend interface (stat, ranged reads, streams,
 * replaces at the edges with S3's one If-Match PutObject under 5 MiB, stale ETags,
 * 8 racing writers, create with If-None-Match, sidecars) is in object-backend.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { openS3Object, type S3ObjectConfig } from '../../src-main/backends/s3/s3-object.ts';
import type { Backend } from '../../src-main/engine/backend/types.ts';
import { startS3Server, type S3TestServer } from '../fixtures/s3-server.ts';
import { failure, MiB, splice, textOf } from '../fixtures/object-bytes.ts';

let s3: S3TestServer;
let serial = 0;

async function putObject(bytes: Uint8Array): Promise<string> {
  const key = `dir/object-${++serial}.log`;
  await s3.direct.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: bytes, ContentLength: bytes.length }));
  return key;
}

async function objectBytes(key: string): Promise<Buffer> {
  const r = await s3.direct.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return Buffer.from(await r.Body!.transformToByteArray());
}

async function etagOf(key: string): Promise<string> {
  return (await s3.direct.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }))).ETag!;
}

function open(key: string, config: S3ObjectConfig = {}): Backend {
  return openS3Object(`s3://${s3.bucket}/${key}`, {
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: s3.credentials,
    ...config,
  });
}

/** The parts the proxy saw for the last multipart upload, in part order: [kind, bytes]. */
function partsSeen(): Array<['copy' | 'upload', number]> {
  return s3.proxy.counts.requests
    .filter((r) => r.method === 'PUT' && r.url.includes('partNumber='))
    .map((r) => {
      const n = Number(new URL(r.url, 'http://x').searchParams.get('partNumber'));
      const range = r.headers['x-amz-copy-source-range'];
      if (typeof range === 'string') {
        const [a, b] = range.replace('bytes=', '').split('-').map(Number);
        return [n, ['copy', b! - a! + 1]] as const;
      }
      return [n, ['upload', r.bytesUp]] as const;
    })
    .sort((x, y) => x[0] - y[0])
    .map(([, p]) => p as ['copy' | 'upload', number]);
}

beforeAll(async () => {
  s3 = await startS3Server();
});

afterAll(async () => {
  await s3?.stop();
});

describe('stat', () => {
  it('takes the endpoint and path style from AWS_ENDPOINT_URL and AWS_S3_FORCE_PATH_STYLE', async () => {
    const key = await putObject(textOf(77));
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ENDPOINT_URL: s3.endpoint,
      AWS_S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
      AWS_REGION: 'us-east-1',
    });
    try {
      expect((await openS3Object(`s3://${s3.bucket}/${key}`).stat()).size).toBe(77);
    } finally {
      for (const k of ['AWS_ENDPOINT_URL', 'AWS_S3_FORCE_PATH_STYLE', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });
});

describe('replace', () => {
  it('splices 6 MiB into the middle of a 24 MiB object with copy parts: byte-for-byte, nothing downloaded', async () => {
    const bytes = textOf(24 * MiB + 4321, 8);
    const key = await putObject(bytes);
    const b = open(key, { maxCopyPartBytes: 10 * MiB, maxUploadPartBytes: 10 * MiB });
    const v = await b.stat();
    const start = 12 * MiB + 17;
    const end = start + 50_000;
    const content = textOf(6 * MiB, 9);
    s3.proxy.reset();
    const nv = await b.replace(start, end, content, v.token);
    const expected = splice(bytes, start, end, content);

    expect(nv.size).toBe(expected.length);
    expect(nv.token).toBe(await etagOf(key));
    expect(nv.token).not.toBe(v.token);
    expect((await objectBytes(key)).equals(expected)).toBe(true);
    expect(s3.proxy.counts.down.GET ?? 0).toBe(0);
    expect(s3.proxy.counts.up.PUT).toBe(content.length);
    // prefix 12 MiB in ≤ 10 MiB copies → 2 of 6 MiB, the new 6 MiB → 1 upload, suffix ~12 MiB → 2
    const parts = partsSeen();
    expect(parts.map(([k]) => k)).toEqual(['copy', 'copy', 'upload', 'copy', 'copy']);
    expect(parts.slice(0, -1).every(([, n]) => n >= 5 * MiB)).toBe(true);
    expect(parts.reduce((n, [, x]) => n + x, 0)).toBe(expected.length);
    expect(
      s3.proxy.counts.requests
        .filter((r) => r.method === 'PUT' && r.headers['x-amz-copy-source'] !== undefined)
        .every((r) => r.headers['x-amz-copy-source-if-match'] === v.token),
    ).toBe(true);
    const complete = s3.proxy.counts.requests.find((r) => r.method === 'POST' && r.url.includes('uploadId='));
    expect(complete?.headers['if-match']).toBe(v.token);
  });

  it('a small edit borrows the head of the suffix into one part ≥ 5 MiB: at most 5 MiB travels of 24 MiB', async () => {
    const bytes = textOf(24 * MiB, 10);
    const key = await putObject(bytes);
    const b = open(key);
    const start = 10 * MiB + 3;
    const content = Buffer.from('a small edit\n');
    s3.proxy.reset();
    await b.replace(start, start + 7, content, (await b.stat()).token);
    expect((await objectBytes(key)).equals(splice(bytes, start, start + 7, content))).toBe(true);
    const parts = partsSeen();
    expect(parts.map(([k]) => k)).toEqual(['copy', 'upload', 'copy']);
    expect(parts[1]![1]).toBe(5 * MiB);
    expect(s3.proxy.counts.down.GET).toBe(5 * MiB - content.length);
  });

  it('composes an object whose key has spaces, +, % and non-ASCII (the copy source is encoded right)', async () => {
    const bytes = textOf(12 * MiB, 30);
    const key = `odd/a b+c%25 é ${++serial}.log`;
    await s3.direct.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: bytes, ContentLength: bytes.length }));
    const b = open(key);
    const content = textOf(6 * MiB, 31);
    const token = (await b.stat()).token;
    s3.proxy.reset();
    await b.replace(6 * MiB, 6 * MiB + 10, content, token);
    expect((await objectBytes(key)).equals(splice(bytes, 6 * MiB, 6 * MiB + 10, content))).toBe(true);
    expect(partsSeen().map(([k]) => k)).toEqual(['copy', 'upload', 'copy']);
  });

  it('replaces again on the object a replace composed (multipart ETag as the token)', async (ctx) => {
    if (s3.name.startsWith('OpenStack')) {
      ctx.skip(
        'Swift 2.30 checks x-amz-copy-source-if-match of a multipart-completed object against its own SLO etag, so it refuses the S3 ETag its HEAD reports (412); run with FOLIO_TEST_S3_SERVER=s3rver',
      );
    }
    let bytes = textOf(12 * MiB, 34);
    const key = await putObject(bytes);
    const b = open(key);
    for (let i = 0; i < 3; i++) {
      const content = Buffer.from(`round ${i}\n`);
      const at = 6 * MiB + i * 1000;
      const token = (await b.stat()).token;
      s3.proxy.reset();
      const v = await b.replace(at, at + 5, content, token);
      bytes = splice(bytes, at, at + 5, content);
      expect(v.token).toBe(await etagOf(key));
      expect((await objectBytes(key)).equals(bytes), `round ${i}`).toBe(true);
    }
  });

  it('a small prefix travels inside the first part; a small suffix stays the last copy part', async () => {
    const bytes = textOf(12 * MiB, 11);
    const cases: Array<[number, number, Buffer, string[]]> = [
      [1000, 2000, Buffer.from('near the head\n'), ['upload', 'copy']],
      [12 * MiB - 1 * MiB, 12 * MiB - 1 * MiB + 10, textOf(6 * MiB, 12), ['copy', 'upload', 'copy']],
      [0, 0, Buffer.from('prepended\n'), ['upload', 'copy']],
      [12 * MiB, 12 * MiB, Buffer.from('appended\n'), ['copy', 'upload']],
      [6 * MiB, 12 * MiB, Buffer.alloc(0), ['copy']],
      [0, 6 * MiB, Buffer.alloc(0), ['copy']],
    ];
    for (const [s, e, content, kinds] of cases) {
      const key = await putObject(bytes);
      const b = open(key);
      s3.proxy.reset();
      const v = await b.replace(s, e, content, (await b.stat()).token);
      const expected = splice(bytes, s, e, content);
      expect((await objectBytes(key)).equals(expected), `[${s}, ${e})`).toBe(true);
      expect(v.size).toBe(expected.length);
      const parts = partsSeen();
      expect(
        parts.map(([k]) => k),
        `[${s}, ${e})`,
      ).toEqual(kinds);
      expect(
        parts.slice(0, -1).every(([, n]) => n >= 5 * MiB),
        `[${s}, ${e})`,
      ).toBe(true);
    }
  });

  it('a write landing between the version check and the copies is not spliced in (CopySourceIfMatch), and the upload is aborted', async () => {
    const bytes = textOf(12 * MiB, 17);
    const key = await putObject(bytes);
    const b = open(key);
    const v = await b.stat();
    const other = textOf(12 * MiB, 18);
    let fired = false;
    s3.proxy.before = async (req) => {
      if (!fired && req.method === 'POST' && (req.url ?? '').includes('uploads')) {
        fired = true;
        await s3.direct.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: other, ContentLength: other.length }));
      }
    };
    try {
      s3.proxy.reset();
      const err = await failure(b.replace(6 * MiB, 6 * MiB + 10, textOf(6 * MiB, 19), v.token));
      expect(fired).toBe(true);
      expect(err.code).toBe('precondition_failed');
    } finally {
      s3.proxy.before = undefined;
    }
    expect((await objectBytes(key)).equals(other)).toBe(true);
    expect(s3.proxy.counts.requests.some((r) => r.method === 'DELETE' && r.url.includes('uploadId='))).toBe(true);
    expect(s3.proxy.counts.requests.some((r) => r.method === 'POST' && r.url.includes('uploadId='))).toBe(false);
  });

  it('the server itself refuses parts under 5 MiB, so the part sizes above are held to a real rule', async (ctx) => {
    if (s3.name.startsWith('s3rver')) ctx.skip('s3rver does not enforce the 5 MiB part minimum (fixtures/s3-server.ts)');
    const bytes = textOf(12 * MiB, 33);
    const key = await putObject(bytes);
    // an adapter told the minimum is 1 MiB cuts parts S3 does not accept
    const b = open(key, { minPartBytes: 1 * MiB, maxCopyPartBytes: 2 * MiB });
    const v = await b.stat();
    const err = await failure(b.replace(6 * MiB, 6 * MiB + 10, Buffer.from('x'), v.token));
    expect(err.code).toBe('io_error');
    expect(err.details.s3Code).toBe('EntityTooSmall');
    expect((await objectBytes(key)).equals(bytes)).toBe(true);
  });
});

describe('create', () => {
  it('creates a large object as a multipart upload, still only if absent', async () => {
    const key = `new/large-${++serial}.txt`;
    const bytes = textOf(11 * MiB, 21);
    const b = open(key, { maxSinglePutBytes: 1 * MiB, maxUploadPartBytes: 10 * MiB });
    s3.proxy.reset();
    expect((await b.create(bytes)).size).toBe(bytes.length);
    expect((await objectBytes(key)).equals(bytes)).toBe(true);
    expect(partsSeen().map(([k]) => k)).toEqual(['upload', 'upload']);
    expect(s3.proxy.counts.requests.find((r) => r.method === 'POST' && r.url.includes('uploadId='))?.headers['if-none-match']).toBe('*');
    expect((await failure(b.create(bytes))).code).toBe('precondition_failed');
  });
});
