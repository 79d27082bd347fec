/**
 * The operations on remote locators (pg://, az://, s3://): the same engine code as
 * for files, run over the value's mounted bytes and index (engine/backend/remote.ts),
 * and writes as one conditional splice (remote-upsert.ts). The workspace config's
 * `backends` (folio.config.json) says how to connect; environment variables fill
 * what it leaves out.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { FolioError } from '../engine/errors.ts';
import { configureBackends, type BackendsConfig } from '../backends/index.ts';
import { isRemoteLocator, onRemote, onRemoteHead, remoteInfo } from '../engine/backend/remote.ts';
import type { FileInfo, ReadOutput } from './schemas.ts';

export { isRemoteLocator };

let configuredFor: string | undefined;

/** Connect remote locators as `<workspace>/folio.config.json` → backends says (once per workspace). */
export function configureBackendsFor(workspace: string): void {
  const root = resolve(workspace);
  if (configuredFor === root) return;
  let backends: BackendsConfig | undefined;
  try {
    backends = (JSON.parse(readFileSync(resolve(root, 'folio.config.json'), 'utf8')) as { backends?: BackendsConfig }).backends;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new FolioError('invalid_input', `folio.config.json in ${root} is not valid JSON: ${(err as Error).message}`, { root });
    }
  }
  configureBackends(backends);
  configuredFor = root;
}

export async function remoteFileInfo(locator: string, onProgress?: (p: { bytesDone: number; totalBytes: number }) => void): Promise<FileInfo> {
  const { fileInfoWireOf } = await import('./file-info-wire.ts');
  // Indexing a value streams it once: the CLI's progress bar follows the stream.
  const r = await remoteInfo(locator, onProgress ? { onProgress } : {});
  return { ...fileInfoWireOf(r), backend: { scheme: r.backend.scheme, version: r.backend.version, index_from: r.backend.indexFrom } };
}

/** Run `fn` with the canonical locator as its path, over the value's bytes (reads, outline, search). */
export function onRemotePath<T>(locator: string, fn: (path: string) => Promise<T>): Promise<T> {
  return onRemote(locator, (v) => fn(v.backend.locator));
}

/**
 * The head window of a value with no index yet (onRemoteHead): `read` runs with the
 * canonical locator over one ranged read of its first bytes. The answer has no
 * total lines and says how far the index build has streamed. Undefined: take the
 * indexed path.
 */
export async function readRemoteHead(locator: string, maxBytes: number, read: (path: string) => Promise<ReadOutput>): Promise<ReadOutput | undefined> {
  return onRemoteHead(locator, maxBytes, async (v, p) => ({
    ...(await read(v.backend.locator)),
    total_lines: null,
    indexing: { bytes_done: p.bytesDone, total_bytes: p.totalBytes },
  }));
}

/**
 * A remote value's upsert as one conditional splice, not journaled: the dry run
 * of runs.ts. A real write goes through the journal (review/journal.ts
 * applyOwnEdit, or an approval), which splices by the same code
 * (review/remote-values.ts), so review undo takes a remote edit back.
 */
export async function upsertRemoteValue(
  locator: string,
  request: import('../engine/write/upsert.ts').UpsertRequest,
): Promise<import('../engine/write/upsert.ts').UpsertResult> {
  const { upsertRemote } = await import('../engine/backend/remote-upsert.ts');
  return upsertRemote(locator, request);
}
