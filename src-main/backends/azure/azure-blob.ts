/**
 * An Azure block blob as a Folio backend (`az://CONTAINER/BLOB`), through the vendor
 * SDK (@azure/storage-blob).
 *
 * - stat: Get Blob Properties; the ETag is the version token.
 * - read/stream: Get Blob with `x-ms-range` (one request), `If-Match` when a token is given.
 * - replace: composed on the server so the untouched bytes never travel through Folio:
 *   Put Block From URL with `x-ms-source-range` for the prefix [0, start) and the suffix
 *   [end, size) (source = this blob, through a read-only SAS), Put Block for the new bytes,
 *   then Put Block List with `If-Match: <token>`. The blob is the source of its own
 *   composition, so the one If-Match on the commit also covers the copied ranges: any
 *   write to the blob after the token changes its ETag and the commit fails (412), so a
 *   change can never be spliced in. Block ids carry a random per-replace nonce, so
 *   concurrent writers staging on the same blob never overwrite each other's blocks.
 *   Limits (https://learn.microsoft.com/rest/api/storageservices/put-block-from-url):
 *   a block from a URL is at most 100 MiB on older service versions (4000 MiB today),
 *   a Put Block at most 4000 MiB; ranges are split into blocks of `maxCopyBlockBytes`
 *   and `maxStageBlockBytes` (defaults 100 MiB and 64 MiB), at most 50,000 committed.
 * - create: Put Blob (or blocks + Put Block List) with `If-None-Match: *`.
 * - sidecar: a blob `.folio-index/<blob>/<etag>/<name>` in the same container, so a new
 *   ETag finds no sidecar; `put` deletes the resource's sidecars of other ETags.
 */
import { randomBytes } from 'node:crypto';
import {
  BlobSASPermissions,
  BlobServiceClient,
  RestError,
  StorageSharedKeyCredential,
  type BlockBlobClient,
  type ContainerClient,
  type StoragePipelineOptions,
} from '@azure/storage-blob';
import { FolioError } from '../../engine/errors.ts';
import type { Backend, BackendVersion } from '../../engine/backend/types.ts';
import { checkRange, concat, runLimited, split, tokenSegment } from '../object-util.ts';

export interface AzureBlobConfig {
  /** defaults to AZURE_STORAGE_CONNECTION_STRING */
  connectionString?: string;
  /** largest source range per Put Block From URL (default 100 MiB, the oldest service limit) */
  maxCopyBlockBytes?: number;
  /** largest Put Block of new bytes (default 64 MiB: the bytes are held in memory anyway) */
  maxStageBlockBytes?: number;
  /** largest create done as one Put Blob; above it, blocks + Put Block List (default 256 MiB) */
  maxSinglePutBytes?: number;
  /** SDK pipeline options (retries, timeouts) */
  pipeline?: StoragePipelineOptions;
}

const MiB = 1024 * 1024;
const SIDECAR_PREFIX = '.folio-index/';
/** Azure's limit of committed blocks per blob */
const MAX_BLOCKS = 50_000;

/** `az://CONTAINER/BLOB` → its parts; the blob name may contain slashes. */
export function parseAzureLocator(locator: string): { container: string; blob: string } {
  const m = /^az:\/\/([^/]+)\/(.+)$/.exec(locator);
  if (!m) {
    throw new FolioError('invalid_input', `not an Azure blob locator (az://CONTAINER/BLOB): ${locator}`, { locator });
  }
  return { container: m[1]!, blob: m[2]! };
}

/**
 * The blob `locator` names. `names`, when given, are the container and blob name the
 * locator stands for (registry.ts passes the decoded parts of a canonical, percent-encoded
 * locator); without them the locator's text is taken as the names verbatim.
 */
export function openAzureBlob(locator: string, config: AzureBlobConfig = {}, names?: { container: string; blob: string }): Backend {
  const { container, blob } = names ?? parseAzureLocator(locator);
  const connectionString = config.connectionString ?? process.env.AZURE_STORAGE_CONNECTION_STRING;
  if (!connectionString) {
    throw new FolioError('invalid_input', `no Azure connection for ${locator}: set AZURE_STORAGE_CONNECTION_STRING or backends.az`, {
      locator,
    });
  }
  const service = BlobServiceClient.fromConnectionString(connectionString, config.pipeline);
  const containerClient = service.getContainerClient(container);
  const client = containerClient.getBlockBlobClient(blob);
  return new AzureBlobBackend(locator, containerClient, client, {
    maxCopyBlockBytes: config.maxCopyBlockBytes ?? 100 * MiB,
    maxStageBlockBytes: config.maxStageBlockBytes ?? 64 * MiB,
    maxSinglePutBytes: config.maxSinglePutBytes ?? 256 * MiB,
  });
}

interface Limits {
  maxCopyBlockBytes: number;
  maxStageBlockBytes: number;
  maxSinglePutBytes: number;
}

class AzureBlobBackend implements Backend {
  readonly scheme = 'az' as const;
  readonly sidecar: Backend['sidecar'];

