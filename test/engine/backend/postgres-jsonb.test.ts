/**
 * JSON addressing of jsonb values against a real PostgreSQL the suite starts:
 * - reads: every RFC 9535 construct PostgreSQL evaluates (postgres-jsonpath.ts) gives
 *   the answer a file read gives on the same document (the value's text, as
 *   PostgreSQL prints it, written to a local file): pointers, values, texts, lines,
 *   byte offsets; the version is the value's; bad queries are the same typed errors;
 * - edits: json targets are computed by PostgreSQL (jsonb_set / jsonb_insert / #-)
 *   and written as one conditional splice; the same edit of the local file gives the
 *   same JSON; stale versions, ambiguous and missing paths write nothing; of 8
 *   writers racing for one version exactly one wins every round;
 * - review: a json edit of a jsonb value is a proposal; approve, undo, redo.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../../src-main/api/operations.ts';
import { configureBackends } from '../../../src-main/engine/backend/registry.ts';
import { closePostgresPools } from '../../../src-main/engine/backend/postgres.ts';
import { readRemote } from '../../../src-main/engine/backend/remote.ts';
import { forgetStores } from '../../../src-main/review/index.ts';
import { startPostgres, type TestPostgres } from '../../fixtures/postgres.ts';
import { engineTempDir } from '../../fixtures/engine-env.ts';

const tmp = engineTempDir();
let pgs: TestPostgres;
let ws: string;
const person = { kind: 'human' as const, name: 'pat' };

const DOC = {
  store: {
    book: [
      { category: 'reference', author: 'Nigel Rees', title: 'Sayings of the Century', price: 8.95, tags: ['quotes'] },
      { category: 'fiction', author: 'Evelyn Waugh', title: 'Sword of Honour', price: 12.99, tags: ['war', 'classic'] },
      { category: 'fiction', author: 'Herman Melville', title: 'Moby Dick', isbn: '0-553-21311-3', price: 8.99, tags: ['classic', 'sea'] },
      { category: 'fiction', author: 'J. R. R. Tolkien', title: 'The Lord of the Rings', isbn: '0-395-19395-8', price: 22.99 },
      { category: 'poetry', author: 'Ünïcödé ✓ 日本語', title: 'no price' },
    ],
    bicycle: { color: 'red', price: 399, 'a b': { '"quoted"': 'x\ny' } },
  },
  limits: { cheap: 9, ref: { k: [1, 2] } },
  mixed: [1, '2', 2.5, true, null, 'a', { k: [1, 2] }, [3], -4, 100, 'b', false, {}, [], [1, 2]],
  0: 'zero key',
  deep: { a: { b: { c: { d: [{ e: 1 }, { e: [2, { e: 3 }] }] } } } },
};

/** Queries PostgreSQL evaluates, each checked against the same query of the local file. */
const QUERIES = [
  '$',
  '$.store',
  '$.store.book[0].title',
  "$['store']['book'][-1]",
  '$.store.book[*].author',
  '$.store.*',
  '$.*',
  '$.store.book[1:3]',
  '$.store.book[::2]',
  '$.store.book[::-1]',
  '$.store.book[-2:]',
  '$.store.book[4:0:-2]',
  '$.store.book[7:-9:-1]',
  '$.mixed[:100]',
  '$.store.book[0, 2].title',
  '$.store.book[0, 0, -1]',
  '$..author',
  '$..book[2]',
  '$..*',
  '$..[0]',
  '$..e',
  '$.deep..e[*]',
  '$["0"]',
  '$.store.bicycle["a b"]["\\"quoted\\""]',
  '$.store.book[?@.price < 10]',
  '$.store.book[?@.price >= 8.95 && @.category == "fiction"]',
  '$.store.book[?@.isbn]',
  '$.store.book[?!@.isbn]',
  '$.store.book[?@.isbn || @.price > 20]',
  '$.store.book[?(@.price > 10)]',
  '$.store.book[?!(@.price < 10)]',
  '$.store.book[?@.author != "Evelyn Waugh"]',
  '$.store.book[?@.missing == @.other]',
  '$.store.book[?@.price < $.limits.cheap]',
  '$.store.book[?@.tags[?@ == "classic"]]',
  '$.store.book[?@.*]',
  '$.mixed[?@ < 3]',
  '$.mixed[?@ <= 2.5]',
  '$.mixed[?@ > "a"]',
  '$.mixed[?@ >= "a"]',
  '$.mixed[?@ == null]',
  '$.mixed[?@ != true]',
  '$.mixed[?@ == $.limits.ref]',
  '$.mixed[?@ == $.limits.ref.k]',
  '$.mixed[?@ == 1.0]',
  '$.mixed[?@ == -4]',
  '$..[?length(@) > 2]',
  '$.store.book[?length(@.title) == 9]',
  '$.store.book[?count(@.*) == 6]',
  '$.store.book[?count(@..*) > 7]',
  '$.store[?value(@..price) == 399]',
  '$.store.book[?value(@.tags[1]) == "classic"]',
  '/store/book/0',
  '/0',
  '/mixed/6/k/1',
  '/store/bicycle/a b/"quoted"',
];

