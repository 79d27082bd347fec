/**
 * The app's first window of a remote value never indexed (a byte window at offset 0)
 * comes from one ranged read of its first bytes, not after the whole value has been
 * streamed for its line index: Azurite behind the counting proxy holds the index
 * stream back until the answer is in, and counts what came down before it. The
 * answer has no total lines (the app shows none yet) and is the same content as the
 * same read once indexed, as sed prints it from the same bytes in a local file.
 * PostgreSQL takes the same path (its stream cannot be held: the answer is checked).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type http from 'node:http';
import { BlobServiceClient } from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { closePostgresPools } from '../../src-main/backends/postgres/postgres.ts';
import { forgetRemote, HEAD_READ_MAX_BYTES } from '../../src-main/engine/backend/remote.ts';
import type { ReadOutput } from '../../src-main/api/schemas.ts';
import { startAzurite, type Azurite } from '../fixtures/azurite.ts';
import { startPostgres, type TestPostgres } from '../fixtures/postgres.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';

const HUMAN = { kind: 'human', name: 'test' } as const;
const tmp = engineTempDir();
let azurite: Azurite;
let pgs: TestPostgres;
let workspace: string;

/** ~24 MB of log lines of many lengths, some with multi-byte characters. */
const big = Buffer.from(
  Array.from(
    { length: 260_000 },
    (_, i) => `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z ${i % 11 === 0 ? 'WARN ünïcödé ✓' : 'INFO'} line ${i + 1} ${'x'.repeat((i * 7) % 131)}\n`,
  ).join(''),
);
/** A first line longer than the window (the answer cuts it), then short lines: 3 MB. */
const longFirst = Buffer.from(`${'L'.repeat(300_000)}\n${Array.from({ length: 100_000 }, (_, i) => `short ${i}\n`).join('')}`);

const oracles: Record<string, string> = {};
const ctx = () => ({ workspace });
const read = (path: string, extra: Record<string, unknown> = {}) =>
  handle('read', { path, start_byte: 0, max_bytes: 65_536, ...extra }, HUMAN, ctx()) as Promise<ReadOutput>;

beforeAll(async () => {
  [azurite, pgs] = await Promise.all([startAzurite(), startPostgres()]);
  const container = BlobServiceClient.fromConnectionString(azurite.directConnectionString).getContainerClient('logs');
  await container.create();
  for (const [name, bytes] of [
    ['big.log', big],
    ['long-first.log', longFirst],
  ] as const) {
    await container.getBlockBlobClient(name).uploadData(bytes);
    oracles[name] = tmp.path(name);
    writeFileSync(oracles[name], bytes);
  }
  await pgs.client.query(`CREATE TABLE docs (id text PRIMARY KEY, body text)`);
  await pgs.client.query(`INSERT INTO docs (id, body) VALUES ('big', convert_from($1, 'UTF8'))`, [big]);
  workspace = tmp.path('ws');
  execFileSync('mkdir', ['-p', workspace]);
  writeFileSync(
    `${workspace}/folio.config.json`,
    JSON.stringify({
      backends: { az: { connectionString: azurite.connectionString }, pg: { host: pgs.host, port: pgs.port, user: pgs.user, database: pgs.database } },
    }),
  );
});

afterAll(async () => {
  await closePostgresPools();
  await Promise.all([azurite?.stop(), pgs?.stop()]);
});

/** Lines a..b of a local file, as sed prints them. */
const sed = (file: string, a: number, b: number) => execFileSync('sed', ['-n', `${a},${b}p`, file], { maxBuffer: 64 << 20 }).toString();

/** What a window is, apart from what only the index knows (total lines, newline style, progress). */
const windowOf = (r: ReadOutput) => ({
  content: r.content,
  start_line: r.start_line,
  end_line: r.end_line,
  start_byte: r.start_byte,
  end_byte: r.end_byte,
  version: r.version.etag,
  encoding: r.encoding,
  truncated: r.truncated,
  line_cut: r.line_cut,
  next_start_byte: r.next_start_byte,
});

/** Hold the blob's whole-value stream (a Get Blob with no range, or one open-ended) until `release`. */
function holdStreams(blob: string): { release(): void; held: () => number } {
  let held = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  azurite.proxy.before = async (req: http.IncomingMessage) => {
    const range = String(req.headers['x-ms-range'] ?? req.headers.range ?? '');
    const path = decodeURIComponent((req.url ?? '').split('?')[0]!);
    if (req.method === 'GET' && path === `/${azurite.account}/logs/${blob}` && (range === '' || range.endsWith('-'))) {
      held++;
      await gate;
    }
  };
  return { release, held: () => held };
}

