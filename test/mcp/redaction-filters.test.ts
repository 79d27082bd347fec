/**
 * JSONPath filters, URL credentials and secret file names through `folio mcp` with
 * the real SDK client:
 * - a filter that may test a hidden value (search, match, ==, length, count) answers
 *   the same typed refusal for a right and a wrong guess; a filter over a part of
 *   the document without secrets, and a query without filters, are answered;
 * - the password of a URL (`postgres://user:password@host`) is hidden in reads,
 *   JSONPath answers, file and directory search, the rest of the URL stays;
 * - `.envrc` and case variants of the denied names (`.ENV`, `KEY.PEM`, `ID_RSA`) are
 *   denied on a case-sensitive disk.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetStores } from '../../src-main/review/index.ts';
import { connectStdio, type McpSession, type ToolAnswer } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';
import { leakOf, shownOf } from '../fixtures/leaks.ts';

const tmp = tempDir('folio-mcp-redact-filters-');
const ws = tmp.path('ws');

const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const PG_PW = 'Pg5ecretPassw0rd';
const GIT_TOKEN = 'tok9x8y7z6w5v4';
const AWS = {
  user: 'deploy',
  aws: { access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key: AWS_SECRET },
  items: [
    { name: 'a', price: 1 },
    { name: 'b', price: 20 },
  ],
};
const URLS = [
  '# services',
  `database_url: postgres://app:${PG_PW}@db.internal:5432/app`,
  `mirror = https://bob:${GIT_TOKEN}@git.example.com/repo.git`,
  'docs: https://example.com/a:b/c',
  '',
].join('\n');
const SECRET_FILES = ['.envrc', '.ENV', '.Env.local', 'KEY.PEM', 'conf/ID_RSA', 'conf/Server.Key'];

let mcp: McpSession;

beforeAll(async () => {
  mkdirSync(join(ws, 'conf'), { recursive: true });
  writeFileSync(join(ws, 'aws.json'), JSON.stringify(AWS, null, 2) + '\n');
  writeFileSync(join(ws, 'services.yaml'), URLS);
  writeFileSync(join(ws, 'urls.json'), JSON.stringify({ db: { url: `postgres://app:${PG_PW}@db.internal/app` } }, null, 2));
  for (const f of SECRET_FILES) writeFileSync(join(ws, f), `export TOKEN=${GIT_TOKEN}\n`);
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache'), clientName: 'filter-agent' });
});
afterAll(async () => {
  await mcp?.close();
  forgetStores();
  tmp.cleanup();
});

const noLeak = (r: ToolAnswer) => expect(leakOf(shownOf(r), [AWS_SECRET, PG_PW, GIT_TOKEN]), r.text).toBeNull();
const quoted = (s: string) => JSON.stringify(s);

describe('JSONPath filters are no oracle', () => {
  it('right and wrong guesses through search, match, ==, length and count answer the same refusal', async () => {
    const guesses: [string, (g: string) => string][] = [
      ['search', (g) => `$[?search(@.secret_access_key, ${quoted('^' + g)})]`],
      ['search under aws', (g) => `$.aws[?search(@, ${quoted('^' + g)})]`],
      ['match', (g) => `$.aws[?match(@, ${quoted(g + '.*')})]`],
      ['==', (g) => `$..[?@ == ${quoted(g)}]`],
      ['== member', (g) => `$[?@.secret_access_key == ${quoted(g)}]`],
      ['length', (g) => `$.aws[?length(@) == ${g.length}]`],
      ['count', (g) => `$[?count(@.*) == ${g.length}]`],
      ['absolute', (g) => `$.items[?$.aws.secret_access_key == ${quoted(g)}]`],
    ];
    let attempts = 0;
    const differ: string[] = [];
    for (const [name, queryOf] of guesses) {
      for (const k of [1, 2, 5, 13, AWS_SECRET.length]) {
        const right = AWS_SECRET.slice(0, k);
        const wrong = right.slice(0, -1) + (right.endsWith('x') ? 'y' : 'x');
        const answers = [];
        for (const g of [right, wrong]) {
          const r = await mcp.call('read', { path: 'aws.json', json_path: queryOf(g) });
          attempts++;
          // The query echoed back is the agent's own guess: what else the answer holds must not leak.
          expect(leakOf(shownOf(r).replaceAll(g, '<guess>'), [AWS_SECRET]), r.text).toBeNull();
          expect(r.isError, `${name}: ${r.text}`).toBe(true);
          expect(r.body.error.code).toBe('redacted');
          // Everything but the echo of the query (the agent's own text) must be the same.
          const { json_path: asked, ...rest } = r.body.error;
          answers.push(JSON.stringify({ ...rest, message: rest.message.replace(asked, 'Q') }));
        }
        if (answers[0] !== answers[1]) differ.push(`${name} k=${k}\n${answers[0]}\n${answers[1]}`);
      }
    }
    console.log(`filters: ${attempts} attempts, ${differ.length} answers that differ between a right and a wrong guess`);
    expect(differ).toEqual([]);
  });

  it('a json edit addressed by a filter that tests a secret is refused the same way', async () => {
    const { etag } = (await mcp.call('file_info', { path: 'aws.json' })).body.version;
    for (const g of [AWS_SECRET.slice(0, 4), 'zzzz']) {
      const r = await mcp.call('upsert', {
        path: 'aws.json',
        if_match: etag,
        target: { json: { path: `$[?search(@.secret_access_key, ${quoted('^' + g)})].user`, op: 'set', value: '"x"' } },
      });
      expect(r.body.error.code, r.text).toBe('redacted');
    }
  });

  it('a filter over a part without secrets, and queries without filters, are answered', async () => {
    const cheap = await mcp.call('read', { path: 'aws.json', json_path: '$.items[?@.price > 10].name' });
    expect(cheap.isError, cheap.text).toBe(false);
    expect(cheap.body.json.matches.map((m: { value: unknown }) => m.value)).toEqual(['b']);
    const all = await mcp.call('read', { path: 'aws.json', json_path: '$.aws.*' });
    expect(all.isError, all.text).toBe(false);
    noLeak(all);
    expect(all.body.json.matches).toHaveLength(2);
  });
});

describe('credentials inside URLs', () => {
  it('a full read hides the password and keeps scheme, user and host', async () => {
    const r = await mcp.call('read', { path: 'services.yaml', full: true });
    noLeak(r);
    expect(r.body.content).toContain('database_url: postgres://app:[REDACTED:url_credentials]@db.internal:5432/app');
    expect(r.body.content).toContain('mirror = https://bob:[REDACTED:url_credentials]@git.example.com/repo.git');
    expect(r.body.content).toContain('docs: https://example.com/a:b/c');
  });

  it('a JSONPath answer hides it in text and value', async () => {
    const r = await mcp.call('read', { path: 'urls.json', json_path: '$.db.url' });
    noLeak(r);
    expect(r.body.json.matches[0].text).toBe('"postgres://app:[REDACTED:url_credentials]@db.internal/app"');
    // A scalar whose text was masked is hidden whole in `value` (redact.ts).
    expect(r.body.json.matches[0].value).toBe('[REDACTED:json_value]');
  });

  it('file and directory search neither show nor match it', async () => {
    const shown = await mcp.call('search', { path: 'services.yaml', pattern: 'db.internal' });
    noLeak(shown);
    expect(shown.body.matches.map((m: { line: number }) => m.line)).toEqual([2]);
    const guess = await mcp.call('search', { path: 'services.yaml', pattern: `app:${PG_PW.slice(0, 4)}` });
    expect(guess.body.count).toBe(0);
    const tree = await mcp.call('search', { path: '.', pattern: 'postgres://' });
    noLeak(tree);
    expect(tree.text).toContain('[REDACTED:url_credentials]');
  });
});

describe('secret file names', () => {
  it('.envrc and case variants of denied names are denied on a case-sensitive disk', async () => {
    for (const f of SECRET_FILES) {
      const r = await mcp.call('read', { path: f, full: true });
      expect([f, r.body.error?.code]).toEqual([f, 'permission_denied']);
      noLeak(r);
    }
    const tree = await mcp.call('search', { path: '.', pattern: 'TOKEN' });
    noLeak(tree);
    const list = await mcp.call('list', { path: '.', recursive: true });
    for (const f of SECRET_FILES) expect(list.text).not.toContain(f.split('/').pop());
  });
});
