/**
 * The vendor adapters behind the engine's Backend interface, one folder each
 * (postgres/, azure/, s3/), and the one table that says which scheme each serves:
 * a new backend is a folder and a line here. Each adapter, with its vendor SDK, is
 * imported on the first use of its scheme (engine/backend/registry.ts), so a local
 * read or an MCP start loads none of them, and the CLI bundle keeps each in a chunk
 * of its own (scripts/build-cli.mjs).
 *
 * Connection settings are the adapters' own: the workspace config's `backends`
 * (folio.config.json, given to configureBackends by the api layer) or, where it
 * says nothing, the environment variables the drivers and SDKs read
 * (PGHOST/DATABASE_URL, AZURE_STORAGE_CONNECTION_STRING, AWS_* and AWS_ENDPOINT_URL).
 */
import { formatLocator } from '../engine/backend/locator.ts';
import { registerBackend, type BackendOpener, type RemoteLocator, type RemoteScheme } from '../engine/backend/registry.ts';
import type { AzureBlobConfig } from './azure/azure-blob.ts';
import type { PostgresConfig } from './postgres/postgres-pool.ts';
import type { S3ObjectConfig } from './s3/s3-object.ts';

/** folio.config.json → `backends`: per scheme, that backend's connection settings (docs/API.md). */
export interface BackendsConfig {
  pg?: PostgresConfig;
  az?: AzureBlobConfig;
  s3?: S3ObjectConfig;
}

type At<S extends RemoteScheme> = Extract<RemoteLocator, { scheme: S }>;

let settings: BackendsConfig = {};

/** Per scheme: import the adapter, and open a locator with the settings current at that time. */
const PLUGINS: { [S in RemoteScheme]: () => Promise<BackendOpener> } = {
  pg: async () => {
    const { PostgresBackend } = await import('./postgres/postgres.ts');
    return (l) => new PostgresBackend(l as At<'pg'>, settings.pg);
  },
  // The canonical locator is percent-encoded; the adapter gets the decoded names with it.
  az: async () => {
    const { openAzureBlob } = await import('./azure/azure-blob.ts');
    return (l) => openAzureBlob(formatLocator(l), settings.az, l as At<'az'>);
  },
  s3: async () => {
    const { openS3Object } = await import('./s3/s3-object.ts');
    return (l) => openS3Object(formatLocator(l), settings.s3, l as At<'s3'>);
  },
};

let registered = false;

/** Register every built-in backend with the engine (once; loading waits for first use). */
export function registerBackends(): void {
  if (registered) return;
  registered = true;
  for (const scheme of Object.keys(PLUGINS) as RemoteScheme[]) registerBackend(scheme, PLUGINS[scheme]);
}

/** The workspace's `backends` settings; environment variables fill what they leave out. Registers the backends too. */
export function configureBackends(c: BackendsConfig | undefined): void {
  registerBackends();
  settings = c ?? {};
}