describe('az:// head window before the index', () => {
  it('answers from ≤ 1 MiB downloaded while the index stream is held, then equals the indexed answer and sed', async () => {
    forgetRemote();
    azurite.proxy.reset();
    const hold = holdStreams('big.log');
    let head: ReadOutput;
    let downBefore: number;
    try {
      head = await read('az://logs/big.log');
      downBefore = azurite.proxy.counts.down.GET ?? 0;
      // The app asks the head again for the build's progress: a stat, no second ranged read.
      const again = await read('az://logs/big.log', { max_bytes: 1 });
      expect(again.total_lines).toBeNull();
      expect({ ...windowOf(again), version: '' }).toEqual({ ...windowOf(await read(oracles['big.log']!, { max_bytes: 1 })), version: '' });
      expect(azurite.proxy.counts.down.GET ?? 0).toBe(downBefore);
    } finally {
      hold.release();
      azurite.proxy.before = undefined;
    }
    expect(hold.held(), 'the index build started in the background').toBe(1);
    expect(downBefore).toBeLessThanOrEqual(HEAD_READ_MAX_BYTES);
    expect(head.total_lines, 'no total lines before the index').toBeNull();
    expect(head.indexing).toMatchObject({ total_bytes: big.length });
    expect(head.indexing!.bytes_done).toBeLessThan(big.length);
    expect(head.content).toBe(sed(oracles['big.log']!, 1, head.end_line!));
    expect(head.end_byte - head.start_byte).toBeGreaterThan(60_000);

    // file_info waits for the index (the same stream), and then the same read is the indexed one.
    const info = await handle('file_info', { path: 'az://logs/big.log' }, HUMAN, ctx());
    expect(info.lines).toBe(260_000);
    const indexed = await read('az://logs/big.log');
    expect(indexed.total_lines).toBe(260_000);
    expect(indexed.indexing).toBeNull();
    expect(windowOf(head)).toEqual(windowOf(indexed));
    expect(windowOf(head)).toEqual({ ...windowOf(await read(oracles['big.log']!)), version: indexed.version.etag });
  });

  it('hashlines and a first line longer than the window answer as once indexed', async () => {
    forgetRemote();
    const cases: Array<[string, Record<string, unknown>]> = [
      ['big.log', { hashlines: true }],
      ['long-first.log', {}],
      ['long-first.log', { max_bytes: 600_000 }],
    ];
    for (const [blob, extra] of cases) {
      forgetRemote();
      const hold = holdStreams(blob);
      let head: ReadOutput;
      try {
        head = await read(`az://logs/${blob}`, extra);
      } finally {
        hold.release();
        azurite.proxy.before = undefined;
      }
      expect(head.total_lines, `${blob} ${JSON.stringify(extra)}`).toBeNull();
      await handle('file_info', { path: `az://logs/${blob}` }, HUMAN, ctx());
      const indexed = await read(`az://logs/${blob}`, extra);
      expect(indexed.total_lines).not.toBeNull();
      expect(windowOf(head), `${blob} ${JSON.stringify(extra)}`).toEqual(windowOf(indexed));
    }
  });

  it('other read modes still wait for the index: their answers carry total lines', async () => {
    forgetRemote();
    const r = (await handle('read', { path: 'az://logs/big.log', offset: 1, limit: 5 }, HUMAN, ctx())) as ReadOutput;
    expect(r.total_lines).toBe(260_000);
    expect(r.content).toBe(sed(oracles['big.log']!, 1, 5));
  });
});

describe('pg:// head window before the index', () => {
  it('answers without total lines, the same as once indexed and as sed', async () => {
    forgetRemote();
    const head = await read('pg://docs/big/body');
    expect(head.total_lines).toBeNull();
    expect(head.indexing).toMatchObject({ total_bytes: big.length });
    expect(head.content).toBe(sed(oracles['big.log']!, 1, head.end_line!));
    const info = await handle('file_info', { path: 'pg://docs/big/body' }, HUMAN, ctx());
    expect(info.lines).toBe(260_000);
    const indexed = await read('pg://docs/big/body');
    expect(indexed.total_lines).toBe(260_000);
    expect(windowOf(head)).toEqual(windowOf(indexed));
  });
});

describe.each(['body', 'raw'])('pg:// %s after a head read', (column) => {
  it('follows a value appended to by another writer, as without one', async () => {
    forgetRemote();
    await pgs.client.query(`ALTER TABLE docs ADD COLUMN IF NOT EXISTS raw bytea`);
    await pgs.client.query(`INSERT INTO docs (id, body, raw) VALUES ('follow-${column}', convert_from($1, 'UTF8'), $1)`, [big]);
    const loc = `pg://docs/follow-${column}/${column}`;
    const [head, info] = await Promise.all([read(loc), handle('file_info', { path: loc }, HUMAN, ctx())]);
    expect(head.content).toBe(sed(oracles['big.log']!, 1, head.end_line!));
    expect(info.lines).toBe(260_000);
    const more = Array.from({ length: 250 }, (_, i) => `appended ${i + 1}\n`).join('');
    await pgs.client.query(
      column === 'body'
        ? `UPDATE docs SET body = body || $1 WHERE id = 'follow-body'`
        : `UPDATE docs SET raw = raw || convert_to($1, 'UTF8') WHERE id = 'follow-raw'`,
      [more],
    );
    const next = await handle('file_info', { path: loc }, HUMAN, ctx());
    expect(next.lines).toBe(260_250);
    expect(next.version.etag).not.toBe(info.version.etag);
    const tail = (await handle('read', { path: loc, offset: 260_241, limit: 10 }, HUMAN, ctx())) as ReadOutput;
    expect(tail.content).toBe(more.split('\n').slice(240, 250).join('\n') + '\n');
  });
});
