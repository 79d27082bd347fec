/**
 * Agents on pg:// values over MCP (SDK client, `folio mcp` child, real PostgreSQL):
 * the policy's `remote` globs are the roots of remote values (allowed tables), its
 * deny and read_only globs apply to their names, reads and searches are redacted
 * like a file's, and an upsert becomes a proposal a person approves (then the row
 * changes), or applies at once under an `auto` review rule.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/generate.ts';
import { connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { startPostgres, type TestPostgres } from '../fixtures/postgres.ts';
import { approve } from '../../src-main/review/decisions.ts';
import { configureBackends } from '../../src-main/backends/index.ts';
import { closePostgresPools } from '../../src-main/backends/postgres/postgres.ts';

const tmp = tempDir('folio-mcp-pg-');
const cacheDir = tmp.path('cache');
const ws = tmp.path('ws');
let pgs: TestPostgres;
let mcp: McpSession;

const PASSWORD = 'hunter2-correct-horse';

beforeAll(async () => {
  pgs = await startPostgres();
  await pgs.client.query(`CREATE TABLE docs (id text PRIMARY KEY, body text, meta jsonb)`);
  await pgs.client.query(`CREATE TABLE secrets (id text PRIMARY KEY, body text)`);
  await pgs.client.query(`INSERT INTO docs VALUES ('cfg', $1), ('frozen', 'do not touch\n'), ('logs', 'l1\nl2\n')`, [
    `# settings\npassword = "${PASSWORD}"\nregion = eu-west-1\n`,
  ]);
  await pgs.client.query(`INSERT INTO secrets VALUES ('k', 'top secret\n')`);
  await pgs.client.query(`INSERT INTO docs (id, meta) VALUES ('j', $1)`, [JSON.stringify({ db: { password: PASSWORD, region: 'eu' }, n: [1, 2, 3] })]);
  // jsonb prints on one line: an edit of a value whose line holds a secret is the guard's to refuse, so the edit test has its own row.
  await pgs.client.query(`INSERT INTO docs (id, meta) VALUES ('j2', $1)`, [JSON.stringify({ db: { region: 'eu' }, n: [1, 2, 3] })]);
  mkdirSync(ws, { recursive: true });
  const backends = { pg: { host: pgs.host, port: pgs.port, user: pgs.user, database: pgs.database } };
  writeFileSync(
    join(ws, 'folio.config.json'),
    JSON.stringify({
      backends,
      remote: ['pg/docs/**'],
      read_only: ['pg/docs/frozen/**'],
      review: [{ glob: 'pg/docs/logs/**', policy: 'auto' }],
    }),
  );
  configureBackends(backends); // for this process's approve()
  mcp = await connectStdio(ws, { cacheDir });
});
afterAll(async () => {
  await mcp?.close();
  await closePostgresPools();
  await pgs?.stop();
  tmp.cleanup();
});

const body = async (id: string) => (await pgs.client.query('SELECT body FROM docs WHERE id = $1', [id])).rows[0]?.body as string;

describe('agents on pg:// values', () => {
  it('reads and searches an allowed value, with secrets redacted', async () => {
    const r = await mcp.call('read', { path: 'pg://docs/cfg/body', ranges: [{ start: 1, end: 3 }] });
    expect(r.isError, r.text).toBe(false);
    expect(r.body.content).toContain('region = eu-west-1');
    expect(r.text).not.toContain(PASSWORD);
    expect(r.body.redactions).toBeGreaterThanOrEqual(1);
    const s = await mcp.call('search', { path: 'pg://docs/cfg/body', pattern: 'region' });
    expect(s.body.matches.map((m: { line: number }) => m.line)).toEqual([3]);
    const info = await mcp.call('file_info', { path: 'pg://docs/cfg/body' });
    expect(info.body.lines).toBe(3);
  });

  it('a table outside `remote`, a read-only value and a bad locator are refused', async () => {
    const other = await mcp.call('read', { path: 'pg://secrets/k/body', head: 1 });
    expect([other.isError, other.body.error.code]).toEqual([true, 'permission_denied']);
    expect(other.text).not.toContain('top secret');
    const etag = (await mcp.call('read', { path: 'pg://docs/frozen/body', head: 1 })).body.version.etag;
    const ro = await mcp.call('upsert', { path: 'pg://docs/frozen/body', if_match: etag, targets: [{ replace: { start: 1, end: 1 }, content: 'x' }] });
    expect(ro.body.error.code).toBe('permission_denied');
    expect(await body('frozen')).toBe('do not touch\n');
    const bad = await mcp.call('read', { path: 'pg://docs', head: 1 });
    expect(bad.body.error.code).toBe('invalid_input');
  });

  it('an upsert becomes a proposal; the row changes only when a person approves it', async () => {
    const etag = (await mcp.call('read', { path: 'pg://docs/cfg/body', head: 1 })).body.version.etag;
    const r = await mcp.call('upsert', {
      path: 'pg://docs/cfg/body',
      if_match: etag,
      targets: [{ replace: { start: 3, end: 3 }, content: 'region = us-east-1' }],
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.body.applied).toBe(false);
    expect(r.body.policy).toBe('review');
    expect(await body('cfg')).toContain('eu-west-1');
    await approve(ws, { kind: 'human', name: 'pat' }, r.body.proposal_id);
    expect(await body('cfg')).toBe(`# settings\npassword = "${PASSWORD}"\nregion = us-east-1\n`);
  });

  it('under an auto review rule the edit applies at once', async () => {
    const etag = (await mcp.call('read', { path: 'pg://docs/logs/body', head: 1 })).body.version.etag;
    const r = await mcp.call('upsert', { path: 'pg://docs/logs/body', if_match: etag, target: { append: { at_end: true } }, content: 'l3' });
    expect(r.isError, r.text).toBe(false);
    expect(r.body.applied).toBe(true);
    expect(await body('logs')).toBe('l1\nl2\nl3\n');
  });
});

describe('agents on jsonb values', () => {
  const meta = async (id: string) => (await pgs.client.query(`SELECT meta::text AS t FROM docs WHERE id = $1`, [id])).rows[0]?.t as string;

  it('a JSONPath read is answered by PostgreSQL, with secrets redacted', async () => {
    const r = await mcp.call('read', { path: 'pg://docs/j/meta', json_path: '$.n[?@ > 1]' });
    expect(r.isError, r.text).toBe(false);
    expect(r.body.json.matches.map((m: { value: unknown }) => m.value)).toEqual([2, 3]);
    expect(r.body.notes).toContain('evaluated by PostgreSQL on the jsonb value');
    const d = await mcp.call('read', { path: 'pg://docs/j/meta', json_path: '$.db' });
    expect(d.isError, d.text).toBe(false);
    expect(d.text).toContain('region');
    expect(d.text).not.toContain(PASSWORD);
  });

  it('a filter that would test a hidden value is refused before PostgreSQL sees it, the same for a right and a wrong guess', async () => {
    const answers = [];
    for (const g of [PASSWORD.slice(0, 5), 'zzzzz']) {
      for (const q of [`$.db[?search(@, "^${g}")]`, `$[?@.db.password == "${g}"]`, `$..[?@ == "${g}"]`]) {
        const r = await mcp.call('read', { path: 'pg://docs/j/meta', json_path: q });
        expect([r.isError, r.body.error?.code], r.text).toEqual([true, 'redacted']);
        answers.push(r.body.error.hint);
      }
    }
    expect(new Set(answers).size).toBe(1);
  });

  it('a json edit becomes a proposal; approved, PostgreSQL’s jsonb_set result is the row', async () => {
    const before = await meta('j2');
    const etag = (await mcp.call('read', { path: 'pg://docs/j2/meta', json_path: '$' })).body.version.etag;
    const r = await mcp.call('upsert', { path: 'pg://docs/j2/meta', if_match: etag, target: { json: { path: '$.db.region', op: 'set', value: '"us"' } } });
    expect(r.isError, r.text).toBe(false);
    expect([r.body.applied, r.body.policy]).toEqual([false, 'review']);
    expect(await meta('j2')).toBe(before);
    await approve(ws, { kind: 'human', name: 'pat' }, r.body.proposal_id);
    expect(await meta('j2')).toBe(before.replace('"region": "eu"', '"region": "us"'));
  });
});
