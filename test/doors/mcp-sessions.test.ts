/**
 * MCP sessions over Streamable HTTP are freed: real SDK clients against a real
 * server on 127.0.0.1. Abandoned sessions (the client went away without DELETE)
 * expire when idle, their id then answers 404 'unknown MCP session', a connected
 * client keeps working, and the number of sessions is capped.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { serve } from '../../src-main/doors/http/serve.ts';
import { readJsonBody } from '../../src-main/doors/http/request-body.ts';
import type { SessionLimits } from '../../src-main/doors/mcp/http-sessions.ts';
import { mcpHttpHandler } from '../../src-main/doors/mcp/server.ts';
import { forgetStores } from '../../src-main/review/store.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir();
const ws = tmp.path('ws');
mkdirSync(ws);
writeFileSync(`${ws}/notes.txt`, 'one\ntwo\n');
afterAll(() => {
  forgetStores();
  tmp.cleanup();
});

const running: { close(): void }[] = [];
afterEach(() => {
  for (const r of running.splice(0)) r.close();
});

/** mcpHttpHandler alone behind a real HTTP server, so the test can count its sessions. */
async function startMcp(limits: SessionLimits): Promise<{ url: URL; sessions: () => number; openRequests: () => number }> {
  const mcp = mcpHttpHandler(ws, {}, limits);
  const server: Server = createServer((req, res) => {
    void (async () => mcp(req, res, req.method === 'POST' ? await readJsonBody(req) : undefined))().catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  running.push({
    close: () => {
      mcp.closeAll();
      server.closeAllConnections();
      server.close();
    },
  });
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/mcp`), sessions: mcp.sessionCount, openRequests: mcp.openRequestCount };
}

async function connect(url: URL, headers: Record<string, string> = {}): Promise<{ client: Client; sessionId: string }> {
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const client = new Client({ name: 'sessions-test', version: '1' });
  await client.connect(transport);
  return { client, sessionId: transport.sessionId! };
}

/** A tools/list in the session `sessionId`, as a raw POST: the status the server answers. */
async function statusInSession(url: URL, sessionId: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const r = await fetch(url, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }),
  });
  return { status: r.status, body: await r.text() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, timeoutMs = 5000): Promise<void> {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(20);
  }
}

describe('MCP over Streamable HTTP: sessions are freed', () => {
  it('abandoned sessions expire when idle and their id answers 404; a connected client keeps working', async () => {
    const { url, sessions } = await startMcp({ idleMs: 2500 });
    const live = await connect(url);
    const abandoned: string[] = [];
    for (let i = 0; i < 10; i++) {
      const { client, sessionId } = await connect(url);
      await client.listTools();
      // Closing the client transport drops its connections without DELETE: an agent that went away.
      await client.close();
      abandoned.push(sessionId);
    }
    expect(sessions()).toBe(11);
    await until('the abandoned sessions are closed', () => sessions() === 1, 10_000);
    for (const id of abandoned.slice(0, 3)) {
      const r = await statusInSession(url, id);
      expect(r.status).toBe(404);
      expect(JSON.parse(r.body).error.message).toBe('unknown MCP session');
    }
    // The live client stayed connected (its event stream is an open request), idle as it was.
    expect((await live.client.listTools()).tools.map((t) => t.name)).toContain('read');
    expect(sessions()).toBe(1);
    await live.client.close();
  });

  it('a session in use past the idle time is not closed while its requests keep coming', async () => {
    const { url, sessions } = await startMcp({ idleMs: 200 });
    const { client, sessionId } = await connect(url);
    await client.close(); // no open stream: only its requests keep it alive
    for (let i = 0; i < 8; i++) {
      expect((await statusInSession(url, sessionId)).status).toBe(200);
      await sleep(60);
    }
    expect(sessions()).toBe(1);
    await until('it expires once the requests stop', () => sessions() === 0);
  });

  it('at the cap a new session closes the least recently active idle one, and gets 503 when all are busy', async () => {
    const { url, sessions, openRequests } = await startMcp({ idleMs: 60_000, maxSessions: 3 });
    // Each client's event stream is seen open, then seen closed (its end is activity too), before the next step.
    const connectThenClose = async () => {
      const c = await connect(url);
      await until('the client’s event stream is open', () => openRequests() === 1);
      await c.client.close();
      await until('its end is seen', () => openRequests() === 0);
      return c;
    };
    const first = await connectThenClose();
    const second = await connectThenClose();
    expect((await statusInSession(url, first.sessionId)).status).toBe(200); // first is now the more recent
    const busy = await connect(url);
    expect(sessions()).toBe(3);
    const fourth = await connect(url);
    expect(sessions()).toBe(3);
    expect((await statusInSession(url, second.sessionId)).status).toBe(404);
    expect((await statusInSession(url, first.sessionId)).status).toBe(200);
    const fifth = await connect(url); // closes first (idle); busy and fourth hold their streams
    expect((await statusInSession(url, first.sessionId)).status).toBe(404);
    await until('the streams of the connected clients are open', () => sessions() === 3);
    await expect(connect(url)).rejects.toThrow(/503|too many MCP sessions/);
    expect(sessions()).toBe(3);
    for (const c of [busy, fourth, fifth]) await c.client.close();
  });

  it("through folio serve: the session limits apply at /api/mcp behind the agent's bearer token", async () => {
    const renderer = tmp.path('renderer');
    mkdirSync(renderer, { recursive: true });
    writeFileSync(`${renderer}/index.html`, '<!doctype html><title>t</title>');
    const server = await serve({ port: 0, rendererDir: renderer, workspace: ws, mcpSessions: { idleMs: 200 } });
    try {
      const url = new URL('/api/mcp', server.url);
      const auth = { authorization: `Bearer ${server.agentToken}` };
      const { client, sessionId } = await connect(url, auth);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
      expect((await statusInSession(url, sessionId, auth)).status).toBe(200);
      await sleep(600);
      const r = await statusInSession(url, sessionId, auth);
      expect(r.status).toBe(404);
      expect(JSON.parse(r.body).error.message).toBe('unknown MCP session');
    } finally {
      await server.close();
    }
  });
});
