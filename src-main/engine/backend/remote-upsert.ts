/**
 * Upserts of a remote value: the engine's own upsert (write/upsert.ts upsertOn:
 * every target form, quoted edits, several edits, etag / SHA-256 / range hash /
 * hashline-anchor preconditions) placed and checked on the indexed version, then
 * written as ONE conditional splice, Backend.replace(start, end, content, token):
 * if anything else wrote the value since that version, nothing is written and the
 * answer is precondition_failed (after one fresh look, see remote.ts withRemote:
 * anchors and range hashes that still hold on the new version apply there, as they
 * would to a local file under its lock; an etag of the old version never does).
 *
 * Create (if_none_match "*") is Backend.create: only if the value does not exist.
 */
import { createHash } from 'node:crypto';
import { FolioError } from '../errors.ts';
import { etagOf } from '../index/identity.ts';
import type { Version } from '../read/file-facts.ts';
import { factsOfIndex } from '../read/file-facts.ts';
import { editsOf, newFilePreview, upsertOn, type UpsertIo, type UpsertRequest, type UpsertResult } from '../write/upsert.ts';
import { backendFor } from './registry.ts';
import { forgetRemote, openRemote, runOn, withRemote, type RemoteValue } from './remote.ts';
import { remoteIdentity } from './remote-index.ts';
import type { Backend, BackendVersion } from './types.ts';

function versionOf(locator: string, v: BackendVersion): Version {
  const id = remoteIdentity(locator, v);
  return { etag: etagOf(id), size: v.size, mtimeMs: id.mtimeMs };
}

async function sha256Of(backend: Backend, token: string): Promise<string> {
  if (backend.sha256) return backend.sha256(token);
  const h = createHash('sha256');
  for await (const chunk of backend.stream(0, token)) h.update(chunk);
  return h.digest('hex');
}

function ioOf(v: RemoteValue, req: UpsertRequest): UpsertIo {
  const locator = v.backend.locator;
  return {
    path: locator,
    file: locator,
    facts: async () => factsOfIndex(v.index, req.preconditions.expectedSha256 !== undefined ? await sha256Of(v.backend, v.version.token) : undefined),
    index: async () => v.index,
    write: async (_index, r) => {
      if (r.start === r.end && r.content.length === 0) return { version: versionOf(locator, v.version) };
      const now = await v.backend.replace(r.start, r.end, r.content, v.version.token);
      // This process's index is of the old version; the next open indexes the new one.
      forgetRemote(locator);
      return { version: versionOf(locator, now) };
    },
  };
}

export async function upsertRemote(locator: string, req: UpsertRequest): Promise<UpsertResult> {
  const t0 = performance.now();
  if (req.preconditions.ifNoneMatch === '*') return createRemote(locator, req, t0);
  const run = (v: RemoteValue) => runOn(v, () => upsertOn(ioOf(v, req), req, [], t0));
  // A journaled write has written its intent before the splice: never run it twice.
  if (req.onBeforeWrite) return run(await openRemote(locator));
  return withRemote(locator, run);
}

async function createRemote(locator: string, req: UpsertRequest, t0: number): Promise<UpsertResult> {
  const backend = backendFor(locator);
  const preview = newFilePreview(backend.locator, req, t0);
  if (req.dryRun) {
    const exists = await backend.stat().then(
      () => true,
      (err) => {
        if (err instanceof FolioError && err.code === 'not_found') return false;
        throw err;
      },
    );
    if (exists) throw existsError(backend.locator);
    return preview;
  }
  if (req.onBeforeWrite) {
    // Journaled (its intent is written before the bytes are): create the value empty,
    // then write the text as an upsert of that version, as a file is created.
    const empty = await backend.create(new Uint8Array(0)).catch((err) => {
      if (err instanceof FolioError && err.code === 'precondition_failed') throw existsError(backend.locator);
      throw err;
    });
    forgetRemote(backend.locator);
    const { ifNoneMatch: _create, ...rest } = req.preconditions;
    const v = await openRemote(backend.locator);
    if (v.version.token !== empty.token) throw existsError(backend.locator);
    const sub: UpsertRequest = { ...req, preconditions: { ...rest, ifMatch: versionOf(backend.locator, empty).etag } };
    const r = await runOn(v, () => upsertOn(ioOf(v, sub), sub, ['created the value'], t0));
    return { ...r, created: true, preconditions: { ...r.preconditions, checked: ['if_none_match'] } };
  }
  const edits = editsOf(req);
  const whole = edits.length === 1 && edits[0]!.target.kind === 'whole';
  let text = edits.map((e) => e.content).join('');
  if (!whole && text !== '' && !text.endsWith('\n')) text += '\n';
  const made = await backend.create(new TextEncoder().encode(text)).catch((err) => {
    if (err instanceof FolioError && err.code === 'precondition_failed') throw existsError(backend.locator);
    throw err;
  });
  forgetRemote(backend.locator);
  return {
    ...preview,
    applied: true,
    dry_run: false,
    created: true,
    version_after: versionOf(backend.locator, made),
    notes: ['created the value'],
    elapsed_ms: performance.now() - t0,
  };
}

function existsError(locator: string): FolioError {
  return new FolioError('precondition_failed', `${locator} exists: if_none_match "*" creates only new values; read it and edit it with if_match`, {
    path: locator,
    failed: ['if_none_match'],
  });
}
