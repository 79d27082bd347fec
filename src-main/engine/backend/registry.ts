/**
 * Which Backend serves a locator: one factory per scheme, registered here, one
 * line per backend. Connections come from the workspace config's `backends`
 * (configureBackends, called by the api layer with folio.config.json) or, where it
 * says nothing, from the usual environment variables the drivers and SDKs read
 * (PGHOST/DATABASE_URL, AZURE_STORAGE_CONNECTION_STRING, AWS_* and AWS_ENDPOINT_URL).
 */
import { FolioError } from '../errors.ts';
import { openAzureBlob, type AzureBlobConfig } from './azure-blob.ts';
import { formatLocator, parseLocator, type Locator } from './locator.ts';
import { PostgresBackend, type PostgresConfig } from './postgres.ts';
import { openS3Object, type S3ObjectConfig } from './s3-object.ts';
import type { Backend, BackendScheme } from './types.ts';

/** folio.config.json → `backends`: per scheme, that backend's connection settings (docs/API.md). */
export interface BackendsConfig {
  pg?: PostgresConfig;
  az?: AzureBlobConfig;
  s3?: S3ObjectConfig;
}

export type BackendFactory = (locator: Locator, config: Record<string, unknown>) => Backend;

const factories: Partial<Record<Exclude<BackendScheme, 'file'>, BackendFactory>> = {
  pg: (l, c) => new PostgresBackend(l as Extract<Locator, { scheme: 'pg' }>, c as PostgresConfig),
  // The canonical locator is percent-encoded; the adapter gets the decoded names with it.
  az: (l, c) => openAzureBlob(formatLocator(l), c as AzureBlobConfig, l as Extract<Locator, { scheme: 'az' }>),
  s3: (l, c) => openS3Object(formatLocator(l), c as S3ObjectConfig, l as Extract<Locator, { scheme: 's3' }>),
};

/** Add or replace the factory of a scheme (a backend module registers itself; tests swap one). */
export function registerBackend(scheme: Exclude<BackendScheme, 'file'>, factory: BackendFactory): void {
  factories[scheme] = factory;
}

let config: BackendsConfig = {};

/** The workspace's `backends` settings; environment variables fill what they leave out. */
export function configureBackends(c: BackendsConfig | undefined): void {
  config = c ?? {};
}

/** The Backend of a remote locator (not_found's cousin: invalid_input for a scheme with no backend here). */
export function backendFor(locator: string | Locator): Backend {
  const l = typeof locator === 'string' ? parseLocator(locator) : locator;
  if (l.scheme === 'file') throw new FolioError('invalid_input', `${l.path} is a local path, not a remote locator`, { path: l.path });
  const f = factories[l.scheme];
  if (!f) {
    throw new FolioError('invalid_input', `no ${l.scheme}:// backend in this build`, { scheme: l.scheme, known: Object.keys(factories) });
  }
  return f(l, (config[l.scheme] ?? {}) as Record<string, unknown>);
}
