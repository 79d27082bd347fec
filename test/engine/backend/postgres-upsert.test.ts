/**
 * Upserts of PostgreSQL values (text and bytea columns) against a real server the
 * suite starts: every target form and precondition gives the same bytes as the
 * same upsert of a local file (the local upsert is the oracle, tested on its own in
 * test/engine/upsert*.test.ts), a stale version writes nothing, and of 8 writers
 * on 8 connections racing for one version exactly one wins, every round.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { read } from '../../../src-main/engine/read/read.ts';
import { upsert, type UpsertRequest } from '../../../src-main/engine/write/upsert.ts';
import { configureBackends } from '../../../src-main/backends/index.ts';
import { closePostgresPools } from '../../../src-main/backends/postgres/postgres.ts';
import { forgetRemote, readRemote } from '../../../src-main/engine/backend/remote.ts';
import { upsertRemote } from '../../../src-main/engine/backend/remote-upsert.ts';
import { startPostgres, type TestPostgres } from '../../fixtures/postgres.ts';
import { engineTempDir } from '../../fixtures/engine-env.ts';

const tmp = engineTempDir();
let pgs: TestPostgres;

beforeAll(async () => {
  pgs = await startPostgres();
  configureBackends({ pg: { host: pgs.host, port: pgs.port, user: pgs.user, database: pgs.database, maxConnections: 10 } });
  await pgs.client.query(`CREATE TABLE docs (id text PRIMARY KEY, body text, raw bytea)`);
});

afterAll(async () => {
  await closePostgresPools();
  await pgs?.stop();
});

/** ~400 KiB: lines across several 64 KiB blocks, multi-byte characters. */
function text(): string {
  const out: string[] = [];
  for (let i = 1; i <= 6000; i++) out.push(`line ${i} — ${i % 11 === 0 ? 'ünïcödé ✓' : 'plain'} ${'z'.repeat(i % 40)}\n`);
  return out.join('');
}

let k = 0;
/** A fresh row holding `content` in both columns, and a local file with the same bytes. */
async function pair(content: string): Promise<{ id: string; file: string }> {
  const id = `row${k++}`;
  await pgs.client.query(`INSERT INTO docs (id, body, raw) VALUES ($1, $2, convert_to($2, 'UTF8'))`, [id, content]);
  const file = tmp.path(`${id}.txt`);
  writeFileSync(file, content);
  return { id, file };
}

async function valueOf(id: string, column: string): Promise<Buffer> {
  const r = await pgs.client.query(`SELECT ${column === 'body' ? `convert_to(body, 'UTF8')` : 'raw'} AS b FROM docs WHERE id = $1`, [id]);
  return r.rows[0].b as Buffer;
}

const etagRemote = async (l: string) => (await readRemote(l, { mode: 'head', lines: 0 })).version.etag;

type Case = { name: string; req: (pre: UpsertRequest['preconditions']) => UpsertRequest; pre: 'etag' | 'sha256' | 'anchors' | 'range' | 'none' };
const T = (kind: string, extra: object) => ({ kind, units: 'lines', ...extra }) as UpsertRequest['target'];
const cases: Case[] = [
  { name: 'insert at a line', pre: 'etag', req: (p) => ({ target: T('insert', { at: 3000 }), content: 'inserted ✓', preconditions: p }) },
  { name: 'replace lines', pre: 'etag', req: (p) => ({ target: T('replace', { start: 10, end: 2500 }), content: 'one\ntwo', preconditions: p }) },
  { name: 'delete lines', pre: 'sha256', req: (p) => ({ target: T('delete', { start: 4000, end: 4100 }), content: '', preconditions: p }) },
  { name: 'append', pre: 'etag', req: (p) => ({ target: T('append', {}), content: 'the end', preconditions: p }) },
  { name: 'whole value', pre: 'etag', req: (p) => ({ target: T('whole', {}), content: 'all new\n', preconditions: p }) },
  {
    name: 'replace bytes',
    pre: 'etag',
    req: (p) => ({ target: { kind: 'replace', start: 70000, end: 70010, units: 'bytes' }, content: '[bytes]', preconditions: p }),
  },
  {
    name: 'replace under hashline anchors',
    pre: 'anchors',
    req: (p) => ({ target: T('replace', { start: 5000, end: 5001 }), content: 'anchored', preconditions: p }),
  },
  { name: 'replace under a range hash', pre: 'range', req: (p) => ({ target: T('replace', { start: 5000, end: 5001 }), content: 'ranged', preconditions: p }) },
  {
    name: 'several edits in one call',
    pre: 'etag',
    req: (p) => ({
      target: T('replace', { start: 2, end: 2 }),
      content: 'two',
      edits: [
        { target: T('replace', { start: 2, end: 2 }), content: 'two' },
        { target: T('insert', { at: 5999 }), content: 'before 5999' },
        { target: T('delete', { start: 3333, end: 3333 }), content: '' },
      ],
      preconditions: p,
    }),
  },
  {
    name: 'quoted edit',
    pre: 'none',
    req: (p) => ({ target: T('append', {}), content: '', quoted: [{ oldText: 'line 4321 — plain', newText: 'QUOTED' }], preconditions: p }),
  },
];

