/**
 * A JSON file past the 32 MiB in-memory cap (streamed) through `folio mcp` with the
 * real SDK client: an agent reads it by JSONPath and edits it by a JSON target, and
 * its filters are no oracle for the secrets in it, as for a file parsed whole
 * (redaction-filters.test.ts):
 * - a filter over a part without secrets is answered with the values Python finds;
 * - a filter whose scope holds a secret value, or an array under a secret-looking
 *   name (items a key hides sit on lines without the name), is refused with the
 *   same answer for a right and a wrong guess;
 * - answers hide secret values; a JSON edit is proposed with the diff of its value,
 *   under its precondition.
 */
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetStores } from '../../src-main/review/index.ts';
import { connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';
import { leakOf, shownOf } from '../fixtures/leaks.ts';

const tmp = tempDir('folio-mcp-json-large-');
const ws = tmp.path('ws');
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const TOKEN = 'Qm8zT4kL2pX9vR6wY3nB7cD1';
const ITEMS = 150_000;
/** Each item carries this much text, so few items pass the cap (a filter builds every item it tests). */
const FILLER = 'f'.repeat(180);
let mcp: McpSession;

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  const fd = openSync(join(ws, 'big.json'), 'w');
  writeSync(
    fd,
    `{\n  "aws": {\n    "user": "deploy",\n    "secret_access_key": "${AWS_SECRET}"\n  },\n  "config": {\n    "tokens": [\n      "${TOKEN}"\n    ],\n    "retries": 3\n  },\n  "items": [\n`,
  );
  let chunk: string[] = [];
  for (let i = 0; i < ITEMS; i++) {
    chunk.push(`    {"name": "item-${i}", "price": ${(i * 37) % 1000}, "tags": ["x", "y"], "text": "${FILLER}"}${i < ITEMS - 1 ? ',' : ''}`);
    if (chunk.length === 10_000) {
      writeSync(fd, chunk.join('\n') + '\n');
      chunk = [];
    }
  }
  if (chunk.length) writeSync(fd, chunk.join('\n') + '\n');
  writeSync(fd, '  ]\n}\n');
  closeSync(fd);
  mcp = await connectStdio(ws, { cacheDir: tmp.path('cache'), clientName: 'json-large-agent' });
});
afterAll(async () => {
  await mcp?.close();
  forgetStores();
  tmp.cleanup();
});

const noLeak = (r: { text: string; body: unknown }) => expect(leakOf(shownOf(r as never), [AWS_SECRET, TOKEN]), r.text).toBeNull();

describe('a streamed JSON file through the agent door', () => {
  it('is past the cap', () => {
    expect(readFileSync(join(ws, 'big.json')).length).toBeGreaterThan(32 * 1024 * 1024);
  });

  it('answers a filter over a part without secrets, and hides secrets in answers', async () => {
    const r = await mcp.call('read', { path: 'big.json', json_path: '$.items[?@.price == 999].name' });
    expect(r.isError, r.text).toBe(false);
    const want = Array.from({ length: ITEMS }, (_, i) => i)
      .filter((i) => (i * 37) % 1000 === 999)
      .map((i) => `item-${i}`);
    expect(r.body.json.matches.map((m: { value: unknown }) => m.value)).toEqual(want);
    expect(r.body.notes.join(' ')).toMatch(/streamed/);
    const aws = await mcp.call('read', { path: 'big.json', json_path: '$.aws' });
    expect(aws.isError, aws.text).toBe(false);
    noLeak(aws);
    expect(aws.body.json.matches[0].value.user).toBe('deploy');
  });

  it('refuses filters that may test a secret, the same for a right and a wrong guess', async () => {
    const guesses: [string, (g: string) => string][] = [
      ['search from the root', (g) => `$[?search(@.secret_access_key, ${JSON.stringify('^' + g)})]`],
      ['== under aws', (g) => `$.aws[?@ == ${JSON.stringify(g)}]`],
      ['a key-hidden array item', (g) => `$.config.tokens[?@ == ${JSON.stringify(g)}]`],
      ['under config', (g) => `$.config[?@[0] == ${JSON.stringify(g)}]`],
    ];
    for (const [name, queryOf] of guesses) {
      const secret = name.includes('aws') || name.includes('root') ? AWS_SECRET : TOKEN;
      const answers: string[] = [];
      for (const g of [secret, secret.slice(0, -1) + 'x']) {
        const r = await mcp.call('read', { path: 'big.json', json_path: queryOf(g) });
        expect(r.isError, `${name}: ${r.text}`).toBe(true);
        expect(r.body.error.code, name).toBe('redacted');
        expect(leakOf(shownOf(r).replaceAll(g, '<guess>'), [AWS_SECRET, TOKEN]), r.text).toBeNull();
        const { json_path: asked, ...rest } = r.body.error;
        answers.push(JSON.stringify({ ...rest, message: rest.message.replace(asked, 'Q') }));
      }
      expect(answers[0], name).toBe(answers[1]);
    }
  });

  it('proposes a JSON edit with the diff of its value, under the read version', async () => {
    const read = await mcp.call('read', { path: 'big.json', json_path: '$.config.retries' });
    const etag = read.body.version.etag as string;
    const r = await mcp.call('upsert', { path: 'big.json', if_match: etag, target: { json: { path: '$.config.retries', op: 'set', value: 5 } } });
    expect(r.isError, r.text).toBe(false);
    // Queued for a person (the default policy), with the diff of the one value.
    expect(r.body).toMatchObject({ applied: false, status: 'pending', range_before: { start_line: 10, end_line: 10 } });
    expect(r.body.preview).toContain('-    "retries": 3\n+    "retries": 5\n');
    expect(readFileSync(join(ws, 'big.json'), 'utf8').slice(0, 300)).toContain('"retries": 3\n');
    // A person changes the file: the agent's version is stale.
    appendFileSync(join(ws, 'big.json'), '\n');
    const stale = await mcp.call('upsert', { path: 'big.json', if_match: etag, target: { json: { path: '$.config.retries', op: 'set', value: 6 } } });
    expect(stale.body.error.code).toBe('precondition_failed');
  });
});
