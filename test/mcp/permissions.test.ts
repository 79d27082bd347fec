/** What an agent may open over MCP: roots, deny and read-only globs, non-regular files, and review rules from folio.config.json. */
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetStores } from '../../src-main/review/index.ts';
import { connectStdio, type McpSession, type ToolAnswer } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-perm-');
const cacheDir = tmp.path('cache');
const ws = tmp.path('ws');
const VENDOR = 'vendored\ncode\n';
let mcp: McpSession;

beforeAll(async () => {
  for (const d of ['.git', 'private', 'vendor', 'logs', 'certs']) mkdirSync(join(ws, d), { recursive: true });
  writeFileSync(tmp.path('outside.txt'), 'outside the root\n');
  writeFileSync(join(ws, 'notes.txt'), 'one\ntwo\n');
  writeFileSync(join(ws, '.env'), 'A=1\n');
  writeFileSync(join(ws, 'certs/server.pem'), 'not really a cert\n');
  writeFileSync(join(ws, '.git/config'), '[core]\n');
  writeFileSync(join(ws, 'private/plan.txt'), 'private\n');
  writeFileSync(join(ws, 'vendor/lib.txt'), VENDOR);
  writeFileSync(join(ws, 'logs/app.log'), 'boot\n');
  writeFileSync(
    join(ws, 'folio.config.json'),
    JSON.stringify({
      review: [
        { glob: 'logs/**', policy: 'auto' },
        { glob: 'locked/**', policy: 'deny' },
      ],
    }),
  );
  mkdirSync(join(ws, 'locked'));
  writeFileSync(join(ws, 'locked/frozen.txt'), 'frozen\n');
  // Hard links made by someone with a shell: to a file outside the root, and to .env.
  writeFileSync(tmp.path('outside-key.txt'), 'KEY=outside\n');
  linkSync(tmp.path('outside-key.txt'), join(ws, 'innocent.txt'));
  linkSync(join(ws, '.env'), join(ws, 'env-alias.txt'));
  symlinkSync(tmp.path('outside.txt'), join(ws, 'escape.txt'));
  execFileSync('mkfifo', [join(ws, 'pipe')]);
  // /dev is an allowed root too, so /dev/null is refused for being a device, not for being outside.
  mcp = await connectStdio(ws, { cacheDir, flags: ['--allow', ws, '--allow', '/dev', '--deny', 'private/**', '--read-only', 'vendor/**'] });
});
afterAll(async () => {
  await mcp?.close();
  forgetStores();
  tmp.cleanup();
});

function expectDenied(r: ToolAnswer): void {
  expect(r.isError, r.text).toBe(true);
  expect(r.body.error.code).toBe('permission_denied');
}

