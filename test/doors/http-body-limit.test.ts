/** Request bodies over the limit are 413 too_large on every route of a real `folio serve` server, /api/mcp included. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../src-main/doors/http/serve.ts';
import { MAX_BODY_BYTES } from '../../src-main/doors/http/request-body.ts';
import { forgetStores } from '../../src-main/review/store.ts';
import { tempDir } from '../fixtures/generate.ts';
import { httpRequest, sendLargeBody } from './http-request.ts';

const tmp = tempDir();
let server: RunningServer;
let origin: string;
let auth: Record<string, string>;
let agentAuth: Record<string, string>;
const OVER = MAX_BODY_BYTES + (4 << 20);

beforeAll(async () => {
  const ws = tmp.path('ws');
  mkdirSync(ws);
  const renderer = tmp.path('renderer');
  mkdirSync(renderer);
  writeFileSync(`${renderer}/index.html`, '<!doctype html><title>t</title>');
  server = await serve({ port: 0, rendererDir: renderer, workspace: ws });
  origin = new URL(server.url).origin;
  auth = { authorization: `Bearer ${server.token}` };
  agentAuth = { authorization: `Bearer ${server.agentToken}` };
});
afterAll(async () => {
  await server?.close();
  forgetStores();
  tmp.cleanup();
});

function expectTooLarge(a: { status: number; text: string }): void {
  expect(a.status, a.text).toBe(413);
  expect(JSON.parse(a.text).error).toMatchObject({ code: 'too_large', maxBytes: MAX_BODY_BYTES });
}

describe('folio serve: one body limit on every route', () => {
  it('/api/mcp: a body over the limit is 413 too_large, announced by Content-Length or sent chunked', async () => {
    expectTooLarge(await sendLargeBody(`${origin}/api/mcp`, { headers: { ...agentAuth, accept: 'application/json, text/event-stream' }, bodyBytes: OVER }));
    expectTooLarge(
      await sendLargeBody(`${origin}/api/mcp`, { headers: { ...agentAuth, accept: 'application/json, text/event-stream' }, bodyBytes: OVER, chunked: true }),
    );
  });

  it('operations, the page and the event stream: 413 too_large too, and the server goes on answering', async () => {
    expectTooLarge(await sendLargeBody(`${origin}/api/file_info`, { headers: auth, bodyBytes: OVER, chunked: true }));
    expectTooLarge(await sendLargeBody(`${origin}/api/file_info`, { headers: auth, bodyBytes: OVER }));
    expectTooLarge(await sendLargeBody(`${origin}/`, { bodyBytes: OVER }));
    expectTooLarge(await sendLargeBody(`${origin}/api/events`, { method: 'GET', headers: auth, bodyBytes: OVER }));
    const after = await httpRequest(`${origin}/api/file_info`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"path":"nope.txt"}',
    });
    expect(after.status).toBe(404);
  });
});

describe('folio serve: the 413 reaches a client that is still sending', () => {
  it('the server lingers after the answer (reads and drops the rest) instead of resetting the connection under the unread body', async () => {
    const { hostname, port } = new URL(origin);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((ok, fail) => socket.once('connect', ok).once('error', fail));
    // Read nothing until the end, as a client busy sending does: what the server
    // answers waits in the kernel, and is lost if the server resets the connection.
    socket.pause();
    const errors: string[] = [];
    socket.on('error', (err: NodeJS.ErrnoException) => errors.push(err.code ?? err.message));
    const ended = new Promise<void>((ok) => socket.once('end', ok).once('close', () => ok()));
    let text = '';
    socket.write(
      `POST /api/file_info HTTP/1.1\r\nHost: ${new URL(origin).host}\r\nAuthorization: ${auth.authorization}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${OVER}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(1 << 20, 0x20);
    for (let i = 0; i < 8 && !socket.destroyed; i++) {
      socket.write(chunk);
      await sleep(40);
    }
    await sleep(300);
    socket.setEncoding('utf8').on('data', (c: string) => (text += c));
    socket.resume();
    await ended;
    socket.destroy();
    expect(text.split('\r\n')[0], `errors: ${errors.join(', ')}`).toBe('HTTP/1.1 413 Payload Too Large');
    expect(text).toMatch(/connection: close/i);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error).toMatchObject({ code: 'too_large' });
  });

  it('lingering is bounded: a client that never stops sending is cut off about 2 s after the 413', async () => {
    // allowHalfOpen: the client goes on sending after the server's FIN.
    const socket = connect({ port: Number(new URL(origin).port), host: new URL(origin).hostname, allowHalfOpen: true });
    await new Promise<void>((ok, fail) => socket.once('connect', ok).once('error', fail));
    socket.on('error', () => {});
    let text = '';
    socket.setEncoding('utf8').on('data', (c: string) => (text += c));
    const closed = new Promise<void>((ok) => socket.once('close', () => ok()));
    socket.write(`POST /api/file_info HTTP/1.1\r\nHost: ${new URL(origin).host}\r\nContent-Length: ${OVER * 64}\r\n\r\n`);
    const started = Date.now();
    const chunk = Buffer.alloc(256 << 10, 0x20);
    while (!socket.destroyed && Date.now() - started < 10_000) {
      socket.write(chunk);
      await sleep(20);
    }
    await closed;
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThan(1_500);
    expect(elapsed).toBeLessThan(8_000);
  });
});
