/** The MCP door over Streamable HTTP at /api/mcp on a real `folio serve` child, behind the agent's bearer token. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TOOL_NAMES, BIN, connectHttp, startServe, type RunningServe } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-http-');
const cacheDir = tmp.path('cache');
const ws = tmp.path('ws');
const TEXT = 'alpha\nbeta\ngamma\n';
let serve: RunningServe;

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'notes.txt'), TEXT);
  serve = await startServe(ws, cacheDir);
});
afterAll(async () => {
  await serve?.stop();
  tmp.cleanup();
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'no-token', version: '1' } },
};

describe('folio serve: MCP over Streamable HTTP', () => {
  it("prints its URL first, the agent's MCP client config on stderr, and writes both tokens to .folio/serve.json (mode 0600)", () => {
    expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    expect(serve.state).toMatchObject({ url: serve.url, mcp: `${serve.origin}/api/mcp`, token: new URL(serve.url).searchParams.get('token') });
    expect(serve.state.agent_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(serve.state.agent_token).not.toBe(serve.state.token);
    expect(serve.mcpConfig).toEqual({ type: 'http', url: serve.state.mcp, headers: { Authorization: `Bearer ${serve.state.agent_token}` } });
    expect(statSync(serve.statePath).mode & 0o777).toBe(0o600);
  });

  it('with the config folio serve printed, an SDK client lists the agent tools, reads and proposes an edit', async () => {
    const mcp = await connectHttp(serve.mcpConfig.url, serve.mcpConfig.headers.Authorization!.replace(/^Bearer /, ''));
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(AGENT_TOOL_NAMES);
      const r = await mcp.call('read', { path: 'notes.txt', ranges: [{ start: 2, end: 2 }], hashlines: true });
      expect(r.isError, r.text).toBe(false);
      expect(r.body.content).toMatch(/^2#[0-9a-f]{3}\|beta\n$/);
      const anchor = r.body.content.split('|')[0];
      const p = await mcp.call('upsert', { path: 'notes.txt', target: { replace: { start: 2, end: 2 } }, content: 'BETA', anchors: [anchor] });
      expect(p.isError, p.text).toBe(false);
      expect(p.body).toMatchObject({ applied: false, policy: 'review', status: 'pending', actor: { kind: 'agent', name: 'folio-e2e-http-agent' } });
      expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe(TEXT);
      const s = await mcp.call('proposal_status', { proposal_id: p.body.proposal_id });
      expect(s.body.status).toBe('pending');
    } finally {
      await mcp.close();
    }
  });

  it("without the agent's token (or with a wrong one) /api/mcp answers 401; the person's token 403", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(serve.state.mcp, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(INITIALIZE),
      });
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await post({ authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post({ authorization: `Bearer ${serve.state.token}` })).status).toBe(403);
    expect((await post({ authorization: `Bearer ${serve.state.agent_token}` })).status).toBe(200);
    await expect(connectHttp(serve.state.mcp, 'wrong-token')).rejects.toThrow();
    await expect(connectHttp(serve.state.mcp, serve.state.token)).rejects.toThrow();
  });

  it('refuses --host 0.0.0.0 (exit 1): the MCP endpoint is never exposed beyond loopback', () => {
    const r = spawnSync(process.execPath, [BIN, 'serve', '--host', '0.0.0.0', '--port', '0'], {
      cwd: ws,
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, FOLIO_CACHE_DIR: cacheDir },
    });
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toMatch(/0\.0\.0\.0/);
    expect(r.stdout).toBe('');
  });
});