  constructor(
    readonly locator: string,
    private readonly container: ContainerClient,
    private readonly client: BlockBlobClient,
    private readonly limits: Limits,
  ) {
    this.sidecar = {
      get: (name, token) => this.sidecarGet(name, token),
      put: (name, token, bytes) => this.sidecarPut(name, token, bytes),
    };
  }

  async stat(): Promise<BackendVersion> {
    try {
      const p = await this.client.getProperties();
      return version(p.etag, p.contentLength, p.lastModified);
    } catch (err) {
      throw this.mapError(err);
    }
  }

  async read(start: number, end: number, token?: string): Promise<Uint8Array> {
    checkRange(start, end, this.locator);
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.download(start, end, token)) chunks.push(chunk);
    return concat(chunks);
  }

  stream(start = 0, token?: string): AsyncIterable<Uint8Array> {
    checkRange(start, Infinity, this.locator);
    return this.download(start, Infinity, token);
  }

  /** One Get Blob of [start, end) (clamped to the size); end = Infinity: to the end. */
  private async *download(start: number, end: number, token?: string): AsyncGenerator<Uint8Array> {
    const conditions = token === undefined ? undefined : { ifMatch: token };
    if (end <= start) {
      // An empty range is no request to the service (count 0 means "to the end" there);
      // the version is still checked when a token is given.
      if (token !== undefined) await this.checkToken(token);
      return;
    }
    let body: NodeJS.ReadableStream | undefined;
    try {
      const count = Number.isFinite(end) ? end - start : undefined;
      const res = await this.client.download(start, count, { conditions, maxRetryRequests: 2 });
      body = res.readableStreamBody;
    } catch (err) {
      // 416: start at or past the end; the clamped range is empty.
      if (err instanceof RestError && err.statusCode === 416) {
        if (token !== undefined) await this.checkToken(token);
        return;
      }
      throw await this.mapConditionError(err, token);
    }
    if (!body) return;
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    } catch (err) {
      throw this.mapError(err);
    }
  }

  async replace(start: number, end: number, content: Uint8Array, ifToken: string): Promise<BackendVersion> {
    checkRange(start, end, this.locator);
    if (end < start) throw new FolioError('invalid_range', `end ${end} before start ${start}`, { start, end });
    let size: number;
    try {
      const p = await this.client.getProperties({ conditions: { ifMatch: ifToken } });
      size = p.contentLength ?? 0;
    } catch (err) {
      throw await this.mapConditionError(err, ifToken);
    }
    if (start > size) {
      throw new FolioError('out_of_bounds', `start ${start} is past the end (${size} bytes) of ${this.locator}`, { start, size });
    }
    end = Math.min(end, size);

    const nonce = randomBytes(9).toString('base64url'); // 12 characters
    const ids: string[] = [];
    const nextId = (): string => {
      const id = Buffer.from(`${nonce}-${String(ids.length).padStart(6, '0')}`).toString('base64');
      ids.push(id);
      return id;
    };
    const blocks =
      Math.ceil(start / this.limits.maxCopyBlockBytes) +
      Math.ceil(content.length / this.limits.maxStageBlockBytes) +
      Math.ceil((size - end) / this.limits.maxCopyBlockBytes);
    if (blocks > MAX_BLOCKS) {
      throw new FolioError('too_large', `the edit needs ${blocks} blocks; Azure allows ${MAX_BLOCKS} per blob`, { blocks });
    }

    try {
      const source = await this.sourceUrl();
      const stages: Array<() => Promise<unknown>> = [];
      for (const [from, to] of split(0, start, this.limits.maxCopyBlockBytes)) {
        const id = nextId();
        stages.push(() => this.client.stageBlockFromURL(id, source, from, to - from));
      }
      for (const [from, to] of split(0, content.length, this.limits.maxStageBlockBytes)) {
        const id = nextId();
        const piece = content.subarray(from, to);
        stages.push(() => this.client.stageBlock(id, piece, piece.length));
      }
      for (const [from, to] of split(end, size, this.limits.maxCopyBlockBytes)) {
        const id = nextId();
        stages.push(() => this.client.stageBlockFromURL(id, source, from, to - from));
      }
      await runLimited(stages, 4);
      const res = await this.client.commitBlockList(ids, { conditions: { ifMatch: ifToken } });
      return version(res.etag, start + content.length + (size - end), res.lastModified);
    } catch (err) {
      throw await this.mapConditionError(err, ifToken);
    }
  }

  async create(content: Uint8Array): Promise<BackendVersion> {
    const conditions = { ifNoneMatch: '*' };
    try {
      if (content.length <= this.limits.maxSinglePutBytes) {
        const res = await this.client.upload(content, content.length, { conditions });
        return version(res.etag, content.length, res.lastModified);
      }
      const nonce = randomBytes(9).toString('base64url');
      const ids: string[] = [];
      const stages = split(0, content.length, this.limits.maxStageBlockBytes).map(([from, to], i) => {
        const id = Buffer.from(`${nonce}-${String(i).padStart(6, '0')}`).toString('base64');
        ids.push(id);
        const piece = content.subarray(from, to);
        return () => this.client.stageBlock(id, piece, piece.length);
      });
      await runLimited(stages, 4);
      const res = await this.client.commitBlockList(ids, { conditions });
      return version(res.etag, content.length, res.lastModified);
    } catch (err) {
      if (err instanceof RestError && (err.statusCode === 409 || err.statusCode === 412)) {
        throw new FolioError('precondition_failed', `${this.locator} already exists`, { current: await this.stat() });
      }
      throw this.mapError(err);
    }
  }

  async close(): Promise<void> {
    // The SDK keeps no connections of its own beyond Node's agent; nothing to release.
  }

  private sidecarName(name: string, token: string): string {
    return `${this.sidecarDir()}${tokenSegment(token)}/${encodeURIComponent(name)}`;
  }

  private sidecarDir(): string {
    return `${SIDECAR_PREFIX}${this.client.name}/`;
  }

  private async sidecarGet(name: string, token: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await this.container.getBlockBlobClient(this.sidecarName(name, token)).downloadToBuffer());
    } catch (err) {
      if (err instanceof RestError && err.statusCode === 404) return null;
      throw this.mapError(err);
    }
  }

  private async sidecarPut(name: string, token: string, bytes: Uint8Array): Promise<void> {
    const key = this.sidecarName(name, token);
    try {
      await this.container.getBlockBlobClient(key).upload(bytes, bytes.length);
      // Sidecars of older ETags are dead weight now: drop them (best effort; a concurrent
      // writer's fresher sidecar is dropped at worst, and rebuilt).
      const suffix = `/${encodeURIComponent(name)}`;
      for await (const item of this.container.listBlobsFlat({ prefix: this.sidecarDir() })) {
        if (item.name !== key && item.name.endsWith(suffix)) {
          await this.container.deleteBlob(item.name).catch(() => undefined);
        }
      }
    } catch (err) {
      throw this.mapError(err);
    }
  }

  /** The blob's own URL, readable by the service: a short read-only SAS from the account key, or the SAS it was opened with. */
  private async sourceUrl(): Promise<string> {
    if (this.client.credential instanceof StorageSharedKeyCredential) {
      return this.client.generateSasUrl({
        permissions: BlobSASPermissions.parse('r'),
        startsOn: new Date(Date.now() - 5 * 60_000),
        expiresOn: new Date(Date.now() + 60 * 60_000),
      });
    }
    if (new URL(this.client.url).searchParams.has('sig')) return this.client.url;
    throw new FolioError('permission_denied', `replace on ${this.locator} needs an account key or a SAS to read the blob server-side`, {
      locator: this.locator,
    });
  }

  private async checkToken(token: string): Promise<void> {
    const current = await this.stat();
    if (current.token !== token) throw preconditionFailed(this.locator, current);
  }

  /** A failure under If-Match: when the blob's version is no longer `token`, precondition_failed with the current one. */
  private async mapConditionError(err: unknown, token: string | undefined): Promise<FolioError> {
    if (err instanceof FolioError) return err;
    const status = err instanceof RestError ? err.statusCode : undefined;
    // 412: If-Match failed. 400 InvalidBlockList: a concurrent commit discarded our
    // uncommitted blocks, which means the blob changed under us.
    if (token !== undefined && (status === 412 || status === 400 || status === 409)) {
      let current: BackendVersion | undefined;
      try {
        current = await this.stat();
      } catch (e) {
        return this.mapError(e);
      }
      if (current.token !== token) return preconditionFailed(this.locator, current);
    }
    return this.mapError(err);
  }

  private mapError(err: unknown): FolioError {
    if (err instanceof FolioError) return err;
    if (err instanceof RestError) {
      const code = (err.details as { errorCode?: string } | undefined)?.errorCode ?? err.code;
      const details = { locator: this.locator, status: err.statusCode, azureCode: code };
      switch (err.statusCode) {
        case 404:
          return new FolioError('not_found', `no such blob: ${this.locator}`, details);
        case 401:
        case 403:
          return new FolioError('permission_denied', `permission denied on ${this.locator} (${code})`, details);
        case 412:
          return new FolioError('precondition_failed', `${this.locator} has changed (${code})`, details);
      }
      return new FolioError('io_error', `Azure ${err.statusCode ?? ''} ${code ?? ''} on ${this.locator}: ${firstLine(err.message)}`, details);
    }
    const e = err as { message?: string; code?: string };
    return new FolioError('io_error', `Azure request failed on ${this.locator}: ${e?.message ?? String(err)}`, {
      locator: this.locator,
      errno: e?.code,
    });
  }
}

function preconditionFailed(locator: string, current: BackendVersion): FolioError {
  return new FolioError('precondition_failed', `${locator} has changed: now version ${current.token}`, { current });
}

function version(etag: string | undefined, size: number | undefined, modified: Date | undefined): BackendVersion {
  if (!etag) throw new FolioError('io_error', 'the service answered without an ETag');
  return { token: etag, size: size ?? 0, ...(modified ? { modifiedMs: modified.getTime() } : {}) };
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}
