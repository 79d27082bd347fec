/**
 * An S3 object as a Folio backend (`s3://BUCKET/KEY`), through the vendor SDK
 * (@aws-sdk/client-s3). The code path is the one real S3 takes; nothing here knows
 * which server answers.
 *
 * - stat: HeadObject; the ETag is the version token.
 * - read/stream: one GetObject with `Range`, `If-Match` when a token is given. The
 *   ETag of every answer is also compared with the token, so a server that ignores
 *   If-Match on reads still cannot hand back another version's bytes.
 * - replace: a multipart upload composed on the server: UploadPartCopy with
 *   `x-amz-copy-source-range` for the untouched prefix [0, start) and suffix [end, size),
 *   each with `x-amz-copy-source-if-match: <token>` so a concurrent change cannot be
 *   spliced in, UploadPart for the new bytes, CompleteMultipartUpload with
 *   `If-Match: <token>` (S3 conditional writes, 412 or 409 when another write won).
 *   Every part but the last must be at least 5 MiB
 *   (https://docs.aws.amazon.com/AmazonS3/latest/userguide/qfacts.html): an edge range
 *   under that is downloaded and merged into the uploaded part, and when the new bytes
 *   are under 5 MiB the first bytes of the suffix are borrowed into them, so at most
 *   ~10 MiB of untouched bytes travel, whatever the object's size. When no copy part
 *   is possible (objects under 5 MiB), the whole new object is one PutObject with
 *   If-Match (read-modify-write). Any failure aborts the upload.
 * - create: PutObject (or a multipart upload) with `If-None-Match: *`.
 * - sidecar: an object `.folio-index/<key>/<etag>/<name>` in the same bucket.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  UploadPartCopyCommand,
  type CompletedPart,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { FolioError } from '../../engine/errors.ts';
import { checkRange, concat, runLimited, tokenSegment } from '../object-util.ts';
import type { Backend, BackendVersion } from '../../engine/backend/types.ts';
import { evenSplit, planS3Parts, type PartLimits } from './s3-parts.ts';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const SIDECAR_PREFIX = '.folio-index/';
/** S3's limit of parts per upload */
const MAX_PARTS = 10_000;

export interface S3ObjectConfig {
  /** defaults to AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL (unset: AWS) */
  endpoint?: string;
  /** defaults to AWS_REGION / AWS_DEFAULT_REGION, else us-east-1 */
  region?: string;
  /** path-style URLs (local servers); defaults to AWS_S3_FORCE_PATH_STYLE=true */
  forcePathStyle?: boolean;
  /** defaults to the SDK's chain (AWS_ACCESS_KEY_ID, profiles, roles) */
  credentials?: S3ClientConfig['credentials'];
  /** S3's minimum part size, 5 MiB; only a test of the algorithm changes it */
  minPartBytes?: number;
  /** largest copied part (S3: 5 GiB) */
  maxCopyPartBytes?: number;
  /** largest uploaded part of new bytes (default 64 MiB) */
  maxUploadPartBytes?: number;
  /** largest create done as one PutObject (default 512 MiB; S3 allows 5 GiB) */
  maxSinglePutBytes?: number;
  /** extra SDK settings (retries, a request handler) */
  client?: Partial<S3ClientConfig>;
}

/** `s3://BUCKET/KEY` → its parts; the key may contain slashes. */
export function parseS3Locator(locator: string): { bucket: string; key: string } {
  const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(locator);
  if (!m) throw new FolioError('invalid_input', `not an S3 locator (s3://BUCKET/KEY): ${locator}`, { locator });
  return { bucket: m[1]!, key: m[2]! };
}

/**
 * The object `locator` names. `names`, when given, are the bucket and key the locator
 * stands for (registry.ts passes the decoded parts of a canonical, percent-encoded
 * locator); without them the locator's text is taken as the names verbatim.
 */
