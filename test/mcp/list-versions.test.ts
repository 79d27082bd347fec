/**
 * `list` gives each file's version, so an agent moves, deletes or edits a file it
 * listed without a file_info first (issue 27, "fewer calls"): through `folio mcp`
 * with the real SDK client, the etag a list shows is the one a read answers, a move
 * and a delete made with it are applied, and one the file outran since the list is
 * precondition_failed and changes nothing. A directory search's files carry their
 * versions the same way (over MCP and `folio search DIR --json`).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etagOf, statRegularFile } from '../../src-main/engine/index/identity.ts';
import { forgetStores } from '../../src-main/review/index.ts';
import { BIN, connectStdio, okBody as ok, type McpSession } from '../fixtures/mcp-client.ts';
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

describe('a directory search gives each file’s version', () => {
  it('the etag of each file with matches is the one a read answers, and edits by line with it apply', async () => {
    writeFileSync(join(ws, 'src/d.py'), 'def d():\n    return TODO\n');
    writeFileSync(join(ws, 'src/e.py'), 'E = "TODO"\n');
    const found = ok(await mcp.call('search', { path: 'src', pattern: 'TODO' }));
    const files = new Map((found.files as { path: string; etag: string | null }[]).map((f) => [f.path, f.etag]));
    expect([...files.keys()].sort()).toEqual(['d.py', 'e.py']);
    for (const f of ['d.py', 'e.py']) expect(files.get(f), f).toBe(ok(await mcp.call('read', { path: `src/${f}` })).version.etag);
    const line = (found.matches as { path: string; line: number }[]).find((m) => m.path === 'd.py')!.line;
    const done = ok(
      await mcp.call('upsert', { path: 'src/d.py', target: { replace: { start: line, end: line } }, content: '    return 42\n', if_match: files.get('d.py') }),
    );
    expect(done.applied).toBe(true);
    expect(readFileSync(join(ws, 'src/d.py'), 'utf8')).toBe('def d():\n    return 42\n');
  });

  it('an etag from a search the file outran is precondition_failed', async () => {
    writeFileSync(join(ws, 'src/f.py'), 'F = "TODO"\n');
    const found = ok(await mcp.call('search', { path: 'src', pattern: 'TODO' }));
    const etag = (found.files as { path: string; etag: string | null }[]).find((f) => f.path === 'f.py')!.etag;
    expect(etag).toEqual(expect.any(String));
    appendFileSync(join(ws, 'src/f.py'), 'G = 1\n');
    const r = await mcp.call('upsert', { path: 'src/f.py', target: { replace: { start: 1, end: 1 } }, content: 'F = 1\n', if_match: etag });
    expect(r.body.error.code).toBe('precondition_failed');
    expect(readFileSync(join(ws, 'src/f.py'), 'utf8')).toBe('F = "TODO"\nG = 1\n');
  });

  it('the CLI’s folio search DIR --json carries the same etags', () => {
    const r = spawnSync(process.execPath, [BIN, 'search', join(ws, 'src'), 'TODO', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') },
    });
    expect(r.status, r.stderr).toBe(0);
    const files = JSON.parse(r.stdout).files as { path: string; etag: string }[];
    const e = files.find((f) => f.path === 'e.py')!;
    expect(e.etag).toBe(etagOf(statRegularFile(join(ws, 'src/e.py'))));
  });
});
