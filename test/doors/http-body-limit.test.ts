/** Request bodies over the limit are 413 too_large on every route of a real `folio serve` server, /api/mcp included. */
import { mkdirSync, writeFileSync } from 'node:fs';
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
    expectTooLarge(await sendLargeBody(`${origin}/api/mcp`, { headers: { ...auth, accept: 'application/json, text/event-stream' }, bodyBytes: OVER }));
    expectTooLarge(
      await sendLargeBody(`${origin}/api/mcp`, { headers: { ...auth, accept: 'application/json, text/event-stream' }, bodyBytes: OVER, chunked: true }),
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
