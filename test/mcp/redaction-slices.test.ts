/**
 * Redaction decides on whole lines whatever slice an agent reads over MCP: exact
 * byte ranges and byte windows inside a value or a long line, a secret read in two
 * halves, hashline-prefixed cut lines; and an agent edit is refused by the same
 * whole-line decision.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetStores } from '../../src-main/review/index.ts';
import { connectStdio, type McpSession, type ToolAnswer } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';
import { leakOf, shownOf } from '../fixtures/leaks.ts';

const tmp = tempDir('folio-mcp-redact-slices-');
const ws = tmp.path('ws');
const file = join(ws, 'slices.conf');

const PW = 'Qm7vKz2RtY9pLw4XnB8s';
const TOK = 'Hc4Tg8JqW2mZr6VbN0yKs3Ld';
const KEY_BODY = 'MIIEpQIBAAKCAQEAs8nX5Jq2Wv9Rk3Lm7Tz1Yb4Hc6Ng0Pd8Fe2Ua5Io7Qs9Wr';
const CS = 'Vn3Bx8Kq1Lz5Mw7Pr9Ts2Yd';
const HEX = '9f8a7b6c5d4e3f2a1b0c9d8e7f6a';
const SECRETS = [PW, TOK, KEY_BODY, CS, HEX];
const TEXT = [
  '# service',
  `db_password = "${PW}"`,
  'region = eu-west-1',
  `${'x'.repeat(300)} api_token=${TOK} ${'y'.repeat(300)}`,
  '-----BEGIN RSA PRIVATE KEY-----',
  KEY_BODY,
  '-----END RSA PRIVATE KEY-----',
  `"client_secret": "${CS}",`,
  `x-api-key: ${HEX}`,
  'end',
  '',
].join('\n');

let mcp: McpSession;

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeFileSync(file, TEXT);
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache'), clientName: 'slice-agent' });
});
afterAll(async () => {
  await mcp?.close();
  forgetStores();
  tmp.cleanup();
});

const leakIn = (text: string): string | null => leakOf(text, SECRETS);

async function read(args: Record<string, unknown>): Promise<ToolAnswer> {
  const r = await mcp.call('read', { path: 'slices.conf', ...args });
  expect(r.isError, r.text).toBe(false);
  expect(leakIn(shownOf(r)), JSON.stringify(args)).toBeNull();
  return r;
}

describe('redaction of slices over MCP', () => {
  it('an exact byte range inside a secret value comes back as the placeholder', async () => {
    const at = TEXT.indexOf(PW) + 4;
    const r = await read({ start_byte: at, end_byte: at + 8 });
    expect(r.body.content).toBe('[REDACTED:secret_assignment]');
    expect(r.body.redactions).toBe(1);
  });

  it('a byte window starting inside a long line after its key name is masked', async () => {
    const r = await read({ start_byte: TEXT.indexOf(TOK) + 3, max_bytes: 10 });
    expect(r.body.line_cut).toBeDefined();
    expect(r.body.content).toBe('[REDACTED:secret_assignment]');
  });

  it('a secret read in two halves by two exact reads shows neither half; the key name stays', async () => {
    const lineStart = TEXT.indexOf('db_password');
    const mid = TEXT.indexOf(PW) + 10;
    const first = await read({ start_byte: lineStart, end_byte: mid });
    expect(first.body.content).toBe('db_password = [REDACTED:secret_assignment]');
    const second = await read({ start_byte: mid, end_byte: TEXT.indexOf('\n', mid) + 1 });
    expect(second.body.content).toBe('[REDACTED:secret_assignment]\n');
  });

  it('walking a long line in small windows (plain and hashline-prefixed) never shows the token', async () => {
    for (const hashlines of [false, true]) {
      let at = TEXT.indexOf('xxx');
      const end = TEXT.indexOf('\n', at);
      let joined = '';
      while (at < end) {
        const r = await read({ start_byte: at, max_bytes: 64, hashlines });
        joined += r.body.content;
        if (r.body.next_start_byte === null || r.body.next_start_byte === undefined) break;
        at = r.body.next_start_byte;
      }
      expect(joined).toContain('[REDACTED:secret_assignment]');
      expect(joined).toContain('yyy');
      expect(leakIn(joined)).toBeNull();
    }
  });

  it('a slice of a private key body line (markers outside it) is masked', async () => {
    const at = TEXT.indexOf(KEY_BODY) + 10;
    const r = await read({ start_byte: at, end_byte: at + 20 });
    expect(r.body.content).toBe('[REDACTED:private_key]');
  });

  it('JSON-quoted names and a key-like name with a random value are redacted in reads', async () => {
    const r = await read({ ranges: [{ start: 8, end: 9 }] });
    expect(r.body.content).toBe('"client_secret": [REDACTED:secret_assignment],\nx-api-key: [REDACTED:secret_assignment]\n');
  });

  it('the upsert refusal uses the same whole-line decision (JSON-quoted name, x-api-key line)', async () => {
    for (const line of [8, 9]) {
      const r = await mcp.call('upsert', { path: 'slices.conf', target: { replace: { start: line, end: line } }, content: 'x\n', if_match: 'x' });
      expect(r.isError, r.text).toBe(true);
      expect(r.body.error.code).toBe('redacted');
      expect(r.body.error.lines).toEqual([line]);
    }
    expect(readFileSync(file, 'utf8')).toBe(TEXT);
  });

  it('the audit log of these calls holds no part of a secret', () => {
    const audit = readFileSync(join(ws, '.folio/audit.jsonl'), 'utf8');
    expect(audit.trim().split('\n').length).toBeGreaterThan(5);
    expect(leakIn(audit)).toBeNull();
  });
});
