/**
 * Redaction runs an agent's pattern a second time, over the redacted text of each
 * matched line that holds a secret (api/agent/redact-search.ts). The engine's own
 * search runs in workers under the search budget; this second run is on the
 * server's thread, so it is bounded on its own: a pattern that matches the real
 * line at once (on the secret) but backtracks without end on the redacted one
 * answers `timeout`, and the server goes on answering.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-redact-bounded-');
const ws = tmp.path('ws');
const PW = 'Zq8vLr2pWx7kTn4mQ3';
// Line 2 holds the secret, then a run of a's that `(a+)+\1b` backtracks over for hours.
const TEXT = ['# creds', `password = "${PW}" ${'a'.repeat(44)}`, 'plain = aaab', ''].join('\n');

let mcp: McpSession;

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'creds.conf'), TEXT);
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache'), clientName: 'bounded-redact-agent' });
});
afterAll(async () => {
  await mcp?.close();
  tmp.cleanup();
});

describe('the redacted re-match of a search is bounded too', () => {
  it('a pattern that matches the secret at once but backtracks forever on the redacted line answers timeout, and the server answers after it', async () => {
    // Before the bound this call did not answer within the test's limit (2^44 backtracking steps on the server's thread).
    const r = await mcp.call('search', { path: 'creds.conf', pattern: String.raw`Zq8vLr2p|(a+)+\1b` });
    expect(r.isError, r.text).toBe(true);
    expect(r.body.error?.code ?? r.body.code).toBe('timeout');
    expect(r.text).not.toContain(PW);
    const info = await mcp.call('file_info', { path: 'creds.conf' });
    expect(info.isError, info.text).toBe(false);
  });

  it('a linear-time pattern still lists visible matches and drops a match that is only inside the secret', async () => {
    const r = await mcp.call('search', { path: 'creds.conf', pattern: 'Zq8vLr2p|aaab' });
    expect(r.isError, r.text).toBe(false);
    expect(r.body.matches.map((m: { line: number }) => m.line)).toEqual([3]);
    expect(r.text).not.toContain(PW);
  });
});
