/**
 * The CLI on pg:// locators, as child processes against a real PostgreSQL the
 * suite starts: info, read (lines, sections, JSON paths), search, outline, upsert,
 * edit and create, connected by PG* environment variables or by the workspace's
 * folio.config.json `backends`. Values are checked with psql's view of the row.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures/generate.ts';
import { startPostgres, type TestPostgres } from '../fixtures/postgres.ts';

const tmp = tempDir();
const BIN = join(process.cwd(), 'bin/folio.mjs');
let pgs: TestPostgres;

beforeAll(async () => {
  pgs = await startPostgres();
  await pgs.client.query(`CREATE TABLE docs (id text PRIMARY KEY, body text)`);
  await pgs.client.query(`CREATE TABLE jdocs (id text PRIMARY KEY, meta jsonb)`);
  await pgs.client.query(`INSERT INTO jdocs VALUES ('j', '{"tags": ["a", "b"], "n": 1}')`);
  await pgs.client.query(`INSERT INTO docs VALUES ('readme', $1), ('conf', '{"a": {"b": [1, 2, 3]}, "name": "x"}\n')`, [
    '# Title\n\nintro\n\n## Install\n\nrun it\n\n## Use\n\nuse it\n',
  ]);
});
afterAll(async () => {
  await pgs?.stop();
  tmp.cleanup();
});

function folio(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    cwd: opts.cwd ?? tmp.dir,
    env: {
      ...process.env,
      FOLIO_CACHE_DIR: tmp.path('cache'),
      ...(opts.env ?? { PGHOST: pgs.host, PGPORT: String(pgs.port), PGUSER: pgs.user, PGDATABASE: pgs.database }),
    },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
const json = (args: string[]) => {
  const r = folio([...args, '--json']);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
};
const body = async (id: string) => (await pgs.client.query('SELECT body FROM docs WHERE id = $1', [id])).rows[0]?.body as string;

describe('folio on pg:// locators', () => {
  it('info shows size, lines and the backend version (xmin@ctid)', () => {
    const r = folio(['info', 'pg://docs/readme/body']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^size: +51 B \(51 bytes\)$/m);
    expect(r.stdout).toMatch(/^lines: +11 \(11 newlines\)$/m);
    expect(r.stdout).toMatch(/^backend: +pg, version \d+@\(\d+,\d+\), index from (stream|sidecar)$/m);
  });

  it('reads lines, a section and a JSON path; searches; outlines', () => {
    expect(json(['read', 'pg://docs/readme/body', '--lines', '5-7']).content).toBe('## Install\n\nrun it\n');
    expect(json(['read', 'pg://docs/readme/body', '--section', 'Title > Use']).content).toBe('## Use\n\nuse it\n');
    expect(json(['read', 'pg://docs/conf/body', '--json-path', '$.a.b[1]']).json.matches[0].value).toBe(2);
    expect(json(['search', 'pg://docs/readme/body', 'it$']).matches.map((m: { line: number }) => m.line)).toEqual([7, 11]);
    expect(json(['outline', 'pg://docs/readme/body']).headings.map((h: { text: string }) => h.text)).toEqual(['Title', 'Install', 'Use']);
  });

  it('upsert under if_match writes the row; a stale etag is precondition_failed (exit 1) and writes nothing', async () => {
    const etag = json(['read', 'pg://docs/readme/body', '--head', '1']).version.etag;
    const r = json(['upsert', 'pg://docs/readme/body', '--replace', '7-7', '--content', 'run it now', '--if-match', etag]);
    expect(r.applied).toBe(true);
    expect(await body('readme')).toBe('# Title\n\nintro\n\n## Install\n\nrun it now\n\n## Use\n\nuse it\n');
    const stale = folio(['upsert', 'pg://docs/readme/body', '--replace', '1-1', '--content', 'x', '--if-match', etag, '--json']);
    expect(stale.status).toBe(1);
    expect(JSON.parse(stale.stdout).error.code).toBe('precondition_failed');
    expect(await body('readme')).toContain('# Title\n');
  });

  it('section and JSON upserts, quoted edits and create', async () => {
    const sha = json(['outline', 'pg://docs/readme/body']).headings.find((h: { text: string }) => h.text === 'Use').sha256;
    json([
      'upsert',
      'pg://docs/readme/body',
      '--section',
      'Title > Use',
      '--section-replace',
      '--body-only',
      '--content',
      '\nuse it well\n',
      '--section-sha256',
      sha,
    ]);
    expect(await body('readme')).toMatch(/## Use\n\nuse it well\n$/);
    const etag = json(['info', 'pg://docs/conf/body']).version.etag;
    json(['upsert', 'pg://docs/conf/body', '--json-path', '$.name', '--json-set', '"y"', '--if-match', etag]);
    expect(await body('conf')).toBe('{"a": {"b": [1, 2, 3]}, "name": "y"}\n');
    json(['edit', 'pg://docs/readme/body', '--old', 'use it well', '--new', 'USE IT']);
    expect(await body('readme')).toMatch(/USE IT\n$/);
    expect(json(['upsert', 'pg://docs/new/body', '--whole-file', '--content', 'fresh\n', '--if-none-match', '*']).created).toBe(true);
    expect(await body('new')).toBe('fresh\n');
    const again = folio(['upsert', 'pg://docs/new/body', '--whole-file', '--content', 'x', '--if-none-match', '*', '--json']);
    expect(JSON.parse(again.stdout).error.code).toBe('precondition_failed');
  });

  it('reads a jsonb value by JSONPath in PostgreSQL and edits it with jsonb_set / jsonb_insert / #-', async () => {
    const meta = async () => (await pgs.client.query(`SELECT meta::text AS t FROM jdocs WHERE id = 'j'`)).rows[0].t as string;
    const r = json(['read', 'pg://jdocs/j/meta', '--json-path', '$.tags[?@ > "a"]']);
    expect(r.json.matches).toEqual([{ pointer: '/tags/1', value: 'b', text: '"b"', start_line: 1, end_line: 1, start_byte: 23, end_byte: 26 }]);
    expect(r.notes).toContain('evaluated by PostgreSQL on the jsonb value');
    let etag = r.version.etag;
    etag = json(['upsert', 'pg://jdocs/j/meta', '--json-path', '$.n', '--json-set', '{"x": [1]}', '--if-match', etag]).version_after.etag;
    etag = json(['upsert', 'pg://jdocs/j/meta', '--json-path', '$.tags', '--json-insert', '"first"', '--index', '0', '--if-match', etag]).version_after.etag;
    json(['upsert', 'pg://jdocs/j/meta', '--json-path', '$.tags[-1]', '--json-delete', '--if-match', etag]);
    expect(await meta()).toBe('{"n": {"x": [1]}, "tags": ["first", "a"]}');
    const stale = folio(['upsert', 'pg://jdocs/j/meta', '--json-path', '$.n', '--json-set', '2', '--if-match', etag, '--json']);
    expect([stale.status, JSON.parse(stale.stdout).error.code]).toEqual([1, 'precondition_failed']);
    expect(await meta()).toBe('{"n": {"x": [1]}, "tags": ["first", "a"]}');
  });

  it('connects as folio.config.json → backends says, with no PG* variables', () => {
    const ws = tmp.path('ws');
    spawnSync('mkdir', ['-p', ws]);
    writeFileSync(
      join(ws, 'folio.config.json'),
      JSON.stringify({ backends: { pg: { host: pgs.host, port: pgs.port, user: pgs.user, database: pgs.database } } }),
    );
    const r = folio(['read', 'pg://docs/readme/body', '--lines', '1', '--json'], { cwd: ws, env: { PGHOST: '/nonexistent', PGDATABASE: 'nope' } });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).content).toBe('# Title\n');
  });

  it('an unreachable server is io_error; a bad locator is invalid_input', () => {
    const r = folio(['read', 'pg://docs/readme/body', '--lines', '1', '--json'], { env: { PGHOST: tmp.path('no-socket-here'), PGUSER: 'x' } });
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe('io_error');
    const bad = folio(['read', 'pg://docs/readme', '--lines', '1', '--json']);
    expect(JSON.parse(bad.stdout).error.code).toBe('invalid_input');
  });
});
