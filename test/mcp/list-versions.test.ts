/**
 * `list` gives each file's version, so an agent moves, deletes or edits a file it
 * listed without a file_info first (issue 27, "fewer calls"): through `folio mcp`
 * with the real SDK client, the etag a list shows is the one a read answers, a move
 * and a delete made with it are applied, and one the file outran since the list is
 * precondition_failed and changes nothing.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forgetStores } from '../../src-main/review/index.ts';
import { connectStdio, okBody as ok, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-list-versions-');
const ws = tmp.path('ws');
let mcp: McpSession;

beforeAll(async () => {
  mkdirSync(join(ws, 'src'), { recursive: true });
  writeFileSync(join(ws, 'src/a.py'), 'A = 1\n');
  writeFileSync(join(ws, 'src/b.py'), 'B = 2\n');
  writeFileSync(join(ws, 'src/c.py'), 'C = 3\n');
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache'), clientName: 'list-agent', flags: ['--review', 'auto'] });
});
afterAll(async () => {
  await mcp?.close();
  forgetStores();
  tmp.cleanup();
});

type Entry = { path: string; kind: string; etag: string | null };
const listed = async () => new Map((ok(await mcp.call('list', { path: '.' })).entries as Entry[]).map((e) => [e.path, e]));

it('each file is listed with the etag a read answers; a directory with none', async () => {
  const entries = await listed();
  expect(entries.get('src')).toMatchObject({ kind: 'directory', etag: null });
  for (const f of ['src/a.py', 'src/b.py', 'src/c.py']) {
    const read = ok(await mcp.call('read', { path: f }));
    expect(entries.get(f)!.etag, f).toBe(read.version.etag);
  }
});

it("a move and a delete with the list's etags are applied: no file_info call needed", async () => {
  const entries = await listed();
  const moved = ok(await mcp.call('upsert', { path: 'src/a.py', target: { move_to: 'src/a_old.py' }, if_match: entries.get('src/a.py')!.etag }));
  expect(moved).toMatchObject({ applied: true, op: 'move' });
  expect(readFileSync(join(ws, 'src/a_old.py'), 'utf8')).toBe('A = 1\n');
  const deleted = ok(await mcp.call('upsert', { path: 'src/b.py', target: { delete_file: true }, if_match: entries.get('src/b.py')!.etag }));
  expect(deleted).toMatchObject({ applied: true, op: 'delete' });
  expect(existsSync(join(ws, 'src/b.py'))).toBe(false);
});

it('an etag the file outran since the list is precondition_failed, and the file is kept', async () => {
  const etag = (await listed()).get('src/c.py')!.etag;
  appendFileSync(join(ws, 'src/c.py'), 'D = 4\n');
  const r = await mcp.call('upsert', { path: 'src/c.py', target: { delete_file: true }, if_match: etag });
  expect(r.isError).toBe(true);
  expect(r.body.error.code).toBe('precondition_failed');
  expect(readFileSync(join(ws, 'src/c.py'), 'utf8')).toBe('C = 3\nD = 4\n');
});