let locs: Record<string, string> = {};
let file: string;
let canonical: string;

const ctx = () => ({ workspace: ws });
const readOp = (input: Record<string, unknown>) => operations.read.run(input as never, person, ctx());

beforeAll(async () => {
  pgs = await startPostgres();
  const pgConfig = { host: pgs.host, port: pgs.port, user: pgs.user, database: pgs.database, maxConnections: 10 };
  configureBackends({ pg: pgConfig });
  ws = tmp.path('ws');
  mkdirSync(ws);
  // The doors connect as the workspace config says.
  writeFileSync(`${ws}/folio.config.json`, JSON.stringify({ backends: { pg: pgConfig } }));
  await pgs.client.query(`CREATE TABLE docs (id text PRIMARY KEY, meta jsonb, body text)`);
  await pgs.client.query(`INSERT INTO docs (id, meta) VALUES ('doc', $1)`, [JSON.stringify(DOC)]);
  canonical = (await pgs.client.query(`SELECT meta::text AS t FROM docs WHERE id = 'doc'`)).rows[0].t;
  file = tmp.path('doc.json');
  writeFileSync(file, canonical);
  locs = { doc: 'pg://docs/doc/meta' };
});

afterAll(async () => {
  forgetStores();
  await closePostgresPools();
  await pgs?.stop();
});

