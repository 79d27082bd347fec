/**
 * The HTTP door's two principals, tried as an adversary on a real server on
 * 127.0.0.1 with a real MCP SDK client: the agent's token opens /api/mcp and
 * nothing else (every route of the operation table, the event stream, unknown
 * routes, the page trade and the first window, in every header form a client
 * might try), and the person's credentials (token, cookie) do not open /api/mcp.
 * Refused requests change nothing on disk: a proposal the agent made stays pending.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src-main/api/operations.ts';
import { serve, type RunningServer } from '../../src-main/doors/http/serve.ts';
import { forgetStores } from '../../src-main/review/store.ts';
import { connectHttp, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';
import { cookieOf, httpRequest, type Answer } from './http-request.ts';

const tmp = tempDir('folio-principals-');
const ws = tmp.path('ws');
const configDir = tmp.path('config');
const NOTES = 'alpha\nbeta\ngamma\n';
const SECRET = 'FOLIO_TEST_SECRET=hunter2-principals';
let server: RunningServer;
let origin: string;
let agent: McpSession;
let proposalId: string;

beforeAll(async () => {
  mkdirSync(ws);
  mkdirSync(configDir);
  // The person's recent files, highlights and marks: the agent must not write them either.
  process.env.FOLIO_CONFIG_DIR = configDir;
  process.env.FOLIO_CACHE_DIR = tmp.path('cache');
  writeFileSync(join(ws, 'notes.txt'), NOTES);
  writeFileSync(join(ws, '.env'), `${SECRET}\n`);
  const renderer = tmp.path('renderer');
  mkdirSync(renderer);
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><html><head><title>t</title></head><body><div id="root"></div></body></html>');
  server = await serve({ port: 0, rendererDir: renderer, workspace: ws });
  origin = new URL(server.url).origin;
  // The agent, as an MCP client would connect with the config folio serve hands it: a pending proposal.
  agent = await connectHttp(server.mcpClientConfig.url, server.agentToken, 'adversary');
  const read = await agent.call('read', { path: 'notes.txt', ranges: [{ start: 2, end: 2 }], hashlines: true });
  expect(read.isError, read.text).toBe(false);
  const proposed = await agent.call('upsert', {
    path: 'notes.txt',
    target: { replace: { start: 2, end: 2 } },
    content: 'BETA BY THE AGENT',
    anchors: [read.body.content.split('|')[0]],
  });
  expect(proposed.body).toMatchObject({ applied: false, status: 'pending' });
  proposalId = proposed.body.proposal_id;
});
afterAll(async () => {
  await agent?.close();
  await server?.close();
  forgetStores();
  tmp.cleanup();
});

/** Every file under the workspace and the person's config folder, with the sha256 of its bytes. */
function snapshot(): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else files[relative(tmp.dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(ws);
  walk(configDir);
  return files;
}

const post = (route: string, headers: Record<string, string>, body: unknown = {}, query = '') =>
  httpRequest(`${origin}${route}${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const agentBearer = () => ({ authorization: `Bearer ${server.agentToken}` });

/** The input each operation would act on if let in: the damaging one where there is one (approve the agent's own proposal, read outside the policy). */
function attackInput(op: string): unknown {
  const notes = join(ws, 'notes.txt');
  const inputs: Record<string, unknown> = {
    review_approve: { id: proposalId },
    review_reject: { id: proposalId, reason: 'agent' },
    review_show: { id: proposalId },
    review_batch: { decision: 'approve' },
    review_undo: { path: notes },
    review_redo: { path: notes },
    read: { path: '.env' },
    upsert: { path: notes, target: { replace: { start: 1, end: 1 } }, content: 'OWNED' },
    edit: { path: notes, edits: [{ old_text: 'alpha', new_text: 'OWNED' }] },
    delete_file: { path: notes },
    move_file: { path: notes, to: join(ws, 'moved.txt') },
    recent_add: { path: notes },
    highlights_set: { rules: [{ pattern: 'x', literal: true, color: 'red' }] },
    marks_set: { path: notes, lines: [1] },
    app_open: { path: notes },
    proposal_status: { proposal_id: proposalId },
  };
  return inputs[op] ?? { path: notes };
}

/** The refusal of the agent's token on a person's route: 403, typed, naming both credentials. */
function expectAgentRefused(a: Answer, what: string): void {
  expect(a.status, `${what}: ${a.text}`).toBe(403);
  expect(JSON.parse(a.text).error, what).toMatchObject({ code: 'permission_denied', reason: 'wrong_principal', credential: 'agent', accepts: 'person' });
  expect(a.text, what).not.toContain(SECRET);
}

/** The person's credentials: the bearer token, and the page cookie traded from the printed URL. */
async function personCookie(): Promise<string> {
  const trade = await httpRequest(server.url, { headers: { 'sec-fetch-site': 'none' } });
  expect(trade.status).toBe(303);
  return cookieOf(trade).pair;
}

async function stillPending(): Promise<void> {
  const status = await agent.call('proposal_status', { proposal_id: proposalId });
  expect(status.body.status).toBe('pending');
  const list = await post('/api/review_list', { authorization: `Bearer ${server.token}` });
  expect(list.status, list.text).toBe(200);
  expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe(NOTES);
}

describe("folio serve: the agent's token opens /api/mcp and nothing else", () => {
  it('every operation of the table, POSTed with the agent token, is 403 wrong_principal and changes nothing on disk', async () => {
    const before = snapshot();
    const names = Object.keys(operations);
    expect(names).toEqual(expect.arrayContaining(['review_approve', 'read', 'upsert', 'delete_file']));
    let attempts = 0;
    for (const op of names) {
      expectAgentRefused(await post(`/api/${op}`, agentBearer(), attackInput(op)), op);
      attempts++;
    }
    // The issue's three, each as sent: its own proposal, a path the policy denies, a path outside the workspace.
    const hostFile = '/etc/hostname';
    const issue: [string, unknown][] = [
      ['review_approve', { id: proposalId }],
      ['read', { path: '.env' }],
      ['read', { path: join(ws, '.env') }],
      ['read', { path: hostFile }],
      ['file_info', { path: hostFile }],
      ['search', { path: ws, pattern: 'hunter2' }],
    ];
    for (const [op, input] of issue) {
      const a = await post(`/api/${op}`, agentBearer(), input);
      expectAgentRefused(a, `${op} ${JSON.stringify(input)}`);
      expect(a.text).not.toContain(`${hostname()}\n`);
      attempts++;
    }
    expect(attempts).toBe(names.length + issue.length);
    expect(snapshot()).toEqual(before);
    await stillPending();
  });

  it('the event stream, unknown routes, other methods and odd spellings of the path: 403 to the agent token', async () => {
    const events = await httpRequest(`${origin}/api/events`, { headers: agentBearer() });
    expectAgentRefused(events, 'GET /api/events');
    const routes = ['/api/nope', '/api/', '/api', '/api/mcp/', '/api/%6dcp', '/api/mcp%2f', '/api//mcp', '/api/review_approve/', '/api/read/../review_approve'];
    for (const route of routes) expectAgentRefused(await post(route, agentBearer(), { id: proposalId }), `POST ${route}`);
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      expectAgentRefused(await httpRequest(`${origin}/api/review_approve`, { method, headers: agentBearer() }), `${method} /api/review_approve`);
    }
    await stillPending();
  });

  it('the agent token in every form a client might send it is refused on a person route (401 or 403, never let in)', async () => {
    const t = server.agentToken;
    const bearers = [`Bearer ${t}`, `bearer ${t}`, `BEARER ${t}`, `Bearer   ${t}   `, `Bearer\t${t}`, `bEaReR ${t}`];
    for (const authorization of bearers) expectAgentRefused(await post('/api/review_approve', { authorization }, { id: proposalId }), authorization);
    const port = new URL(origin).port;
    const otherForms: Record<string, string>[] = [
      { authorization: t },
      { authorization: `Token ${t}` },
      { authorization: `Basic ${Buffer.from(`agent:${t}`).toString('base64')}` },
      { authorization: `Bearer ${t}, Bearer ${server.token}` },
      { authorization: `Bearer ${t}x` },
      { cookie: `folio_${port}=${t}` },
      { cookie: `folio_${port}=${t}`, 'sec-fetch-site': 'same-origin', origin },
      { 'x-folio-token': t },
    ];
    for (const headers of otherForms) {
      const a = await post('/api/review_approve', headers, { id: proposalId });
      expect([401, 403], `${JSON.stringify(headers)}: ${a.text}`).toContain(a.status);
    }
    // In the query string: refused on /api whatever rides along.
    for (const headers of [{}, agentBearer()]) {
      const a = await post('/api/review_approve', headers, { id: proposalId }, `?token=${t}`);
      expect(a.status).toBe(401);
      expect(JSON.parse(a.text).error.message).toMatch(/query string/);
    }
    // Next to the person's own cookie, the agent's bearer still speaks for the agent.
    const cookie = await personCookie();
    expectAgentRefused(
      await post('/api/review_approve', { ...agentBearer(), cookie, origin, 'sec-fetch-site': 'same-origin' }, { id: proposalId }),
      'bearer + cookie',
    );
    await stillPending();
  });

  it("the page trade and the page's first window are the person's: the agent token trades no cookie and reads no file", async () => {
    const trade = await httpRequest(`${origin}/?token=${encodeURIComponent(server.agentToken)}`, { headers: { 'sec-fetch-site': 'none' } });
    expect(trade.status).toBe(200);
    expect(trade.headers['set-cookie']).toBeUndefined();
    const page = await httpRequest(`${origin}/?file=${encodeURIComponent(join(ws, '.env'))}`, { headers: { ...agentBearer(), 'sec-fetch-site': 'none' } });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('folio-first-window');
    expect(page.text).not.toContain('hunter2');
    // The person's bearer does get it (the first window is not simply gone).
    const person = await httpRequest(`${origin}/?file=${encodeURIComponent(join(ws, 'notes.txt'))}`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(person.text).toContain('folio-first-window');
  });
});

describe("folio serve: the person's credentials do not open /api/mcp", () => {
  const INITIALIZE = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'person', version: '1' } },
  };
  const mcpHeaders = { accept: 'application/json, text/event-stream' };

  it("the person's token and the page cookie are 403 at /api/mcp, with a message naming the agent's token", async () => {
    const cookie = await personCookie();
    const forms: Record<string, string>[] = [
      { authorization: `Bearer ${server.token}` },
      { authorization: `bearer ${server.token}` },
      { cookie, origin, 'sec-fetch-site': 'same-origin' },
      { cookie },
    ];
    for (const headers of forms) {
      const a = await post('/api/mcp', { ...mcpHeaders, ...headers }, INITIALIZE);
      expect(a.status, `${JSON.stringify(headers)}: ${a.text}`).toBe(403);
      const error = JSON.parse(a.text).error;
      expect(error).toMatchObject({ code: 'permission_denied', reason: 'wrong_principal', credential: 'person', accepts: 'agent' });
      expect(error.message).toMatch(/agent_token/);
    }
    for (const method of ['GET', 'DELETE']) {
      const a = await httpRequest(`${origin}/api/mcp`, { method, headers: { ...mcpHeaders, authorization: `Bearer ${server.token}` } });
      expect(a.status, method).toBe(403);
    }
    await expect(connectHttp(server.mcpUrl, server.token, 'person-as-agent')).rejects.toThrow(/403|agent/);
    // No credential, or a wrong one: 401 with the challenge, and the message says what to send.
    const none = await post('/api/mcp', mcpHeaders, INITIALIZE);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="folio"');
    expect(JSON.parse(none.text).error.message).toMatch(/AGENT_TOKEN/);
  });

  it('the agent token from another origin is refused at /api/mcp, and so is the person from another origin on their routes', async () => {
    const foreign: Record<string, string>[] = [
      { origin: 'http://127.0.0.1:9' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of foreign) {
      const a = await post('/api/mcp', { ...mcpHeaders, ...agentBearer(), ...headers }, INITIALIZE);
      expect(a.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(a.text).error).toMatchObject({ code: 'permission_denied', reason: 'cross_origin' });
      const p = await post('/api/review_approve', { authorization: `Bearer ${server.token}`, ...headers }, { id: proposalId });
      expect(p.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(p.text).error).toMatchObject({ code: 'permission_denied', reason: 'cross_origin' });
    }
    await stillPending();
  });

  it("each principal on its own door: the agent's client works at /api/mcp, the person approves with the person's token", async () => {
    // How the person hands the agent its credential: .folio/serve.json (0600) and the MCP client config.
    const state = JSON.parse(readFileSync(join(ws, '.folio', 'serve.json'), 'utf8'));
    expect(state).toMatchObject({ url: server.url, mcp: server.mcpUrl, token: server.token, agent_token: server.agentToken });
    expect(server.agentToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(server.agentToken).not.toBe(server.token);
    expect(server.mcpClientConfig).toEqual({ type: 'http', url: server.mcpUrl, headers: { Authorization: `Bearer ${server.agentToken}` } });
    // Its own file, so the proposal the other tests attack stays pending whatever the order.
    writeFileSync(join(ws, 'own.txt'), 'one\n');
    const second = await connectHttp(server.mcpUrl, server.agentToken, 'second-agent');
    let id: string;
    try {
      expect((await second.call('read', { path: 'own.txt' })).body.content).toBe('one\n');
      const denied = await second.call('read', { path: '.env' });
      expect(denied.isError).toBe(true);
      expect(denied.text).not.toContain('hunter2');
      const proposed = await second.call('edit', { path: 'own.txt', edits: [{ old_text: 'one', new_text: 'two' }] });
      expect(proposed.body, proposed.text).toMatchObject({ applied: false, status: 'pending' });
      id = proposed.body.proposal_id;
    } finally {
      await second.close();
    }
    const approved = await post('/api/review_approve', { authorization: `Bearer ${server.token}` }, { id });
    expect(approved.status, approved.text).toBe(200);
    expect(readFileSync(join(ws, 'own.txt'), 'utf8')).toBe('two\n');
  });
});