export function openS3Object(locator: string, config: S3ObjectConfig = {}, names?: { bucket: string; key: string }): Backend {
  const { bucket, key } = names ?? parseS3Locator(locator);
  const env = process.env;
  const endpoint = config.endpoint ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  const client = new S3Client({
    region: config.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle: config.forcePathStyle ?? env.AWS_S3_FORCE_PATH_STYLE === 'true',
    ...(config.credentials ? { credentials: config.credentials } : {}),
    // Checksums only where S3 requires them: aws-chunked trailers are not spoken by every
    // S3-compatible server; bytes are checked against the ETag preconditions instead.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...config.client,
  });
  const minPartBytes = config.minPartBytes ?? 5 * MiB;
  return new S3ObjectBackend(locator, client, bucket, key, {
    minPartBytes,
    // at least twice the minimum, so a range can always be cut into parts that are all ≥ the minimum
    maxCopyPartBytes: Math.max(2 * minPartBytes, config.maxCopyPartBytes ?? 5 * GiB),
    maxUploadPartBytes: Math.max(2 * minPartBytes, config.maxUploadPartBytes ?? 64 * MiB),
    maxSinglePutBytes: config.maxSinglePutBytes ?? 512 * MiB,
  });
}

interface Limits extends PartLimits {
  maxSinglePutBytes: number;
}

/** One part of a composed object: a range of the current object, or bytes sent. */
type Piece = { copy: [number, number] } | { bytes: Uint8Array };

class S3ObjectBackend implements Backend {
  readonly scheme = 's3' as const;
  readonly sidecar: Backend['sidecar'];

  constructor(
    readonly locator: string,
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
    private readonly limits: Limits,
  ) {
    this.sidecar = {
      get: (name, token) => this.sidecarGet(name, token),
      put: (name, token, bytes) => this.sidecarPut(name, token, bytes),
    };
  }

  async stat(): Promise<BackendVersion> {
    return this.head();
  }

