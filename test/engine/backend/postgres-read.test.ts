/**
 * Every read mode over a PostgreSQL value (text and bytea columns) against a real
 * server the suite starts, with the same bytes in a local file as the oracle: the
 * local read path is itself checked against sed, grep and wc (test/engine/read.test.ts).
 * What every backend does alike (every read mode against the oracle, sed, wc, grep,
 * past the end, bytes that are not UTF-8, the cost of a window, a value changed
 * behind the process's back, two versions at once) is in conformance-read.test.ts;
 * this file keeps what is PostgreSQL's own.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { read } from '../../../src-main/engine/read/read.ts';
import { configureBackends } from '../../../src-main/backends/index.ts';
import { closePostgresPools } from '../../../src-main/backends/postgres/postgres.ts';
import { budgetMs } from '../../fixtures/load.ts';
import { forgetRemote, openRemote, readRemote, remoteInfo, runOn, searchRemote } from '../../../src-main/engine/backend/remote.ts';
import { startPostgres, type TestPostgres } from '../../fixtures/postgres.ts';
import { engineTempDir } from '../../fixtures/engine-env.ts';
import { sampleValue } from '../../fixtures/remote-value.ts';

const tmp = engineTempDir();
let pgs: TestPostgres;

const bytes = sampleValue();

beforeAll(async () => {
  pgs = await startPostgres();
  configureBackends({ pg: { host: pgs.host, port: pgs.port, user: pgs.user, database: pgs.database } });
  await pgs.client.query(`CREATE TABLE docs (id text PRIMARY KEY, body text, raw bytea, meta jsonb, n int)`);
  await pgs.client.query(`ALTER TABLE docs ALTER COLUMN raw SET STORAGE EXTERNAL`);
  await pgs.client.query(`INSERT INTO docs (id, body, raw) VALUES ('big', convert_from($1, 'UTF8'), $1), ('a/b', 'one\ntwo\n', NULL)`, [bytes]);
});

afterAll(async () => {
  await closePostgresPools();
  await pgs?.stop();
});

describe('the index sidecar', () => {
  it('is kept in the folio_index table by version, and a fresh process state reads it instead of the value', async () => {
    forgetRemote();
    const first = await openRemote('pg://docs/big/raw');
    expect(['sidecar', 'stream']).toContain(first.indexFrom);
    const rows = await pgs.client.query(`SELECT locator, version FROM folio_index WHERE locator = 'pg://docs/big/raw'`);
    expect(rows.rows).toEqual([{ locator: 'pg://docs/big/raw', version: first.version.token }]);
    forgetRemote();
    const again = await openRemote('pg://docs/big/raw');
    expect(again.indexFrom).toBe('sidecar');
    expect(again.index.lineCount).toBe(first.index.lineCount);
  });

  it('a sidecar of another version is never used: the value is indexed again', async () => {
    await pgs.client.query(`UPDATE docs SET raw = raw || '\nappended\n'::bytea WHERE id = 'big'`);
    forgetRemote();
    const v = await openRemote('pg://docs/big/raw');
    expect(v.indexFrom).toBe('stream');
    expect(v.index.lineCount).toBe(30002); // the last line gets its newline, then one more line
    const tail = await readRemote('pg://docs/big/raw', { mode: 'tail', lines: 2 });
    expect(tail.content).toBe('last line without newline\nappended\n');
    await pgs.client.query(`UPDATE docs SET raw = $1 WHERE id = 'big'`, [bytes]);
  });
});

describe('follow mode: polling the version', () => {
  it('an unchanged value answers from this process (a stat, no stream); a changed one is a new version with its own index', async () => {
    await pgs.client.query(`INSERT INTO docs (id, body) VALUES ('followed', 'a\nb\n')`);
    const loc = 'pg://docs/followed/body';
    const first = await remoteInfo(loc);
    const again = await remoteInfo(loc);
    expect(again.backend.indexFrom).toBe('memory');
    expect(again.version.etag).toBe(first.version.etag);
    await pgs.client.query(`UPDATE docs SET body = body || 'c\n' WHERE id = 'followed'`);
    const grown = await remoteInfo(loc);
    expect(grown.version.etag).not.toBe(first.version.etag);
    expect(grown.backend.version).not.toBe(first.backend.version);
    expect([grown.lines, grown.backend.indexFrom]).toEqual([3, 'extended']); // only the appended bytes were scanned
  });
});

describe('a value that grows (a log appended to)', () => {
  it("extends the last version's index over the new bytes, equal to a rebuild; a rewrite streams again", async () => {
    const base = Buffer.from(Array.from({ length: 30000 }, (_, i) => `entry ${i} ✓ ${'y'.repeat(i % 90)}\r\n`).join('') + 'partial ü');
    await pgs.client.query(`INSERT INTO docs (id, raw) VALUES ('growing', $1)`, [base]);
    const loc = 'pg://docs/growing/raw';
    forgetRemote();
    expect((await openRemote(loc)).indexFrom).toBe('stream');
    const more = Buffer.from(' tail\n' + 'next line ✓\r\n'.repeat(5000) + 'end');
    await pgs.client.query(`UPDATE docs SET raw = raw || $1 WHERE id = 'growing'`, [more]);
    const grown = await openRemote(loc);
    expect(grown.indexFrom).toBe('extended');
    const whole = Buffer.concat([base, more]);
    const f = tmp.path('growing.txt');
    writeFileSync(f, whole);
    forgetRemote();
    await pgs.client.query(`DELETE FROM folio_index WHERE locator = $1`, [loc]);
    const rebuilt = await openRemote(loc);
    expect(rebuilt.indexFrom).toBe('stream');
    const facts = (i: typeof grown.index) => [i.lineCount, i.newlines, i.facts, i.newlineCounts, i.finalNewline, i.head, i.tail];
    expect(facts(grown.index)).toEqual(facts(rebuilt.index));
    for (const line of [1, 29999, 30001, 30002, 35001]) {
      // Index lookups read a block of the value: with it mounted.
      expect(await runOn(grown, () => grown.index.lineStart(line - 1))).toBe(await runOn(rebuilt, () => rebuilt.index.lineStart(line - 1)));
    }
    expect((await readRemote(loc, { mode: 'tail', lines: 2 })).content).toBe((await read(f, { mode: 'tail', lines: 2 })).content);
    // Rewritten in the middle (same size or bigger): never extended.
    await pgs.client.query(`UPDATE docs SET raw = overlay(raw placing 'ENTRY' from 1 for 5) || 'x'::bytea WHERE id = 'growing'`);
    expect((await openRemote(loc)).indexFrom).toBe('stream');
  });
});

describe('a value bigger than the block cache', () => {
  it('an 80 MiB bytea value (built by the server) reads at both ends and the middle like its bytes', async () => {
    // 80 MiB of numbered lines, made in the database; the same bytes fetched once to check against.
    await pgs.client.query(
      `INSERT INTO docs (id, raw) SELECT 'huge', convert_to(string_agg(format('line %s %s', g, repeat('x', 60)), E'\n' ORDER BY g) || E'\n', 'UTF8') FROM generate_series(1, 1200000) g`,
    );
    const loc = 'pg://docs/huge/raw';
    const info = await remoteInfo(loc);
    expect(info.lines).toBe(1200000);
    expect(info.size).toBeGreaterThan(64 * 1024 * 1024);
    for (const line of [1, 600000, 1200000, 2]) {
      const r = await readRemote(loc, { mode: 'lines', ranges: [{ start: line, end: line }] });
      expect(r.content).toBe(`line ${line} ${'x'.repeat(60)}\n`);
    }
    // The default 10 s budget is a server's; beside a CPU hog 84 MiB took longer. Not what this test is about.
    const hits = await searchRemote(loc, { pattern: '^line (1|1199999) x', maxMatches: 10, timeoutMs: budgetMs(10_000) });
    expect(hits.matches.map((m) => m.line)).toEqual([1, 1199999]);
    const v = await openRemote(loc);
    expect(v.source.fetches).toBeGreaterThan(8); // the search read the value in ranges, the cache holds 64 MiB at most
  });
});

describe('jsonb values', () => {
  it('read as PostgreSQL prints them; JSON paths by the same RFC 9535 rules as files; text PostgreSQL would print otherwise is never written', async () => {
    await pgs.client.query(`INSERT INTO docs (id, meta) VALUES ('j', '{"b": [1, 2, {"c": "ü"}], "a": true}')`);
    const loc = 'pg://docs/j/meta';
    const r = await readRemote(loc, { mode: 'head', lines: 1 });
    expect(r.content).toBe('{"a": true, "b": [1, 2, {"c": "ü"}]}'); // jsonb's own key order and spacing
    const { readByInput } = await import('../../../src-main/api/read-address.ts');
    const { onRemote } = await import('../../../src-main/engine/backend/remote.ts');
    const j = await onRemote(loc, (v) => readByInput({ path: v.backend.locator, json_path: '$.b[?@.c]' }));
    expect(j.json?.matches.map((m) => m.value)).toEqual([{ c: 'ü' }]);
    const { upsertRemote } = await import('../../../src-main/engine/backend/remote-upsert.ts');
    // jsonb keeps its own text: a write whose text it would print otherwise is refused (postgres-jsonb.test.ts edits it).
    await expect(upsertRemote(loc, { target: { kind: 'whole' }, content: '{"z":1}', preconditions: { ifMatch: r.version.etag } })).rejects.toMatchObject({
      code: 'invalid_input',
      details: { printed_as: '{"z": 1}' },
    });
    expect((await pgs.client.query(`SELECT meta::text AS t FROM docs WHERE id = 'j'`)).rows[0].t).toBe(r.content);
  });
});

describe('adversarial', () => {
  it('a key with a slash is percent-encoded; a missing row, table or column is not_found; a NULL value is not_found', async () => {
    expect((await readRemote('pg://docs/a%2Fb/body', { mode: 'head', lines: 1 })).content).toBe('one\n');
    await expect(readRemote('pg://docs/nope/body', { mode: 'head', lines: 1 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(readRemote('pg://nosuch/k/body', { mode: 'head', lines: 1 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(readRemote('pg://docs/big/nosuch', { mode: 'head', lines: 1 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(readRemote('pg://docs/a%2Fb/raw', { mode: 'head', lines: 1 })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('bad locators are invalid_input naming the expected form; an int column is refused', async () => {
    for (const bad of ['pg://docs/big', 'pg://docs//body', 'pg://do;cs/big/body', 'pg://docs/big/bo"dy', 'pg://docs/%zz/body', 'pg://a.b.c/k/body']) {
      await expect(readRemote(bad, { mode: 'head', lines: 1 }), bad).rejects.toMatchObject({ code: 'invalid_input' });
    }
    await expect(readRemote('pg://docs/big/n', { mode: 'head', lines: 1 })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('a key that looks like SQL is only ever a parameter', async () => {
    await expect(readRemote(`pg://docs/${encodeURIComponent("x' OR '1'='1")}/body`, { mode: 'head', lines: 1 })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