async function preconditionsFor(kind: Case['pre'], path: string, remote: boolean, bytes: Buffer): Promise<UpsertRequest['preconditions']> {
  const r = (req: Parameters<typeof read>[1], o = {}) => (remote ? readRemote(path, req, o) : read(path, req, o));
  switch (kind) {
    case 'etag':
      return { ifMatch: (await r({ mode: 'head', lines: 0 })).version.etag };
    case 'sha256':
      return { expectedSha256: createHash('sha256').update(bytes).digest('hex') };
    case 'anchors': {
      const h = await r({ mode: 'lines', ranges: [{ start: 5000, end: 5001 }] }, { hashlines: true });
      return {
        anchors: h.content
          .split('\n')
          .filter(Boolean)
          .map((l) => l.slice(0, l.indexOf('|'))),
      };
    }
    case 'range': {
      const h = await r({ mode: 'lines', ranges: [{ start: 5000, end: 5001 }] });
      return { expectedRangeSha256: createHash('sha256').update(Buffer.from(h.content)).digest('hex') };
    }
    case 'none':
      return {};
  }
}

describe.each(['body', 'raw'])('upserts of pg://docs/…/%s', (column) => {
  it.each(cases.map((c) => [c.name, c] as const))('%s: the value holds what the same upsert makes of a file', async (_name, c) => {
    const original = text();
    const { id, file } = await pair(original);
    const loc = `pg://docs/${id}/${column}`;
    const want = await upsert(file, c.req(await preconditionsFor(c.pre, file, false, Buffer.from(original))));
    const got = await upsertRemote(loc, c.req(await preconditionsFor(c.pre, loc, true, Buffer.from(original))));
    expect(got.applied).toBe(true);
    expect((await valueOf(id, column)).equals(readFileSync(file))).toBe(true);
    expect([got.range_before, got.range_after, got.affected]).toEqual([want.range_before, want.range_after, want.affected]);
    // The diff's hunks (its header names the path and version) are the file's.
    const hunks = (p: string) => p.split('\n').filter((l) => !/^(Index:|====|---|\+\+\+)/.test(l));
    expect(hunks(got.preview)).toEqual(hunks(want.preview));
    // The answer's version is the value's version now: a read agrees, and it takes the next edit.
    expect(got.version_after!.etag).toBe(await etagRemote(loc));
    await upsertRemote(loc, { target: T('insert', { at: 1 }), content: 'next', preconditions: { ifMatch: got.version_after!.etag } });
    expect((await readRemote(loc, { mode: 'head', lines: 1 })).content).toBe('next\n');
  });

  it('a dry run writes nothing and previews the edit', async () => {
    const { id } = await pair(text());
    const loc = `pg://docs/${id}/${column}`;
    const before = await valueOf(id, column);
    const r = await upsertRemote(loc, {
      target: T('replace', { start: 1, end: 1 }),
      content: 'X',
      preconditions: { ifMatch: await etagRemote(loc) },
      dryRun: true,
    });
    expect(r.applied).toBe(false);
    expect(r.preview).toContain('+X');
    expect((await valueOf(id, column)).equals(before)).toBe(true);
  });

  it('a stale etag, a stale sha256 and a changed anchor are precondition_failed and write nothing', async () => {
    const { id } = await pair(text());
    const loc = `pg://docs/${id}/${column}`;
    const old = await etagRemote(loc);
    const anchors = (await readRemote(loc, { mode: 'lines', ranges: [{ start: 2, end: 2 }] }, { hashlines: true })).content.split('|')[0]!;
    // Someone else writes line 2 meanwhile, outside Folio.
    await pgs.client.query(
      column === 'body'
        ? `UPDATE docs SET body = replace(body, 'line 2 —', 'LINE 2 —') WHERE id = $1`
        : `UPDATE docs SET raw = convert_to(replace(convert_from(raw, 'UTF8'), 'line 2 —', 'LINE 2 —'), 'UTF8') WHERE id = $1`,
      [id],
    );
    const now = await valueOf(id, column);
    for (const pre of [{ ifMatch: old }, { expectedSha256: createHash('sha256').update(text()).digest('hex') }, { anchors: [anchors] }]) {
      await expect(upsertRemote(loc, { target: T('replace', { start: 2, end: 2 }), content: 'mine', preconditions: pre })).rejects.toMatchObject({
        code: 'precondition_failed',
      });
    }
    expect((await valueOf(id, column)).equals(now)).toBe(true);
    // An anchor on a line nobody touched still holds on the new version (as for a file).
    const a3 = (await readRemote(loc, { mode: 'lines', ranges: [{ start: 3, end: 3 }] }, { hashlines: true })).content.split('|')[0]!;
    await upsertRemote(loc, { target: T('replace', { start: 3, end: 3 }), content: 'three', preconditions: { anchors: [a3] } });
    expect((await readRemote(loc, { mode: 'lines', ranges: [{ start: 2, end: 3 }] })).content).toBe(`LINE 2 — plain ${'z'.repeat(2)}\nthree\n`);
  });

  it('the version read before another writer changed the value never applies, even when the change came after the index', async () => {
    const { id } = await pair('a\nb\nc\n');
    const loc = `pg://docs/${id}/${column}`;
    const etag = await etagRemote(loc); // this process now holds the index of that version
    await pgs.client.query(`UPDATE docs SET ${column} = ${column === 'body' ? `'a\nB\nc\n'` : `'a\nB\nc\n'::bytea`} WHERE id = $1`, [id]);
    await expect(upsertRemote(loc, { target: T('replace', { start: 2, end: 2 }), content: 'mine', preconditions: { ifMatch: etag } })).rejects.toMatchObject({
      code: 'precondition_failed',
    });
    expect((await valueOf(id, column)).toString()).toBe('a\nB\nc\n');
  });

  it('create with if_none_match "*" makes a new value once; a second create is precondition_failed', async () => {
    const loc = `pg://docs/fresh-${column}/${column}`;
    const r = await upsertRemote(loc, { target: T('whole', {}), content: 'hello\nworld\n', preconditions: { ifNoneMatch: '*' } });
    expect(r.created).toBe(true);
    expect((await valueOf(`fresh-${column}`, column)).toString()).toBe('hello\nworld\n');
    expect(r.version_after!.etag).toBe(await etagRemote(loc));
    await expect(upsertRemote(loc, { target: T('whole', {}), content: 'again', preconditions: { ifNoneMatch: '*' } })).rejects.toMatchObject({
      code: 'precondition_failed',
    });
    expect((await valueOf(`fresh-${column}`, column)).toString()).toBe('hello\nworld\n');
  });
});

describe('8 writers on 8 connections race for one version', () => {
  it('exactly one wins each round, the others are precondition_failed, and no update is lost', async () => {
    const { id } = await pair('');
    const loc = `pg://docs/${id}/body`;
    const ROUNDS = 15;
    for (let round = 0; round < ROUNDS; round++) {
      forgetRemote();
      const etag = await etagRemote(loc);
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, w) =>
          upsertRemote(loc, { target: T('append', {}), content: `round ${round} writer ${w}`, preconditions: { ifMatch: etag } }),
        ),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      expect(won).toHaveLength(1);
      expect(lost.map((l) => (l.reason as { code: string }).code)).toEqual(Array(7).fill('precondition_failed'));
    }
    const lines = (await valueOf(id, 'body')).toString().split('\n').filter(Boolean);
    expect(lines).toHaveLength(ROUNDS);
    lines.forEach((l, round) => expect(l).toMatch(new RegExp(`^round ${round} writer [0-7]$`)));
  });
});
