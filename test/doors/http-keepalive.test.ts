/**
 * A client that keeps its connection open between requests (browsers, Playwright's
 * request context, agents' HTTP clients) must not have it closed under it after a
 * few idle seconds: Node's default keep-alive timeout is 5 s, and a request sent on a
 * socket the server is closing that moment fails with ECONNRESET (seen in e2e while a
 * CLI call took longer than that). The server keeps idle connections for 65 s.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../src-main/doors/http/serve.ts';
import { forgetStores } from '../../src-main/review/store.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir();
let server: RunningServer;
let file: string;

beforeAll(async () => {
  const ws = tmp.path('ws');
  mkdirSync(ws);
  file = `${ws}/a.txt`;
  writeFileSync(file, 'one\ntwo\n');
  const renderer = tmp.path('renderer');
  mkdirSync(renderer);
  writeFileSync(`${renderer}/index.html`, '<!doctype html><title>t</title>');
  server = await serve({ port: 0, rendererDir: renderer, workspace: ws });
});
afterAll(async () => {
  await server?.close();
  forgetStores();
  tmp.cleanup();
});

/** Send one HTTP/1.1 request on `socket` and resolve with the status line of its answer, or reject when the socket closes first. */
function ask(socket: Socket, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const onData = (d: Buffer) => {
      got += d.toString('latin1');
      const head = got.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(got);
      if (head >= 0 && length && got.length >= head + 4 + Number(length[1])) {
        socket.off('data', onData).off('close', onClose);
        resolve(got.slice(0, got.indexOf('\r\n')));
      }
    };
    const onClose = () => reject(new Error(`the server closed the connection; got: ${JSON.stringify(got)}`));
    socket.on('data', onData).once('close', onClose);
    const { host } = new URL(server.url);
    socket.write(
      `POST /api/read HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n${body}`,
    );
  });
}

describe('folio serve keeps idle connections', () => {
  it('a second request on the same connection after 6 s idle is answered', { timeout: 20_000 }, async () => {
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    await new Promise((r) => socket.once('connect', r));
    try {
      const body = JSON.stringify({ path: file, mode: 'head', lines: 1 });
      expect(await ask(socket, body)).toBe('HTTP/1.1 200 OK');
      await new Promise((r) => setTimeout(r, 6_000));
      expect(await ask(socket, body)).toBe('HTTP/1.1 200 OK');
    } finally {
      socket.destroy();
    }
  });
});