  private async head(ifToken?: string): Promise<BackendVersion> {
    let v: BackendVersion;
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key, IfMatch: ifToken }));
      v = version(r.ETag, r.ContentLength, r.LastModified);
    } catch (err) {
      throw await this.mapConditionError(err, ifToken);
    }
    if (ifToken !== undefined && !sameEtag(v.token, ifToken)) throw preconditionFailed(this.locator, v);
    return v;
  }

  async read(start: number, end: number, token?: string): Promise<Uint8Array> {
    checkRange(start, end, this.locator);
    const chunks: Uint8Array[] = [];
    for await (const c of this.get(start, end, token)) chunks.push(c);
    return concat(chunks);
  }

  stream(start = 0, token?: string): AsyncIterable<Uint8Array> {
    checkRange(start, Infinity, this.locator);
    return this.get(start, Infinity, token);
  }

  /** One GetObject of [start, end), clamped to the size; end = Infinity: to the end. */
  private async *get(start: number, end: number, token?: string): AsyncGenerator<Uint8Array> {
    if (end <= start) {
      if (token !== undefined) await this.head(token);
      return;
    }
    const Range = Number.isFinite(end) ? `bytes=${start}-${end - 1}` : `bytes=${start}-`;
    let body: AsyncIterable<Uint8Array> & { destroy?: () => void };
    let bodyStart: number;
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key, Range, IfMatch: token }));
      body = r.Body as unknown as typeof body;
      // HTTP lets a server ignore Range (200, the whole object) or answer a wider range
      // than asked; Content-Range says where the body starts, and only [start, end) is passed on.
      bodyStart = r.$metadata.httpStatusCode === 200 ? 0 : Number(/^bytes (\d+)-/.exec(r.ContentRange ?? '')?.[1] ?? start);
      if (bodyStart > start) {
        body?.destroy?.();
        throw new FolioError('io_error', `asked ${Range} of ${this.locator}, got ${r.ContentRange ?? 'no Content-Range'}`);
      }
      if (token !== undefined && !sameEtag(r.ETag, token)) {
        body?.destroy?.();
        throw preconditionFailed(this.locator, await this.head());
      }
    } catch (err) {
      if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 416) {
        if (token !== undefined) await this.head(token);
        return;
      }
      throw await this.mapConditionError(err, token);
    }
    if (!body) return;
    let skip = start - bodyStart;
    let left = end - start;
    try {
      for await (let chunk of body) {
        if (skip > 0) {
          const cut = Math.min(skip, chunk.length);
          chunk = chunk.subarray(cut);
          skip -= cut;
        }
        if (chunk.length >= left) {
          if (left > 0) yield chunk.subarray(0, left);
          body.destroy?.();
          return;
        }
        left -= chunk.length;
        if (chunk.length) yield chunk;
      }
    } catch (err) {
      throw this.mapError(err);
    }
  }

  async replace(start: number, end: number, content: Uint8Array, ifToken: string): Promise<BackendVersion> {
    checkRange(start, end, this.locator);
    if (end < start) throw new FolioError('invalid_range', `end ${end} before start ${start}`, { start, end });
    const { size } = await this.head(ifToken);
    if (start > size) {
      throw new FolioError('out_of_bounds', `start ${start} is past the end (${size} bytes) of ${this.locator}`, { start, size });
    }
    end = Math.min(end, size);
    const newSize = start + content.length + (size - end);
    const plan = planS3Parts(start, end, size, content.length, this.limits);
    if (plan.length > MAX_PARTS) {
      throw new FolioError('too_large', `the edit needs ${plan.length} parts; S3 allows ${MAX_PARTS}`, { parts: plan.length });
    }
    // Edge bytes that must travel (small edges, the borrowed head of the suffix): ranged
    // reads of this version only.
    const parts: Piece[] = [];
    for (const p of plan) {
      if ('copy' in p) {
        parts.push(p);
        continue;
      }
      const chunks: Uint8Array[] = [];
      for (const src of p.upload) {
        chunks.push('content' in src ? content.subarray(src.content[0], src.content[1]) : await this.read(src.fetch[0], src.fetch[1], ifToken));
      }
      parts.push({ bytes: concat(chunks) });
    }
    if (!parts.some((p) => 'copy' in p)) {
      // Nothing to copy (an object under the part minimum): the whole new object is one
      // conditional PutObject.
      const body = parts.length ? (parts[0] as { bytes: Uint8Array }).bytes : new Uint8Array(0);
      try {
        const r = await this.client.send(
          new PutObjectCommand({ Bucket: this.bucket, Key: this.key, Body: body, ContentLength: body.length, IfMatch: ifToken }),
        );
        return version(r.ETag, newSize, undefined);
      } catch (err) {
        throw await this.mapConditionError(err, ifToken);
      }
    }
    return this.multipart(parts, newSize, { IfMatch: ifToken }, ifToken);
  }

  /** One multipart upload of `parts`, completed under `conditions`, aborted on any failure. */
  private async multipart(
    parts: Piece[],
    newSize: number,
    conditions: { IfMatch?: string; IfNoneMatch?: string },
    ifToken: string | undefined,
  ): Promise<BackendVersion> {
    const Bucket = this.bucket;
    const Key = this.key;
    let UploadId: string | undefined;
    try {
      UploadId = (await this.client.send(new CreateMultipartUploadCommand({ Bucket, Key }))).UploadId;
      if (!UploadId) throw new FolioError('io_error', `no upload id for ${this.locator}`);
      const done: CompletedPart[] = new Array(parts.length);
      const CopySource = `${this.bucket}/${this.key.split('/').map(encodeURIComponent).join('/')}`;
      await runLimited(
        parts.map((p, i) => async () => {
          const PartNumber = i + 1;
          if ('copy' in p) {
            const r = await this.client.send(
              new UploadPartCopyCommand({
                Bucket,
                Key,
                UploadId,
                PartNumber,
                CopySource,
                CopySourceRange: `bytes=${p.copy[0]}-${p.copy[1] - 1}`,
                CopySourceIfMatch: ifToken,
              }),
            );
            done[i] = { PartNumber, ETag: r.CopyPartResult?.ETag };
          } else {
            const r = await this.client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: p.bytes, ContentLength: p.bytes.length }));
            done[i] = { PartNumber, ETag: r.ETag };
          }
        }),
        4,
      );
      const r = await this.client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: done }, ...conditions }));
      UploadId = undefined;
      return version(r.ETag, newSize, undefined);
    } catch (err) {
      if (UploadId) {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => undefined);
      }
      if (conditions.IfNoneMatch) throw await this.mapCreateError(err);
      throw await this.mapConditionError(err, ifToken);
    }
  }

  async create(content: Uint8Array): Promise<BackendVersion> {
    // S3 enforces If-None-Match; the HEAD first gives the usual answer a clear error everywhere.
    const existing = await this.head().catch((err: unknown) => {
      if (err instanceof FolioError && err.code === 'not_found') return undefined;
      throw err;
    });
    if (existing) throw new FolioError('precondition_failed', `${this.locator} already exists`, { current: existing });
    if (content.length > this.limits.maxSinglePutBytes) {
      const parts = evenSplit(0, content.length, this.limits.maxUploadPartBytes).map(([a, b]) => ({ bytes: content.subarray(a, b) }));
      return this.multipart(parts, content.length, { IfNoneMatch: '*' }, undefined);
    }
    try {
      const r = await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: this.key, Body: content, ContentLength: content.length, IfNoneMatch: '*' }),
      );
      return version(r.ETag, content.length, undefined);
    } catch (err) {
      throw await this.mapCreateError(err);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private sidecarKey(name: string, token: string): string {
    return `${this.sidecarDir()}${tokenSegment(token)}/${encodeURIComponent(name)}`;
  }

  private sidecarDir(): string {
    return `${SIDECAR_PREFIX}${this.key}/`;
  }

  private async sidecarGet(name: string, token: string): Promise<Uint8Array | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.sidecarKey(name, token) }));
      return r.Body ? await r.Body.transformToByteArray() : new Uint8Array(0);
    } catch (err) {
      if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404) return null;
      throw this.mapError(err);
    }
  }

  private async sidecarPut(name: string, token: string, bytes: Uint8Array): Promise<void> {
    const Key = this.sidecarKey(name, token);
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: bytes, ContentLength: bytes.length }));
      // Sidecars of older ETags are dead weight now: drop them (best effort).
      const suffix = `/${encodeURIComponent(name)}`;
      let ContinuationToken: string | undefined;
      do {
        const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.sidecarDir(), ContinuationToken }));
        for (const o of page.Contents ?? []) {
          if (o.Key && o.Key !== Key && o.Key.endsWith(suffix)) {
            await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: o.Key })).catch(() => undefined);
          }
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    } catch (err) {
      throw this.mapError(err);
    }
  }

  private async mapCreateError(err: unknown): Promise<FolioError> {
    const status = err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
    if (status === 412 || status === 409) {
      // 409 ConditionalRequestConflict: another write of the key was under way, and may
      // not have landed yet: nothing of ours was written either way, the object may be absent.
      const current = await this.head().catch((e: unknown) => {
        if (status === 409 && e instanceof FolioError && e.code === 'not_found') return undefined;
        throw e;
      });
      const why = current ? 'already exists' : 'is being created by another writer (409 ConditionalRequestConflict)';
      return new FolioError('precondition_failed', `${this.locator} ${why}`, current ? { current } : { s3Code: 'ConditionalRequestConflict' });
    }
    return this.mapError(err);
  }

  /** A failure under If-Match: when the object is no longer version `token`, precondition_failed with the current one. */
  private async mapConditionError(err: unknown, token: string | undefined): Promise<FolioError> {
    if (err instanceof FolioError) return err;
    const status = err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
    // 412 PreconditionFailed; 409 ConditionalRequestConflict (a concurrent conditional write).
    if (token !== undefined && (status === 412 || status === 409)) {
      let current: BackendVersion;
      try {
        current = await this.head();
      } catch (e) {
        return this.mapError(e);
      }
      if (!sameEtag(current.token, token) || status === 409) return preconditionFailed(this.locator, current);
    }
    return this.mapError(err);
  }

  private mapError(err: unknown): FolioError {
    if (err instanceof FolioError) return err;
    if (err instanceof S3ServiceException) {
      const status = err.$metadata.httpStatusCode;
      const details = { locator: this.locator, status, s3Code: err.name };
      if (status === 404) return new FolioError('not_found', `no such object: ${this.locator} (${err.name})`, details);
      if (status === 401 || status === 403) return new FolioError('permission_denied', `permission denied on ${this.locator} (${err.name})`, details);
      if (status === 412) return new FolioError('precondition_failed', `${this.locator} has changed (${err.name})`, details);
      return new FolioError('io_error', `S3 ${status ?? ''} ${err.name} on ${this.locator}: ${err.message}`, details);
    }
    const e = err as { message?: string; code?: string; name?: string };
    return new FolioError('io_error', `S3 request failed on ${this.locator}: ${e?.message ?? String(err)}`, {
      locator: this.locator,
      errno: e?.code ?? e?.name,
    });
  }
}

function sameEtag(a: string | undefined, b: string): boolean {
  const norm = (s: string): string => s.replace(/^W\//, '').replaceAll('"', '');
  return a !== undefined && norm(a) === norm(b);
}

function preconditionFailed(locator: string, current: BackendVersion): FolioError {
  return new FolioError('precondition_failed', `${locator} has changed: now version ${current.token}`, { current });
}

function version(etag: string | undefined, size: number | undefined, modified: Date | undefined): BackendVersion {
  if (!etag) throw new FolioError('io_error', 'the server answered without an ETag');
  return { token: etag, size: size ?? 0, ...(modified ? { modifiedMs: modified.getTime() } : {}) };
}
