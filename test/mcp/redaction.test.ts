/** Secrets in files are redacted in what agents get over MCP, never in what people see; agents cannot edit redacted lines. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetStores } from '../../src-main/review/index.ts';
import { BIN, connectStdio, type McpSession, type ToolAnswer } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-redact-');
const cacheDir = tmp.path('cache');
const ws = tmp.path('ws');
const file = join(ws, 'deploy.conf');

const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const PASSWORD = 'hunter2-correct-horse';
const KEY_BODY = ['MIIEowIBAAKCAQEA7bq3xUuH4QmUNcHdSNmkZt5Z0d5mU0vRLp3m1r9xJ2q8', 'c3ZyZWN0LWtleS1tYXRlcmlhbC1ub3QtZm9yLWFnZW50cy0wMTIzNDU2Nzg5'];
const SECRETS = [AWS_KEY, PASSWORD, ...KEY_BODY];
// Lines: 1 header, 2 AWS key, 3 password, 4 plain, 5-8 private key block, 9 plain.
const TEXT = [
  '# deploy settings',
  `aws_key_id: ${AWS_KEY}`,
  `password = "${PASSWORD}"`,
  'region = eu-west-1',
  '-----BEGIN RSA PRIVATE KEY-----',
  ...KEY_BODY,
  '-----END RSA PRIVATE KEY-----',
  'replicas = 3',
  '',
].join('\n');

let mcp: McpSession;
let autoMcp: McpSession;

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeFileSync(file, TEXT);
  [mcp, autoMcp] = await Promise.all([connectStdio(ws, { cacheDir }), connectStdio(ws, { cacheDir, flags: ['--review', 'auto'], clientName: 'auto-agent' })]);
});
afterAll(async () => {
  await Promise.all([mcp?.close(), autoMcp?.close()]);
  forgetStores();
  tmp.cleanup();
});

function expectNoSecret(r: ToolAnswer): void {
  for (const s of SECRETS) expect(r.text).not.toContain(s);
}

async function anchorsOf(lines: number[]): Promise<string[]> {
  const r = await mcp.call('read', { path: 'deploy.conf', ranges: lines.map((l) => ({ start: l, end: l })), hashlines: true });
  const text: string = r.body.ranges ? r.body.ranges.map((x: { content: string }) => x.content).join('') : r.body.content;
  return [...text.matchAll(/^(\d+#[0-9a-f]{3})\|/gm)].map((m: RegExpMatchArray) => m[1]!);
}

describe('redaction over MCP', () => {
  it('read replaces the AWS key, the password and the private key block with [REDACTED:kind] and counts them', async () => {
    const r = await mcp.call('read', { path: 'deploy.conf', full: true });
    expect(r.isError, r.text).toBe(false);
    expect(r.body.content).toContain('[REDACTED:aws_access_key]');
    expect(r.body.content).toContain('password = [REDACTED:secret_assignment]');
    expect(r.body.content).toContain('[REDACTED:private_key]');
    expect(r.body.content).toContain('region = eu-west-1\n');
    expect(r.body.redactions).toBeGreaterThanOrEqual(3);
    expectNoSecret(r);
  });

  it('every read mode is redacted: ranges (each range too), byte window, exact bytes, page, head, tail, hashlines', async () => {
    const reads = [
      {
        ranges: [
          { start: 1, end: 3 },
          { start: 5, end: 9 },
        ],
      },
      { start_byte: 0, max_bytes: 4096 },
      { start_byte: 0, end_byte: TEXT.length },
      { page: 1 },
      { head: 9 },
      { tail: 9 },
      { ranges: [{ start: 1, end: 9 }], hashlines: true },
    ];
    for (const args of reads) {
      const r = await mcp.call('read', { path: 'deploy.conf', ...args });
      expect(r.isError, r.text).toBe(false);
      expect(r.body.redactions, JSON.stringify(args)).toBeGreaterThanOrEqual(3);
      expectNoSecret(r);
    }
  });

  it('a window holding only the body lines of a private key block is redacted too', async () => {
    const r = await mcp.call('read', { path: 'deploy.conf', ranges: [{ start: 6, end: 7 }] });
    expect(r.isError, r.text).toBe(false);
    expectNoSecret(r);
    // Also as one of several ranges (their texts are each in ranges[i].content).
    const several = await mcp.call('read', {
      path: 'deploy.conf',
      ranges: [
        { start: 1, end: 1 },
        { start: 6, end: 7 },
      ],
    });
    expect(several.isError, several.text).toBe(false);
    expect(several.body.ranges).toHaveLength(2);
    expectNoSecret(several);
  });

  it('search results are redacted (matched text and count of redactions)', async () => {
    // The key names match; the AWS key's own text (AKIA…) no longer does: it is hidden (see redaction-oracle.test.ts).
    const r = await mcp.call('search', { path: 'deploy.conf', pattern: 'aws_key_id|password' });
    expect(r.isError, r.text).toBe(false);
    expect(r.body.matches.map((m: { line: number }) => m.line)).toEqual([2, 3]);
    expect(r.body.matches[0].text).toContain('[REDACTED:aws_access_key]');
    expect(r.body.matches[1].text).toBe('password = [REDACTED:secret_assignment]');
    expect(r.body.redactions).toBe(2);
    expectNoSecret(r);
  });

  it('searching for private key material does not return it', async () => {
    const r = await mcp.call('search', { path: 'deploy.conf', pattern: '^[A-Za-z0-9+/]{40,}$' });
    expectNoSecret(r);
  });

  it('an upsert whose target lines or anchors cover a redacted line is refused with code redacted; the file is unchanged', async () => {
    const attempts = [
      { target: { replace: { start: 3, end: 3 } }, content: 'password = "new"', if_match: 'x' },
      { target: { replace: { start: 1, end: 4 } }, content: 'a\n', anchors: await anchorsOf([1, 4]) },
      { target: { delete: { start: 5, end: 8 } }, anchors: await anchorsOf([5]) },
      { target: { insert: { at: 3 } }, content: 'note\n', anchors: await anchorsOf([2]) },
      // A plain line and the secret line after it: one merged range, checked line by line.
      { target: { replace: { start: 1, end: 2 } }, content: 'a\n', anchors: await anchorsOf([1, 2]) },
      // A body line of the key block with an anchor far from it: two ranges, the key block found from their text.
      { target: { replace: { start: 6, end: 6 } }, content: 'x\n', anchors: await anchorsOf([1, 6]) },
    ];
    for (const session of [mcp, autoMcp]) {
      for (const a of attempts) {
        const r = await session.call('upsert', { path: 'deploy.conf', ...a });
        expect(r.isError, JSON.stringify(a)).toBe(true);
        expect(r.body.error.code).toBe('redacted');
        expect(r.body.error.lines.length).toBeGreaterThan(0);
      }
    }
    expect(readFileSync(file, 'utf8')).toBe(TEXT);
  });

  it('an edit of plain lines next to secrets is allowed (auto: applied), and keeps the secrets intact', async () => {
    const r = await autoMcp.call('upsert', {
      path: 'deploy.conf',
      target: { replace: { start: 9, end: 9 } },
      content: 'replicas = 4',
      anchors: await anchorsOf([9]),
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.body.applied).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(TEXT.replace('replicas = 3', 'replicas = 4'));
  });

  it('the preview of an edit next to secret lines (proposal and dry run) is redacted', async () => {
    const anchors = await anchorsOf([4]);
    const proposal = await mcp.call('upsert', { path: 'deploy.conf', target: { replace: { start: 4, end: 4 } }, content: 'region = eu-west-2', anchors });
    expect(proposal.isError, proposal.text).toBe(false);
    expect(proposal.body.preview).toContain('+region = eu-west-2');
    expectNoSecret(proposal);
    const dry = await mcp.call('upsert', {
      path: 'deploy.conf',
      target: { replace: { start: 4, end: 4 } },
      content: 'region = eu-west-2',
      anchors,
      dry_run: true,
    });
    expectNoSecret(dry);
  });

  it('a byte-unit target covering a redacted line is refused too', async () => {
    const start = TEXT.indexOf('password');
    const end = TEXT.indexOf('\n', start);
    const r = await mcp.call('upsert', {
      path: 'deploy.conf',
      target: { replace: { start, end, units: 'bytes' } },
      content: 'password = "x"',
      if_match: (await mcp.call('read', { path: 'deploy.conf', head: 1 })).body.version.etag,
    });
    expect(r.isError, r.text).toBe(true);
    expect(r.body.error.code).toBe('redacted');
  });

  it('the human CLI `folio read` shows the real text', () => {
    const r = spawnSync(process.execPath, [BIN, 'read', file, '--full'], { encoding: 'utf8', env: { ...process.env, FOLIO_CACHE_DIR: cacheDir } });
    expect(r.status, r.stderr).toBe(0);
    for (const s of SECRETS) expect(r.stdout).toContain(s);
    expect(r.stdout).not.toContain('[REDACTED');
  });
});
