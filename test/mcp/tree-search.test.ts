/**
 * Directory search and list for agents over MCP (real SDK client, real `folio mcp`
 * child): only inside the roots, denied files never listed nor searched, symlinks
 * and hard links out of the root not followed, secrets redacted (a match only
 * inside a secret neither listed nor counted, context lines masked), and every
 * call audited.
 */
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetStores } from '../../src-main/review/index.ts';
import { leakOf } from '../fixtures/leaks.ts';
import { connectStdio, okBody as ok, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-tree-');
const cacheDir = tmp.path('cache');
const ws = tmp.path('ws');
const PASSWORD = 'hunter2-correct-horse';
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const SECRETS = [PASSWORD, TOKEN, 'qx1OUTSIDE', 'qx2ENVFILE', 'qx3FOLIOST', 'qx4PRIVATE', 'qx5HARDLNK'];
let mcp: McpSession;

beforeAll(async () => {
  for (const d of ['src/app', 'config', 'private', '.folio', 'docs']) mkdirSync(join(ws, d), { recursive: true });
  writeFileSync(join(ws, 'src/app/main.c'), 'int main(void)\n{\n\treturn connect_db();\n}\n');
  writeFileSync(join(ws, 'src/app/db.c'), '// connect_db opens the pool\nint connect_db(void)\n{\n\treturn 0;\n}\n');
  writeFileSync(join(ws, 'config/app.conf'), `host = db.internal\npassword = "${PASSWORD}"\nport = 5432\n# connect_db reads this file\n`);
  writeFileSync(join(ws, 'config/ci.yml'), `env:\n  GITHUB_TOKEN: ${TOKEN}\n  MODE: connect_db\n`);
  writeFileSync(join(ws, '.env'), 'DB=connect_db qx2ENVFILE\n');
  writeFileSync(join(ws, '.folio/state.json'), '{"connect_db": "qx3FOLIOST"}\n');
  writeFileSync(join(ws, 'private/notes.txt'), 'connect_db qx4PRIVATE\n');
  writeFileSync(join(ws, 'docs/guide.md'), '# Guide\n\nCall connect_db first.\n');
  writeFileSync(join(ws, '.gitignore'), 'docs/\n');
  // Ways out of the root: a symlinked directory, a symlinked file, a hard link to a file outside.
  mkdirSync(tmp.path('outside'));
  writeFileSync(tmp.path('outside/leak.c'), 'connect_db qx1OUTSIDE\n');
  writeFileSync(tmp.path('outside-hard.txt'), 'connect_db qx5HARDLNK\n');
  symlinkSync(tmp.path('outside'), join(ws, 'src/outside-dir'));
  symlinkSync(tmp.path('outside/leak.c'), join(ws, 'src/leak.c'));
  linkSync(tmp.path('outside-hard.txt'), join(ws, 'src/innocent.txt'));
  mcp = await connectStdio(ws, { cacheDir, clientName: 'tree-agent', flags: ['--deny', 'private/**'] });
});
afterAll(async () => {
  await mcp?.close();
  forgetStores();
  tmp.cleanup();
});

describe('directory search and list over MCP', () => {
  it('searches every file an agent may open, and none it may not (deny globs, .folio, .env, symlinks and hard links out)', async () => {
    const r = ok(await mcp.call('search', { path: '.', pattern: 'connect_db' }));
    expect(r.files.map((f: { path: string }) => f.path)).toEqual(['config/app.conf', 'config/ci.yml', 'src/app/db.c', 'src/app/main.c']);
    expect(leakOf(JSON.stringify(r), SECRETS)).toBeNull();
    // .gitignore'd docs/ is not searched either.
    expect(JSON.stringify(r)).not.toContain('guide.md');
  });

  it('lists the same files and directories, nothing denied, no symlinks', async () => {
    const r = ok(await mcp.call('list', { path: '.', depth: 5 }));
    expect(r.entries.map((e: { path: string }) => e.path)).toEqual([
      '.gitignore',
      'config',
      'config/app.conf',
      'config/ci.yml',
      'src',
      'src/app',
      'src/app/db.c',
      'src/app/main.c',
    ]);
    const main = r.entries.find((e: { path: string }) => e.path === 'src/app/main.c');
    expect(main).toMatchObject({ kind: 'text', size: 41, depth: 3 });
    expect(ok(await mcp.call('list', { path: 'src', depth: 1 })).entries.map((e: { path: string }) => e.path)).toEqual(['app']);
  });

  it('a line counts once indexed: list reports lines after a read, null before', async () => {
    const before = ok(await mcp.call('list', { path: 'src/app' }));
    expect(before.entries.find((e: { path: string }) => e.path === 'db.c').lines).toBeNull();
    ok(await mcp.call('read', { path: 'src/app/db.c', head: 1 }));
    const after = ok(await mcp.call('list', { path: 'src/app' }));
    expect(after.entries.find((e: { path: string }) => e.path === 'db.c').lines).toBe(5);
  });

  it('refuses a directory outside the roots, through .., an absolute path or a symlink (permission_denied), and a denied one', async () => {
    for (const path of ['..', tmp.path('outside'), 'src/outside-dir', 'private', '.folio']) {
      for (const [tool, args] of [
        ['search', { path, pattern: 'connect_db' }],
        ['list', { path }],
      ] as const) {
        const r = await mcp.call(tool, args);
        expect(r.isError, `${tool} ${path}: ${r.text}`).toBe(true);
        expect(r.body.error.code).toBe('permission_denied');
        expect(leakOf(r.text, SECRETS)).toBeNull();
      }
    }
  });

  it('judges matches on redacted text: a match only inside a secret is neither listed nor counted', async () => {
    for (const pattern of ['hunter2', 'correct-horse', 'ghp_[a-z]+', 'password = "h']) {
      const r = ok(await mcp.call('search', { path: '.', pattern }));
      expect(r.matches, pattern).toEqual([]);
      expect(r.count).toBe(0);
      expect(r.files).toEqual([]);
      const c = ok(await mcp.call('search', { path: '.', pattern, count_only: true }));
      expect(c.count, pattern).toBe(0);
    }
    const keyed = ok(await mcp.call('search', { path: 'config', pattern: 'password|GITHUB_TOKEN' }));
    expect(keyed.count).toBe(2);
    expect(keyed.redactions).toBe(2);
    expect(keyed.matches.map((m: { text: string }) => m.text).join('\n')).toMatch(/REDACTED/);
    expect(leakOf(JSON.stringify(keyed), SECRETS)).toBeNull();
  });

  it('masks secrets in context lines', async () => {
    const r = ok(await mcp.call('search', { path: 'config', pattern: 'host|MODE', context: 2 }));
    expect(r.matches.length).toBe(2);
    expect(r.redactions).toBe(2);
    const shown = JSON.stringify(r);
    expect(leakOf(shown, SECRETS)).toBeNull();
    expect(r.matches[0].context_after[0]).toMatch(/^password = .*REDACTED/);
  });

  it('pages with the cursor, and audits each call under the directory', async () => {
    const first = ok(await mcp.call('search', { path: '.', pattern: 'connect_db', max: 2 }));
    expect(first).toMatchObject({ truncated: true, count: 2 });
    const rest = ok(await mcp.call('search', { path: '.', pattern: 'connect_db', max: 10, cursor: first.next_cursor }));
    expect(rest.truncated).toBe(false);
    expect([...first.matches, ...rest.matches].map((m: { path: string; line: number }) => `${m.path}:${m.line}`)).toEqual([
      'config/app.conf:4',
      'config/ci.yml:3',
      'src/app/db.c:1',
      'src/app/db.c:2',
      'src/app/main.c:3',
    ]);
    const audit = readFileSync(join(ws, '.folio/audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(audit.filter((e) => e.op === 'search' && e.outcome === 'ok').at(-1)).toMatchObject({
      actor: { name: 'tree-agent' },
      path: expect.stringMatching(/ws$/),
    });
    expect(audit.some((e) => e.op === 'list' && e.outcome === 'ok')).toBe(true);
    expect(audit.some((e) => e.op === 'list' && e.outcome === 'error' && e.code === 'permission_denied')).toBe(true);
  });
});