describe('JSONPath reads of a jsonb value run in PostgreSQL and answer as the file read does', () => {
  it.each(QUERIES.filter(Boolean))('%s', async (q) => {
    const want = await readOp({ path: file, json_path: q });
    const got = await readOp({ path: locs.doc!, json_path: q });
    expect(got.notes).toContain('evaluated by PostgreSQL on the jsonb value');
    expect(got.json?.matches).toEqual(want.json?.matches);
    expect(got.content).toBe(want.content);
    expect([got.start_line, got.end_line, got.start_byte, got.end_byte]).toEqual([want.start_line, want.end_line, want.start_byte, want.end_byte]);
    // Every match's text is the bytes at its offsets in the value's text.
    for (const m of got.json!.matches) expect(Buffer.from(canonical).subarray(m.start_byte, m.end_byte).toString()).toBe(m.text);
  });

  it('the version is the value’s (xmin@ctid): the same etag a line read gives, and it changes with the row', async () => {
    const a = await readOp({ path: locs.doc!, json_path: '$.limits' });
    const lines = await readRemote(locs.doc!, { mode: 'head', lines: 1 });
    expect(a.version.etag).toBe(lines.version.etag);
    expect(a.version.size).toBe(Buffer.byteLength(canonical));
    await pgs.client.query(`INSERT INTO docs (id, meta) VALUES ('v', '{"n": 1}')`);
    const v1 = await readOp({ path: 'pg://docs/v/meta', json_path: '$.n' });
    await pgs.client.query(`UPDATE docs SET meta = '{"n": 2}' WHERE id = 'v'`);
    const v2 = await readOp({ path: 'pg://docs/v/meta', json_path: '$.n' });
    expect(v2.json!.matches[0]!.value).toBe(2);
    expect(v2.version.etag).not.toBe(v1.version.etag);
  });

  it('match() and search() (I-Regexp, not PostgreSQL regular expressions) are evaluated over the text, said so, with the file answer', async () => {
    for (const q of ['$.store.book[?match(@.author, "[A-Z].*e.*")]', '$..[?search(@, "^[0-9]-")]']) {
      const want = await readOp({ path: file, json_path: q });
      const got = await readOp({ path: locs.doc!, json_path: q });
      expect(got.notes.join(' ')).toMatch(/evaluated by Folio over the jsonb value's text: (match|search)\(\) has no exact PostgreSQL form/);
      expect(got.json?.matches).toEqual(want.json?.matches);
    }
  });

  it('bad queries are the typed errors a file read gives', async () => {
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: { code?: string; details?: Record<string, unknown> }) => `${e.code}${e.details?.position !== undefined ? `@${e.details.position}` : ''}`,
      );
    for (const q of [
      '$.store.book[',
      '$.store.book[?@.price < ]',
      'store',
      '$.nope',
      '$.store.book[9]',
      '$.mixed[?@ == "zzz"]',
      '/nope/0',
      '$[?@.a == @.*]',
      '$.store.book[0:0]',
      '$[0]',
      '$.mixed[?@ == $.limits.nope]',
    ]) {
      const want = await codeOf(readOp({ path: file, json_path: q }));
      expect(want).not.toBe('ok');
      expect(await codeOf(readOp({ path: locs.doc!, json_path: q }))).toBe(want);
    }
    // Past the match cap: too_large, as for a file.
    await pgs.client.query(`INSERT INTO docs (id, meta) SELECT 'many', jsonb_build_object('a', jsonb_agg(g)) FROM generate_series(1, 10001) g`);
    await expect(readOp({ path: 'pg://docs/many/meta', json_path: '$.a[*]' })).rejects.toMatchObject({ code: 'too_large' });
    expect((await readOp({ path: 'pg://docs/many/meta', json_path: '$.a[9999:]' })).json!.matches.map((m) => m.value)).toEqual([10000, 10001]);
    // A missing row, a NULL value: not_found.
    await expect(readOp({ path: 'pg://docs/absent/meta', json_path: '$' })).rejects.toMatchObject({ code: 'not_found' });
    await pgs.client.query(`INSERT INTO docs (id, body) VALUES ('nullmeta', 'x')`);
    await expect(readOp({ path: 'pg://docs/nullmeta/meta', json_path: '$' })).rejects.toMatchObject({ code: 'not_found' });
    // A text column keeps the file rules over its text.
    await pgs.client.query(`UPDATE docs SET body = '{"t": [1, 2]}' WHERE id = 'nullmeta'`);
    const t = await readOp({ path: 'pg://docs/nullmeta/body', json_path: '$.t[1]' });
    expect(t.json!.matches[0]!.value).toBe(2);
    expect(t.notes).not.toContain('evaluated by PostgreSQL on the jsonb value');
  });

  it('a key and a string full of SQL and JSON metacharacters are parameters, never SQL', async () => {
    const evil = `x'); DROP TABLE docs; --"\\`;
    await pgs.client.query(`INSERT INTO docs (id, meta) VALUES ('evil', $1)`, [JSON.stringify({ [evil]: evil })]);
    const r = await readOp({ path: 'pg://docs/evil/meta', json_path: `$[${JSON.stringify(evil)}]` });
    expect(r.json!.matches[0]!.value).toBe(evil);
    const f = await readOp({ path: 'pg://docs/evil/meta', json_path: `$[?@ == ${JSON.stringify(evil)}]` });
    expect(f.json!.matches.map((m) => m.pointer)).toEqual([`/${evil.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
  });
});