describe('folio mcp permissions', () => {
  it('refuses ../ traversal and a symlink that leaves the root (permission_denied, naming where it resolves)', async () => {
    expectDenied(await mcp.call('read', { path: '../outside.txt', head: 1 }));
    expectDenied(await mcp.call('read', { path: join(ws, '..', 'outside.txt'), head: 1 }));
    const link = await mcp.call('read', { path: 'escape.txt', head: 1 });
    expectDenied(link);
    expect(link.body.error.resolved).toBe(tmp.path('outside.txt'));
    expect(link.text).not.toContain('outside the root\n');
    expectDenied(await mcp.call('file_info', { path: 'escape.txt' }));
    expectDenied(await mcp.call('search', { path: 'escape.txt', pattern: 'outside' }));
  });

  it('refuses the default deny globs (.env, *.pem, .git/config) and a --deny glob, for every tool', async () => {
    for (const path of ['.env', 'certs/server.pem', '.git/config', 'private/plan.txt']) {
      const r = await mcp.call('read', { path, head: 1 });
      expectDenied(r);
      expect(r.body.error.rule).toEqual(expect.any(String));
      expectDenied(await mcp.call('search', { path, pattern: '.' }));
      expectDenied(await mcp.call('file_info', { path }));
      expectDenied(await mcp.call('upsert', { path, target: { append: { at_end: true } }, content: 'x', if_match: 'any' }));
    }
    expect(readFileSync(join(ws, '.env'), 'utf8')).toBe('A=1\n');
  });

  it('a --read-only glob allows read and refuses upsert', async () => {
    const r = await mcp.call('read', { path: 'vendor/lib.txt', head: 5 });
    expect(r.isError).toBe(false);
    expect(r.body.content).toBe(VENDOR);
    const u = await mcp.call('upsert', { path: 'vendor/lib.txt', target: { append: { at_end: true } }, content: 'x', if_match: r.body.version.etag });
    expectDenied(u);
    expect(u.body.error.rule).toBe('vendor/**');
    expect(readFileSync(join(ws, 'vendor/lib.txt'), 'utf8')).toBe(VENDOR);
  });

  it('refuses a device file and a FIFO: agents only open regular files', async () => {
    expectDenied(await mcp.call('read', { path: '/dev/null', head: 1 }));
    expectDenied(await mcp.call('read', { path: '/dev/zero', start_byte: 0, max_bytes: 10 }));
    expectDenied(await mcp.call('read', { path: 'pipe', head: 1 })); // would block forever if opened
    expectDenied(await mcp.call('file_info', { path: 'pipe' }));
  });

  it('a folio.config.json review rule {glob: "logs/**", policy: "auto"} applies edits there at once; elsewhere they stay proposals', async () => {
    const log = await mcp.call('read', { path: 'logs/app.log', head: 1 });
    const a = await mcp.call('upsert', { path: 'logs/app.log', target: { append: { at_end: true } }, content: 'ready\n', if_match: log.body.version.etag });
    expect(a.isError, a.text).toBe(false);
    expect(a.body).toMatchObject({ applied: true, policy: 'auto' });
    expect(readFileSync(join(ws, 'logs/app.log'), 'utf8')).toBe('boot\nready\n');

    const n = await mcp.call('read', { path: 'notes.txt', head: 1 });
    const p = await mcp.call('upsert', { path: 'notes.txt', target: { append: { at_end: true } }, content: 'three\n', if_match: n.body.version.etag });
    expect(p.body).toMatchObject({ applied: false, policy: 'review', status: 'pending' });
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('refuses hard links to a file outside the root or to a denied file, for every tool', async () => {
    for (const path of ['innocent.txt', 'env-alias.txt']) {
      const r = await mcp.call('read', { path, head: 1 });
      expectDenied(r);
      expect(r.text).not.toContain('KEY=outside');
      expect(r.text).not.toContain('A=1');
      expectDenied(await mcp.call('search', { path, pattern: '.' }));
      expectDenied(await mcp.call('file_info', { path }));
      expectDenied(await mcp.call('upsert', { path, target: { append: { at_end: true } }, content: 'x', if_match: 'any' }));
    }
    expect(readFileSync(tmp.path('outside-key.txt'), 'utf8')).toBe('KEY=outside\n');
  });

  it('an agent may read the policy file but never edit it', async () => {
    const r = await mcp.call('read', { path: 'folio.config.json', head: 1 });
    expect(r.isError, r.text).toBe(false);
    const u = await mcp.call('upsert', {
      path: 'folio.config.json',
      target: { replace: { start: 1, end: 1 } },
      content: '{}\n',
      if_match: r.body.version.etag,
    });
    expectDenied(u);
    expect(readFileSync(join(ws, 'folio.config.json'), 'utf8')).toContain('locked/**');
  });

  it('--review auto on the command line does not override a deny rule of the config', async () => {
    const auto = await connectStdio(ws, { cacheDir, flags: ['--review', 'auto'] });
    try {
      const r = await auto.call('read', { path: 'locked/frozen.txt', head: 1 });
      const u = await auto.call('upsert', {
        path: 'locked/frozen.txt',
        target: { append: { at_end: true } },
        content: 'thawed\n',
        if_match: r.body.version.etag,
      });
      expectDenied(u);
      expect(readFileSync(join(ws, 'locked/frozen.txt'), 'utf8')).toBe('frozen\n');
    } finally {
      await auto.close();
    }
  });
});
