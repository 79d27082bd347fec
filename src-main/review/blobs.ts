/**
 * Payloads of the review state (proposal content, inverse payloads). Up to
 * INLINE_MAX_BYTES they live in the document as base64; bigger ones are
 * content-addressed files `<state>/review/blobs/<sha256>` beside it, written
 * atomically before the document names them, so a document never names a blob
 * that is not there. Blobs are immutable and shared by equal payloads.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../engine/write/atomic-write.ts';
import { join } from 'node:path';
import { FolioError } from '../engine/errors.ts';
import type { StoredBytes } from './types.ts';

export const INLINE_MAX_BYTES = 1024 * 1024;

export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function blobPathOf(blobsDir: string, sha256: string): string {
  return join(blobsDir, sha256);
}

/** Keep `bytes`: inline when small, else as a blob in `blobsDir` (written now). */
export function storeBytes(blobsDir: string, bytes: Uint8Array): StoredBytes {
  const sha256 = sha256Of(bytes);
  if (bytes.length <= INLINE_MAX_BYTES) return { kind: 'inline', base64: Buffer.from(bytes).toString('base64'), bytes: bytes.length, sha256 };
  const path = blobPathOf(blobsDir, sha256);
  if (!existsSync(path)) {
    mkdirSync(blobsDir, { recursive: true });
    writeFileAtomic(path, bytes);
  }
  return { kind: 'blob', bytes: bytes.length, sha256 };
}

/** The bytes a StoredBytes names; a missing or damaged blob is an io_error. */
export function loadBytes(blobsDir: string, stored: StoredBytes): Buffer {
  if (stored.kind === 'inline') return Buffer.from(stored.base64, 'base64');
  const path = blobPathOf(blobsDir, stored.sha256);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    throw new FolioError('io_error', `review blob ${stored.sha256} is missing`, { path, sha256: stored.sha256 });
  }
  if (bytes.length !== stored.bytes || sha256Of(bytes) !== stored.sha256) {
    throw new FolioError('io_error', `review blob ${stored.sha256} is damaged`, { path, sha256: stored.sha256 });
  }
  return bytes;
}
