/**
 * The review layer on remote values (pg://, az://, s3://): proposals, approvals,
 * the journal, undo and redo go through the same functions as for files; only
 * what touches bytes goes to the backend. An upsert is remote-upsert.ts (one
 * conditional splice, with the journal's onBeforeWrite intent and captured bytes
 * as for a file), and what reads the value by its path (a proposal's rebase state,
 * settling an intent after a crash) runs with the value mounted.
 */
import { isRemoteLocator, onRemote } from '../engine/backend/remote.ts';
import { upsertRemote } from '../engine/backend/remote-upsert.ts';
import { upsert, type UpsertRequest, type UpsertResult } from '../engine/write/upsert.ts';

export { isRemoteLocator };

/** upsert() of a file or a remote value. */
export function upsertAt(path: string, req: UpsertRequest): Promise<UpsertResult> {
  return isRemoteLocator(path) ? upsertRemote(path, req) : upsert(path, req);
}

/** Run `fn` (which reads `path` through the engine) with a remote value mounted; a file's path as it is. */
export function readingAt<T>(path: string, fn: (path: string) => T | Promise<T>): Promise<T> {
  return isRemoteLocator(path) ? onRemote(path, async (v) => fn(v.backend.locator)) : Promise.resolve(fn(path));
}
