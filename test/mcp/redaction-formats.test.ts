/**
 * Secrets in the shapes files hold them, redacted over MCP: JSON keys (full reads,
 * JSONPath values, JSON Lines), Authorization headers and prefix-less tokens named
 * by their context, random values after key-like names (the entropy rule), and
 * headings named in an error's details.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetStores } from '../../src-main/review/index.ts';
import { connectStdio, type McpSession, type ToolAnswer } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';
import { leakOf, shownOf } from '../fixtures/leaks.ts';

const tmp = tempDir('folio-mcp-redact-formats-');
const ws = tmp.path('ws');

const JSON_SECRETS = {
  password: 'Pw5Gh8Jk2Lm4Nb6Vc',
  secret_access_key: 'wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY',
  api_key: 'Ak9Df3Gh7Jk1Lm5Np',
  token: 'Tk2Mn8Bv4Cx6Zq0Wr',
  client_secret: 'Cs7Rt3Yu9Io1Pa5Sd',
};
const CONFIG = {
  db: { host: 'db.local', password: JSON_SECRETS.password },
  aws: { secret_access_key: JSON_SECRETS.secret_access_key },
  api_key: JSON_SECRETS.api_key,
  token: JSON_SECRETS.token,
  client_secret: JSON_SECRETS.client_secret,
  name: 'demo',
};
const JSONL_TOKEN = 'Ev4Tq8Wz2Xc6Vb0Nm3';
const JSONL_SESSION = 'Se9Kd3Lf7Hg1Jj5Qp2x';
const BASIC = 'dXNlcjpIdW50ZXIyUGFzcw==';
const SHORT_BEARER = 'Sh0rtTkn9';
const BARE_TOKEN = 'Rq7Lm2Xz9Wc4Vb8Nk1';
const HEX_KEY = '9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c';
const SESSION = 'Xk29fLq83nVb0aZt71Yw';
const HEADING_TOKEN = 'Hd7Kq2Wm9Xz4Lp1Vb';
const SECRETS = [...Object.values(JSON_SECRETS), JSONL_TOKEN, JSONL_SESSION, BASIC, SHORT_BEARER, BARE_TOKEN, HEX_KEY, SESSION, HEADING_TOKEN];

const HEADERS = [
  `Authorization: Basic ${BASIC}`,
  `Authorization: Bearer ${SHORT_BEARER}`,
  `callback?token=${BARE_TOKEN}&x=1`,
  `x-api-key: ${HEX_KEY}`,
  `SESSION=${SESSION}`,
  'session_timeout = 3600',
  'sha256_of_build = release-2024-01',
  '',
].join('\n');

let mcp: McpSession;

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'config.json'), JSON.stringify(CONFIG, null, 2) + '\n');
  writeFileSync(join(ws, 'events.jsonl'), `{"user":"ann","token":"${JSONL_TOKEN}"}\n{"user":"bob","session":"${JSONL_SESSION}"}\n`);
  writeFileSync(join(ws, 'headers.txt'), HEADERS);
  writeFileSync(join(ws, 'notes.md'), `# Guide\n\n## Deploy token=${HEADING_TOKEN}\n\n### Steps\n\na\n\n### Steps\n\nb\n`);
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache'), clientName: 'formats-agent' });
});
afterAll(async () => {
  await mcp?.close();
  forgetStores();
  tmp.cleanup();
});

const leakIn = (text: string): string | null => leakOf(text, SECRETS);

async function read(args: Record<string, unknown>): Promise<ToolAnswer> {
  const r = await mcp.call('read', args);
  expect(r.isError, r.text).toBe(false);
  expect(leakIn(shownOf(r)), JSON.stringify(args)).toBeNull();
  return r;
}

describe('redaction of secrets by format over MCP', () => {
  it('JSON keys (password, secret_access_key, api_key, token, client_secret) are redacted in a full read', async () => {
    const r = await read({ path: 'config.json', full: true });
    expect(r.body.content).toContain('"password": [REDACTED:secret_assignment]');
    expect(r.body.content).toContain('"host": "db.local"');
    expect(r.body.redactions).toBe(5);
  });

  it('JSONPath values are redacted: a secret scalar, and an object holding one', async () => {
    const one = await read({ path: 'config.json', json_path: '$.db.password' });
    expect(one.body.json.matches).toHaveLength(1);
    expect(one.body.json.matches[0].value).toMatch(/^\[REDACTED:/);
    const obj = await read({ path: 'config.json', json_path: '$.db' });
    expect(obj.body.json.matches[0].value).toEqual({ host: 'db.local', password: expect.stringMatching(/^\[REDACTED:/) });
    for (const p of ['$.aws.secret_access_key', '$.api_key', '$.token', '$.client_secret', '$..*']) await read({ path: 'config.json', json_path: p });
  });

  it('JSON Lines: full reads and JSONPath inside a line are redacted', async () => {
    const full = await read({ path: 'events.jsonl', full: true });
    expect(full.body.content).toContain('"user":"ann"');
    await read({ path: 'events.jsonl', json_path: '$.token', jsonl_line: 1 });
    await read({ path: 'events.jsonl', json_path: '$', jsonl_line: 2 });
  });

  it('Authorization (Basic, short Bearer), token= without a prefix, and random values after key-like names are redacted', async () => {
    const r = await read({ path: 'headers.txt', full: true });
    expect(r.body.content.split('\n').slice(0, 5)).toEqual([
      'Authorization: Basic [REDACTED:authorization]',
      'Authorization: Bearer [REDACTED:authorization]',
      'callback?token=[REDACTED:secret_assignment]&x=1',
      'x-api-key: [REDACTED:secret_assignment]',
      'SESSION=[REDACTED:high_entropy]',
    ]);
    // The entropy rule leaves short or word-like values alone.
    expect(r.body.content).toContain('session_timeout = 3600\nsha256_of_build = release-2024-01\n');
  });

  it('headings named in an error (not_found and ambiguous candidates of a section read) are redacted', async () => {
    const r = await mcp.call('read', { path: 'notes.md', section: 'Deploy' });
    expect(r.isError).toBe(true);
    expect(r.body.error.code).toBe('not_found');
    expect(JSON.stringify(r.body.error.candidates)).toContain('[REDACTED:');
    expect(leakIn(r.text)).toBeNull();
    // Two "Steps" under that heading: the ambiguous candidates' paths name it.
    const amb = await mcp.call('read', { path: 'notes.md', section: 'Steps' });
    expect(amb.isError).toBe(true);
    expect(amb.body.error.code).toBe('ambiguous');
    expect(amb.body.error.candidates).toHaveLength(2);
    expect(leakIn(amb.text)).toBeNull();
  });

  it('the audit log of these calls holds no part of a secret', () => {
    expect(leakIn(readFileSync(join(ws, '.folio/audit.jsonl'), 'utf8'))).toBeNull();
  });
});
