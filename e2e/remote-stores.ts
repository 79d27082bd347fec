/**
 * The remote backends for the app's locator tests, started by the test and stopped
 * after: a PostgreSQL cluster of its own (test/fixtures/postgres.ts: initdb + pg_ctl,
 * a unix socket in a temp dir) and Azurite 3.35.0 (test/fixtures/azurite.ts) behind
 * the counting proxy, so a test can count the bytes that reached `folio serve`.
 *
 * The values are a local file's bytes: a bytea row (STORAGE EXTERNAL, so a range
 * reads only its TOAST chunks) and a blob committed as blocks, so an outside writer
 * can append with the SDK (Put Block + Put Block List If-Match, straight to Azurite,
 * none of it through the proxy).
 */
import { randomBytes } from 'node:crypto';
import { BlobServiceClient, type BlockBlobClient } from '@azure/storage-blob';
import { startAzurite, type Azurite } from '../test/fixtures/azurite.ts';
import { startPostgres, type TestPostgres } from '../test/fixtures/postgres.ts';

export interface RemoteStores {
  pg: TestPostgres;
  azurite: Azurite;
  /** `folio.config.json` → `backends.pg` for this cluster */
  pgConfig: { host: string; port: number; user: string; database: string };
  /** Store `bytes` as the bytea value `pg://TABLE/KEY/body`. */
  putRow(table: string, key: string, bytes: Buffer): Promise<void>;
  /** Store `bytes` as blob CONTAINER/NAME, committed as blocks of `blockBytes`. */
  putBlob(container: string, name: string, bytes: Buffer, blockBytes?: number): Promise<void>;
  /** Append to the blob as another writer would: one more block, committed under If-Match of its ETag. */
  appendToBlob(container: string, name: string, bytes: Buffer): Promise<void>;
  stop(): Promise<void>;
}

const blockIdOf = () => randomBytes(12).toString('base64');

export async function startRemoteStores(): Promise<RemoteStores> {
  const [pg, azurite] = await Promise.all([startPostgres(), startAzurite()]);
  const service = BlobServiceClient.fromConnectionString(azurite.directConnectionString);
  const blobOf = (container: string, name: string): BlockBlobClient => service.getContainerClient(container).getBlockBlobClient(name);
  const tables = new Set<string>();
  return {
    pg,
    azurite,
    pgConfig: { host: pg.host, port: pg.port, user: pg.user, database: pg.database },
    async putRow(table, key, bytes) {
      if (!tables.has(table)) {
        await pg.client.query(`CREATE TABLE ${table} (name text PRIMARY KEY, body bytea)`);
        await pg.client.query(`ALTER TABLE ${table} ALTER COLUMN body SET STORAGE EXTERNAL`);
        tables.add(table);
      }
      await pg.client.query(`INSERT INTO ${table} VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET body = EXCLUDED.body`, [key, bytes]);
    },
    async putBlob(container, name, bytes, blockBytes = 4 * 1024 * 1024) {
      await service.getContainerClient(container).createIfNotExists();
      const blob = blobOf(container, name);
      const ids: string[] = [];
      for (let at = 0; at < bytes.length; at += blockBytes) {
        const id = blockIdOf();
        const part = bytes.subarray(at, Math.min(bytes.length, at + blockBytes));
        await blob.stageBlock(id, part, part.length);
        ids.push(id);
      }
      await blob.commitBlockList(ids);
    },
    async appendToBlob(container, name, bytes) {
      const blob = blobOf(container, name);
      const { etag } = await blob.getProperties();
      const list = await blob.getBlockList('committed');
      const id = blockIdOf();
      await blob.stageBlock(id, bytes, bytes.length);
      await blob.commitBlockList([...(list.committedBlocks ?? []).map((b) => b.name!), id], { conditions: { ifMatch: etag } });
    },
    async stop() {
      await Promise.all([pg.stop(), azurite.stop()]);
    },
  };
}
