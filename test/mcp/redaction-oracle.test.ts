/**
 * Search is no oracle for secrets over MCP: patterns are matched against the
 * REDACTED text of each line, so growing a regex one character at a time past a
 * key name tells nothing (listing or count_only), and a cut matched line is masked
 * by the whole line's secrets.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetStores } from '../../src-main/review/index.ts';
import { connectStdio, type McpSession, type ToolAnswer } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';
import { leakOf } from '../fixtures/leaks.ts';

const tmp = tempDir('folio-mcp-redact-oracle-');
const ws = tmp.path('ws');

const PW = 'Zq8vLr2pWx7kTn4mQ3';
const TOK = 'AbC123xyz789QwE456Rt';
const S2 = 'Ke7Jd2Wq9Lp4Xs1Nv6';
const SECRETS = [PW, TOK, S2];
// Lines: 1 header, 2 password, 3 token, 4 secret with a trailing comment, 5 plain.
const TEXT = ['# creds', `password = "${PW}"`, `db_token: ${TOK}`, `api_secret = "${S2}" # rotated-monthly`, 'plain = hello', ''].join('\n');

let mcp: McpSession;

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'oracle.conf'), TEXT);
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache'), clientName: 'oracle-agent' });
});
afterAll(async () => {
  await mcp?.close();
  forgetStores();
  tmp.cleanup();
});

const leakIn = (text: string): string | null => leakOf(text, SECRETS);

async function search(args: Record<string, unknown>): Promise<ToolAnswer> {
  const r = await mcp.call('search', { path: 'oracle.conf', ...args });
  expect(r.isError, r.text).toBe(false);
  expect(leakIn(JSON.stringify(r.body, (k, v) => (k === 'version' ? undefined : v)))).toBeNull();
  return r;
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('search is no oracle for secrets', () => {
  it('a pattern grown one character at a time past a key name answers the same for right and wrong guesses', async () => {
    for (let k = 1; k <= 4; k++) {
      for (const [name, value] of [
        ['password = "', PW],
        ['db_token: ', TOK],
      ] as const) {
        for (const guess of [value.slice(0, k), value.slice(0, k - 1) + '#']) {
          const pattern = `^${escaped(name + guess)}`;
          const listed = await search({ pattern });
          expect(listed.body.matches, pattern).toEqual([]);
          expect(listed.body.count, pattern).toBe(0);
          const counted = await search({ pattern, count_only: true });
          expect(counted.body.count, pattern).toBe(0);
        }
      }
    }
  });

  it('a match that exists only inside a secret value is neither listed nor counted', async () => {
    const inside = escaped(PW.slice(2, 8));
    expect((await search({ pattern: inside })).body.matches).toEqual([]);
    expect((await search({ pattern: inside, count_only: true })).body.count).toBe(0);
    const mixed = await search({ pattern: `hello|${inside}|${escaped(TOK.slice(3, 9))}` });
    expect(mixed.body.matches.map((m: { line: number }) => m.line)).toEqual([5]);
    expect(mixed.body.count).toBe(1);
  });

  it('lines with secrets still match on their visible text, shown redacted and counted', async () => {
    const r = await search({ pattern: 'password|db_token|plain' });
    expect(r.body.matches.map((m: { line: number; text: string }) => [m.line, m.text])).toEqual([
      [2, 'password = [REDACTED:secret_assignment]'],
      [3, 'db_token: [REDACTED:secret_assignment]'],
      [5, 'plain = hello'],
    ]);
    expect((await search({ pattern: 'password|db_token|plain', count_only: true })).body.count).toBe(3);
  });

  it('a small max_line_chars that cuts the key name off still masks the value', async () => {
    const r = await search({ pattern: 'rotated-monthly', max_line_chars: 30 });
    expect(r.body.matches).toHaveLength(1);
    expect(r.body.matches[0].text_truncated).toBe(true);
    expect(r.body.matches[0].text).toBe('[REDACTED:secret_assignment] # rotated-monthly');
  });

  it('a match position never points inside a secret', async () => {
    const r = await search({ pattern: `${escaped(S2.slice(-2))}|rotated` });
    expect(r.body.matches).toHaveLength(1);
    const col = r.body.matches[0].column;
    const line = TEXT.split('\n')[3]!;
    expect(col === 1 || col - 1 >= line.indexOf(S2) + S2.length).toBe(true);
  });

  it('the audit log of these calls holds no part of a secret', () => {
    expect(leakIn(readFileSync(join(ws, '.folio/audit.jsonl'), 'utf8'))).toBeNull();
  });
});
