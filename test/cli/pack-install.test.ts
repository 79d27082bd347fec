/**
 * One line to install (issue 27): `npm pack` makes a package (folio-mcp) that
 * installs into an empty project with production dependencies only (no renderer
 * packages, no tsx, no @types) and runs as README's MCP configs say,
 * `npx folio-mcp mcp --root DIR`, driven here by the real SDK client: the tool
 * list, a read and a patch; and `folio query`, whose SQL runs in a child process
 * started from the package's dist/log-query-worker.mjs. Packed with --ignore-scripts (the checkout's dist/ is
 * built already; `prepare` would rebuild it under the other tests' feet).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { answerOfResult } from '../../src-main/doors/mcp/reply.ts';
import { AGENT_TOOL_NAMES } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-pack-');
afterAll(() => tmp.cleanup());

const npm = (args: string[], cwd: string) => {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' } });
  expect(r.status, `npm ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r.stdout;
};

describe('npm pack, installed on its own', () => {
  it('packs the built CLI only, installs with production dependencies, and serves MCP through npx', async () => {
    const [packed] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', tmp.dir], process.cwd())) as {
      filename: string;
      files: { path: string }[];
    }[];
    const files = packed!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['bin/folio.mjs', 'dist/cli.mjs', 'dist/mcp.mjs', 'dist/kernels.wasm', 'package.json', 'README.md']));
    expect(files.filter((f) => /^(src-main|src-renderer|test|e2e|bench|wasm)\//.test(f))).toEqual([]);

    const app = tmp.path('app');
    mkdirSync(app, { recursive: true });
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'uses-folio', private: true }));
    npm(['install', '--omit=dev', '--prefer-offline', '--no-audit', '--ignore-scripts', join(tmp.dir, packed!.filename)], app);
    const installed = JSON.parse(readFileSync(join(app, 'node_modules/folio-mcp/package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(installed.bin).toEqual({ folio: 'bin/folio.mjs' });
    // Build-time packages stay out of an install.
    for (const dev of ['react', 'react-dom', 'monaco-editor', 'zustand', 'tsx', '@types/pg', 'electron', 'vitest']) {
      expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false);
    }

    const ws = tmp.path('ws');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'notes.txt'), 'alpha\nbeta\n');
    // README's config, as a client runs it: npx folio-mcp mcp --root DIR (from the project that installed it).
    const transport = new StdioClientTransport({
      command: 'npx',
      args: ['--no-install', 'folio-mcp', 'mcp', '--root', ws, '--review', 'auto'],
      cwd: app,
      env: { ...(process.env as Record<string, string>), FOLIO_CACHE_DIR: tmp.path('cache') },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'pack-install', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect([...tools].sort()).toEqual([...AGENT_TOOL_NAMES].sort());
      const read = answerOfResult(await client.callTool({ name: 'read', arguments: { path: 'notes.txt' } })).body as { content: string };
      expect(read.content).toBe('alpha\nbeta\n');
      const patched = answerOfResult(
        await client.callTool({ name: 'edit', arguments: { patch: '*** Begin Patch\n*** Update File: notes.txt\n@@\n-beta\n+gamma\n*** End Patch' } }),
      ).body as { applied: boolean };
      expect(patched.applied).toBe(true);
      expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('alpha\ngamma\n');
    } finally {
      await client.close();
    }
    // A query's process runs dist/log-query-worker.mjs beside the bundle: shipped, it answers from the install too.
    // better-sqlite3's binding is what its install script (skipped: --ignore-scripts) would fetch; the checkout's is that one.
    mkdirSync(join(app, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
    copyFileSync(
      join(process.cwd(), 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
      join(app, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
    );
    writeFileSync(join(ws, 'app.log'), '2024-05-01T00:00:00Z INFO a\n2024-05-01T00:00:01Z ERROR b\n2024-05-01T00:00:02Z ERROR c\n');
    const q = spawnSync('npx', ['--no-install', 'folio-mcp', 'query', join(ws, 'app.log'), 'SELECT level, count(*) AS n FROM log GROUP BY level'], {
      cwd: app,
      encoding: 'utf8',
      env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') },
    });
    expect(q.stderr).toBe('');
    expect(q.stdout).toBe('level\tn\nerror\t2\ninfo\t1\n');
    // npm pack and an install of 100-odd packages: ~21 s alone, past the default 180 s
    // once, beside the whole suite on 2 cores (better-sqlite3 added 29 packages).
  }, 480_000);
});
