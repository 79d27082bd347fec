/**
 * A value opened by several calls at once is indexed by one stream: the app's first
 * window, its file_info and the page's own first window (folio serve) all ask for a
 * new blob together, and each streaming the whole value would multiply what a
 * multi-GB object costs to open. Azurite behind the counting proxy counts the bytes.
 */
import { BlobServiceClient } from '@azure/storage-blob';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configureBackends } from '../../../src-main/backends/index.ts';
import { forgetRemote, readRemote, remoteInfo } from '../../../src-main/engine/backend/remote.ts';
import { startAzurite, type Azurite } from '../../fixtures/azurite.ts';

let azurite: Azurite;
const lines = Array.from({ length: 60_000 }, (_, i) => `2026-01-01T00:00:00Z INFO line ${i + 1} ${'x'.repeat(i % 61)}\n`).join('');
const bytes = Buffer.from(lines);

beforeAll(async () => {
  azurite = await startAzurite();
  const container = BlobServiceClient.fromConnectionString(azurite.directConnectionString).getContainerClient('logs');
  await container.create();
  await container.getBlockBlobClient('app.log').upload(bytes, bytes.length);
  configureBackends({ az: { connectionString: azurite.connectionString } });
});

afterAll(async () => {
  configureBackends(undefined);
  await azurite?.stop();
});

const blobBytesDown = () =>
  azurite.proxy.counts.requests.filter((r) => r.method === 'GET' && decodeURIComponent(r.url.split('?')[0]!) === `/${azurite.account}/logs/app.log`).length;

it('three calls opening a new blob at once stream it once, and all answer from that index', async () => {
  forgetRemote();
  azurite.proxy.reset();
  const [info, first, deep] = await Promise.all([
    remoteInfo('az://logs/app.log'),
    readRemote('az://logs/app.log', { mode: 'bytes', startByte: 0, maxBytes: 65_536 }),
    readRemote('az://logs/app.log', { mode: 'lines', ranges: [{ start: 50_000, end: 50_001 }] }),
  ]);
  expect(info.lines).toBe(60_000);
  expect(first.content.startsWith('2026-01-01T00:00:00Z INFO line 1 \n')).toBe(true);
  expect(deep.content).toBe(lines.split('\n').slice(49_999, 50_001).join('\n') + '\n');
  const down = azurite.proxy.counts.down.GET ?? 0;
  // One stream of the blob, then the sidecar's put (up, not down) and at most a few ranged reads.
  expect(down, `${down} bytes down for a ${bytes.length}-byte blob in ${blobBytesDown()} GETs`).toBeLessThan(bytes.length * 1.2);
});
