/**
 * `folio open FILE` with this workspace's server running but slow to answer (a loaded
 * machine): it must use that server, not start a second one over the same workspace
 * (which never exits and takes over .folio/serve.json). The "server" here is a plain
 * HTTP server in this process that answers its page only after 3 s; serve.json names
 * it, with this process's pid (alive).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { tempDir } from '../fixtures/generate.ts';

const BIN = join(process.cwd(), 'bin/folio.mjs');
const tmp = tempDir('folio-open-busy-');
afterAll(() => tmp.cleanup());

it('a running server that answers only after 3 s is used, not replaced by a second server', async () => {
  const ws = tmp.path('ws');
  mkdirSync(join(ws, '.folio'), { recursive: true });
  writeFileSync(join(ws, 'notes.txt'), 'hello\n');
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    if (req.method === 'GET') setTimeout(() => res.end('<!doctype html>'), 3000);
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"windows":1}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/?token=t0k`;
  writeFileSync(join(ws, '.folio', 'serve.json'), JSON.stringify({ url, pid: process.pid, token: 't0k' }));
  try {
    const child = spawn(process.execPath, [BIN, 'open', 'notes.txt'], { cwd: ws, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    // A second server never exits by itself: after a minute it is stopped and the test fails.
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(timer);
    expect(code, stderr).toBe(0);
    const printed = new URL(stdout.trim());
    expect(printed.origin + printed.pathname).toBe(new URL(url).origin + '/');
    expect(printed.searchParams.get('file')).toBe(join(ws, 'notes.txt'));
    expect(stderr).toBe('shown in 1 open Folio window\n');
    expect(asked).toEqual(['GET /?token=t0k', 'POST /api/app_open']);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
