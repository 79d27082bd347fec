/**
 * Which Backend serves a locator: one loader per scheme, registered from outside the
 * engine. The vendor adapters (PostgreSQL, Azure Blob, S3) live in src-main/backends,
 * which the engine may not import (lint): src-main/backends/index.ts registers a
 * loader for each scheme that imports its adapter, and with it the vendor SDK, the
 * first time a locator of that scheme is used. A local read or `folio mcp` start
 * loads none of them (test/cli/startup-modules.test.ts).
 *
 * backendFor stays synchronous (the engine's remote layer asks for a Backend and
 * awaits its methods): it checks the locator and the scheme at once and hands back a
 * Backend whose first call waits for the adapter to load.
 */
import { FolioError } from '../errors.ts';
import { formatLocator, parseLocator, type Locator } from './locator.ts';
import type { Backend, BackendScheme, BackendVersion } from './types.ts';

export type RemoteScheme = Exclude<BackendScheme, 'file'>;
export type RemoteLocator = Exclude<Locator, { scheme: 'file' }>;

/** Opens the Backend of one locator of a scheme (connection settings are the opener's). */
export type BackendOpener = (locator: RemoteLocator) => Backend;
/** Imports a scheme's adapter and gives its opener: called once, on first use of the scheme. */
export type BackendLoader = () => Promise<BackendOpener>;

interface Entry {
  load: BackendLoader;
  loaded?: Promise<BackendOpener>;
}

const schemes = new Map<RemoteScheme, Entry>();

/** Set (or replace) the loader of a scheme: src-main/backends/index.ts for the built-in ones; tests swap one. */
export function registerBackend(scheme: RemoteScheme, load: BackendLoader): void {
  schemes.set(scheme, { load });
}

function remoteLocatorOf(locator: string | Locator): { l: RemoteLocator; entry: Entry } {
  const l = typeof locator === 'string' ? parseLocator(locator) : locator;
  if (l.scheme === 'file') throw new FolioError('invalid_input', `${l.path} is a local path, not a remote locator`, { path: l.path });
  const entry = schemes.get(l.scheme);
  if (!entry) {
    throw new FolioError('invalid_input', `no ${l.scheme}:// backend in this build`, { scheme: l.scheme, known: [...schemes.keys()] });
  }
  return { l, entry };
}

async function open(l: RemoteLocator, entry: Entry): Promise<Backend> {
  if (!entry.loaded) {
    entry.loaded = entry.load();
    // A failed import is tried again by the next use, not remembered.
    entry.loaded.catch(() => (entry.loaded = undefined));
  }
  return (await entry.loaded)(l);
}

/** The Backend of a remote locator, its adapter loaded (an adapter's own helpers use this to reach its class). */
export async function openBackend(locator: string | Locator): Promise<Backend> {
  const { l, entry } = remoteLocatorOf(locator);
  return open(l, entry);
}

/** The Backend of a remote locator (invalid_input for a local path, a malformed locator or a scheme with no backend here). */
export function backendFor(locator: string | Locator): Backend {
  const { l, entry } = remoteLocatorOf(locator);
  return new LazyBackend(l, () => open(l, entry));
}

/** A Backend whose adapter is imported by its first call. */
class LazyBackend implements Backend {
  readonly scheme: RemoteScheme;
  readonly locator: string;
  private inner: Promise<Backend> | undefined;

  constructor(
    l: RemoteLocator,
    private readonly opener: () => Promise<Backend>,
  ) {
    this.scheme = l.scheme;
    this.locator = formatLocator(l);
  }

  private backend(): Promise<Backend> {
    if (!this.inner) {
      this.inner = this.opener();
      this.inner.catch(() => (this.inner = undefined));
    }
    return this.inner;
  }

  async stat(): Promise<BackendVersion> {
    return (await this.backend()).stat();
  }
  async read(start: number, end: number, token?: string): Promise<Uint8Array> {
    return (await this.backend()).read(start, end, token);
  }
  async *stream(start?: number, token?: string): AsyncIterable<Uint8Array> {
    yield* (await this.backend()).stream(start, token);
  }
  async replace(start: number, end: number, content: Uint8Array, ifToken: string): Promise<BackendVersion> {
    return (await this.backend()).replace(start, end, content, ifToken);
  }
  async create(content: Uint8Array): Promise<BackendVersion> {
    return (await this.backend()).create(content);
  }
  readonly sidecar = {
    get: async (name: string, token: string): Promise<Uint8Array | null> => (await this.backend()).sidecar.get(name, token),
    put: async (name: string, token: string, bytes: Uint8Array): Promise<void> => (await this.backend()).sidecar.put(name, token, bytes),
  };
  /** The adapter's own hash where it has one; otherwise the value streamed and hashed here, as Backend.sha256 says. */
  async sha256(token: string): Promise<string> {
    const b = await this.backend();
    if (b.sha256) return b.sha256(token);
    const { createHash } = await import('node:crypto');
    const h = createHash('sha256');
    for await (const chunk of b.stream(0, token)) h.update(chunk);
    return h.digest('hex');
  }
  async close(): Promise<void> {
    if (this.inner) await (await this.inner).close();
  }
}
