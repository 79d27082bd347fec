/**
 * Where a resource's bytes live: a local file, a PostgreSQL value, an Azure blob,
 * an S3 object. The engine reads and upserts through this interface; only the
 * implementations (one file per backend in this folder) know which one they talk to.
 *
 * Locators: a plain path is a local file; `pg://TABLE/KEY/COLUMN`, `az://CONTAINER/BLOB`,
 * `s3://BUCKET/KEY` name the others (parseLocator in locator.ts).
 *
 * Every method fails with a FolioError (errors.ts): `not_found` when the resource is
 * absent, `precondition_failed` (details: `{ current: BackendVersion }`) when a
 * version check fails, `io_error` for a transport failure, never a raw driver error.
 */

/** One version of a resource, as the backend tells it without reading its content. */
export interface BackendVersion {
  /**
   * The backend's own version token: the file's identity (dev, ino, size, mtime/ctime
   * ns) for a local file, `xmin` plus a content hash for PostgreSQL, the ETag for an
   * object. Opaque to callers; equal tokens mean equal bytes.
   */
  token: string;
  /** size in bytes */
  size: number;
  /** last modification, ms since the epoch, where the backend knows it */
  modifiedMs?: number;
}

export type BackendScheme = 'file' | 'pg' | 'az' | 's3';

export interface Backend {
  readonly scheme: BackendScheme;
  /** the normalized locator this backend instance serves (a path for 'file') */
  readonly locator: string;

  /** The current version; `not_found` when the resource is absent. */
  stat(): Promise<BackendVersion>;

  /**
   * Bytes [start, end) of the resource, clamped to its size. With `token`, of that
   * version only: `precondition_failed` if the resource has changed since (objects
   * send If-Match, PostgreSQL checks xmin in the same statement).
   */
  read(start: number, end: number, token?: string): Promise<Uint8Array>;

  /**
   * The resource from `start` to its end as a stream of chunks, in one request where
   * the backend allows it: what the line index is built from. With `token`, of that
   * version only (as read).
   */
  stream(start?: number, token?: string): AsyncIterable<Uint8Array>;

  /**
   * Replace bytes [start, end) with `content`, atomically and only if the resource is
   * still version `ifToken`; otherwise `precondition_failed` and nothing is written.
   * Never downloads the untouched bytes where the backend can compose server-side.
   * Returns the new version.
   */
  replace(start: number, end: number, content: Uint8Array, ifToken: string): Promise<BackendVersion>;

  /** Create the resource with `content` only if it does not exist (`if_none_match: "*"`); `precondition_failed` if it does. */
  create(content: Uint8Array): Promise<BackendVersion>;

  /**
   * Side data the engine keeps for a version (its line index), stored by the backend
   * beside the resource (a Folio table, a sidecar object named by the ETag). `get`
   * returns null when there is none for that token.
   */
  readonly sidecar: {
    get(name: string, token: string): Promise<Uint8Array | null>;
    put(name: string, token: string, bytes: Uint8Array): Promise<void>;
  };

  /**
   * Optional: the SHA-256 (hex) of version `token`, computed where the bytes are
   * (PostgreSQL's sha256()), for expected_sha256; without it the value is streamed
   * and hashed here. `precondition_failed` if the resource is no longer `token`.
   */
  sha256?(token: string): Promise<string>;

  /** Release connections. */
  close(): Promise<void>;
}
