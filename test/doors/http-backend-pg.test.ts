/**
 * The HTTP door on a pg:// locator, against a real PostgreSQL: the app's calls
 * (file_info for follow mode, read windows, upsert, review_undo) take the locator
 * where they take a path; the workspace's folio.config.json says how to connect.
 * The person's edit is journaled, and undo puts the row back by the same splice.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../src-main/doors/http/serve.ts';
import { forgetStores } from '../../src-main/review/store.ts';
import { closePostgresPools } from '../../src-main/backends/postgres/postgres.ts';
import { tempDir } from '../fixtures/generate.ts';
import { startPostgres, type TestPostgres } from '../fixtures/postgres.ts';

const tmp = tempDir();
let pgs: TestPostgres;
beforeAll(async () => {
  pgs = await startPostgres();
  await pgs.client.query(`CREATE TABLE logs (name text PRIMARY KEY, body bytea)`);
  const lines = Array.from({ length: 50000 }, (_, i) => `2026-01-01 INFO line ${i + 1}\n`).join('');
  await pgs.client.query(`INSERT INTO logs VALUES ('app', convert_to($1, 'UTF8'))`, [lines]);
  await pgs.client.query(`CREATE TABLE jdocs (id text PRIMARY KEY, meta jsonb)`);
  await pgs.client.query(`INSERT INTO jdocs VALUES ('j', '{"a": [1, 2, 3], "b": null}')`);
});
afterAll(async () => {
  forgetStores();
  await closePostgresPools();
  await pgs?.stop();
  tmp.cleanup();
});

describe('POST /api/* on pg://logs/app/body', () => {
  it('pages the value, follows its version, and an edit is undone byte-exact', async () => {
    const ws = tmp.path('ws');
    mkdirSync(ws);
    writeFileSync(`${ws}/folio.config.json`, JSON.stringify({ backends: { pg: { host: pgs.host, port: pgs.port, user: pgs.user, database: pgs.database } } }));
    const renderer = tmp.path('renderer');
    mkdirSync(renderer);
    writeFileSync(`${renderer}/index.html`, '<!doctype html><title>t</title>');
    const server = await serve({ port: 0, rendererDir: renderer, workspace: ws });
    const { origin } = new URL(server.url);
    const post = async (op: string, body: unknown) => {
      const res = await fetch(`${origin}/api/${op}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const loc = 'pg://logs/app/body';
    const original = (await pgs.client.query(`SELECT body FROM logs WHERE name = 'app'`)).rows[0].body as Buffer;
    try {
      const info = await post('file_info', { path: loc });
      expect(info.status, JSON.stringify(info.body)).toBe(200);
      expect(info.body).toMatchObject({ lines: 50000, size: original.length, backend: { scheme: 'pg' } });
      const w = await post('read', { path: loc, ranges: [{ start: 40000, end: 40002 }] });
      expect(w.body.content).toBe('2026-01-01 INFO line 40000\n2026-01-01 INFO line 40001\n2026-01-01 INFO line 40002\n');

      // Follow mode: another writer appends; the next file_info is the new version.
      await pgs.client.query(`UPDATE logs SET body = body || convert_to('2026-01-01 INFO line 50001\n', 'UTF8') WHERE name = 'app'`);
      const grown = await post('file_info', { path: loc });
      expect(grown.body.lines).toBe(50001);
      expect(grown.body.version.etag).not.toBe(info.body.version.etag);

      const edit = await post('upsert', { path: loc, target: { replace: { start: 2, end: 2 } }, content: 'EDITED ✓', if_match: grown.body.version.etag });
      expect(edit.status, JSON.stringify(edit.body)).toBe(200);
      const edited = (await pgs.client.query(`SELECT convert_from(body, 'UTF8') AS t FROM logs WHERE name = 'app'`)).rows[0].t as string;
      expect(edited.split('\n').slice(0, 3)).toEqual(['2026-01-01 INFO line 1', 'EDITED ✓', '2026-01-01 INFO line 3']);
      const [entry] = (await post('review_history', { path: loc })).body.entries;
      expect(entry).toMatchObject({ path: loc, proposal_id: null });

      const undo = await post('review_undo', { path: loc });
      expect(undo.status, JSON.stringify(undo.body)).toBe(200);
      const back = (await pgs.client.query(`SELECT body FROM logs WHERE name = 'app'`)).rows[0].body as Buffer;
      expect(back.equals(Buffer.concat([original, Buffer.from('2026-01-01 INFO line 50001\n')]))).toBe(true);

      // A jsonb value: the JSONPath runs in PostgreSQL; a json edit (jsonb_set) is journaled and undone.
      const jloc = 'pg://jdocs/j/meta';
      const meta = async () => (await pgs.client.query(`SELECT meta::text AS t FROM jdocs WHERE id = 'j'`)).rows[0].t as string;
      const jr = await post('read', { path: jloc, json_path: '$.a[?@ > 1]' });
      expect(jr.status, JSON.stringify(jr.body)).toBe(200);
      expect(jr.body.json.matches.map((m: { value: unknown }) => m.value)).toEqual([2, 3]);
      expect(jr.body.notes).toContain('evaluated by PostgreSQL on the jsonb value');
      const je = await post('upsert', { path: jloc, target: { json: { path: '$.b', op: 'set', value: { c: true } } }, if_match: jr.body.version.etag });
      expect(je.status, JSON.stringify(je.body)).toBe(200);
      expect(await meta()).toBe('{"a": [1, 2, 3], "b": {"c": true}}');
      expect((await post('review_undo', { path: jloc })).status).toBe(200);
      expect(await meta()).toBe('{"a": [1, 2, 3], "b": null}');
    } finally {
      await server.close();
    }
  });
});
