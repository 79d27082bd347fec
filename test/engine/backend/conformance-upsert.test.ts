/**
 * Upserts of one value in each remote backend (test/fixtures/backend-kinds.ts: pg bytea,
 * pg text, az:// on Azurite, s3:// on the S3 test server), through the engine as the doors
 * call it: every target form and precondition gives the same bytes as the same upsert of a
 * local file (the local upsert is the oracle, tested on its own in
 * test/engine/upsert*.test.ts), a dry run writes nothing, a stale version writes nothing,
 * and a create happens once. A new backend is one adapter in backend-kinds.ts, and these
 * tests run on it.
 *
 * Of 8 writers racing from one version, exactly one wins each round (pg on 8
 * connections; Azurite decides itself; s3:// is decided by the conditional proxy in
 * front of the local servers, object-stores.ts). What only one backend does (the S3
 * conditional proxy's own answers, multipart uploads, objects composed on the server)
 * stays in that backend's own file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { read } from '../../../src-main/engine/read/read.ts';
import { upsert, type UpsertRequest } from '../../../src-main/engine/write/upsert.ts';
import { forgetRemote, readRemote } from '../../../src-main/engine/backend/remote.ts';
import { upsertRemote } from '../../../src-main/engine/backend/remote-upsert.ts';
import { BACKEND_KINDS, startBackendKinds, stopBackendKinds, type BackendKind } from '../../fixtures/backend-kinds.ts';
import { engineTempDir } from '../../fixtures/engine-env.ts';

const tmp = engineTempDir();

beforeAll(async () => {
  // 8 racing writers each hold a connection of pg's pool.
  await startBackendKinds({ pg: { maxConnections: 10 } });
});

afterAll(async () => {
  await stopBackendKinds();
});

/** ~400 KiB: lines across several 64 KiB blocks, multi-byte characters. */
function text(): string {
  const out: string[] = [];
  for (let i = 1; i <= 6000; i++) out.push(`line ${i} — ${i % 11 === 0 ? 'ünïcödé ✓' : 'plain'} ${'z'.repeat(i % 40)}\n`);
  return out.join('');
}

let k = 0;
/** A fresh value holding `content`, and a local file with the same bytes. */
async function pair(kind: BackendKind, content: string | Buffer): Promise<{ key: string; loc: string; file: string }> {
  const key = `up/obj ${k++}.txt`; // a space and a slash: the locator is percent-encoded
  await kind.put(key, Buffer.from(content));
  const file = tmp.path(`${kind.scheme}-${k}.txt`);
  writeFileSync(file, content);
  return { key, loc: kind.locator(key), file };
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

describe.each(BACKEND_KINDS.map((kind) => [kind.name, kind] as const))('%s: upserts', (_name, kind) => {
  it.each(cases.map((c) => [c.name, c] as const))('%s: the value holds what the same upsert makes of a file', async (_case, c) => {
    const original = text();
    const { key, loc, file } = await pair(kind, original);
    const want = await upsert(file, c.req(await preconditionsFor(c.pre, file, false, Buffer.from(original))));
    const got = await upsertRemote(loc, c.req(await preconditionsFor(c.pre, loc, true, Buffer.from(original))));
    expect(got.applied).toBe(true);
    expect((await kind.get(key)).equals(readFileSync(file))).toBe(true);
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
    const { key, loc } = await pair(kind, text());
    const before = await kind.get(key);
    const r = await upsertRemote(loc, {
      target: T('replace', { start: 1, end: 1 }),
      content: 'X',
      preconditions: { ifMatch: await etagRemote(loc) },
      dryRun: true,
    });
    expect(r.applied).toBe(false);
    expect(r.preview).toContain('+X');
    expect((await kind.get(key)).equals(before)).toBe(true);
    expect(await kind.version(key)).toBeDefined();
  });

  it('a stale etag, a stale sha256 and a changed anchor are precondition_failed and write nothing', async () => {
    const { key, loc } = await pair(kind, text());
    const old = await etagRemote(loc);
    const anchors = (await readRemote(loc, { mode: 'lines', ranges: [{ start: 2, end: 2 }] }, { hashlines: true })).content.split('|')[0]!;
    // Someone else rewrites line 2 meanwhile, outside Folio.
    await kind.put(key, Buffer.from(text().replace('line 2 —', 'LINE 2 —')));
    const now = await kind.get(key);
    for (const pre of [{ ifMatch: old }, { expectedSha256: createHash('sha256').update(text()).digest('hex') }, { anchors: [anchors] }]) {
      await expect(upsertRemote(loc, { target: T('replace', { start: 2, end: 2 }), content: 'mine', preconditions: pre })).rejects.toMatchObject({
        code: 'precondition_failed',
      });
    }
    expect((await kind.get(key)).equals(now)).toBe(true);
    // An anchor on a line nobody touched still holds on the new version (as for a file).
    const a3 = (await readRemote(loc, { mode: 'lines', ranges: [{ start: 3, end: 3 }] }, { hashlines: true })).content.split('|')[0]!;
    await upsertRemote(loc, { target: T('replace', { start: 3, end: 3 }), content: 'three', preconditions: { anchors: [a3] } });
    expect((await readRemote(loc, { mode: 'lines', ranges: [{ start: 2, end: 3 }] })).content).toBe(`LINE 2 — plain ${'z'.repeat(2)}\nthree\n`);
  });

  it('the version read before another writer changed the value never applies, even when the change came after the index', async () => {
    const { key, loc } = await pair(kind, 'a\nb\nc\n');
    const etag = await etagRemote(loc); // this process now holds the index of that version
    await kind.put(key, Buffer.from('a\nB\nc\n'));
    await expect(upsertRemote(loc, { target: T('replace', { start: 2, end: 2 }), content: 'mine', preconditions: { ifMatch: etag } })).rejects.toMatchObject({
      code: 'precondition_failed',
    });
    expect((await kind.get(key)).toString()).toBe('a\nB\nc\n');
  });

  it('create with if_none_match "*" makes a new value once; a second create is precondition_failed', async () => {
    const key = `fresh/new ${kind.name}.txt`;
    const loc = kind.locator(key);
    const r = await upsertRemote(loc, { target: T('whole', {}), content: 'hello\nworld\n', preconditions: { ifNoneMatch: '*' } });
    expect(r.created).toBe(true);
    expect((await kind.get(key)).toString()).toBe('hello\nworld\n');
    expect(r.version_after!.etag).toBe(await etagRemote(loc));
    await expect(upsertRemote(loc, { target: T('whole', {}), content: 'again', preconditions: { ifNoneMatch: '*' } })).rejects.toMatchObject({
      code: 'precondition_failed',
    });
    expect((await kind.get(key)).toString()).toBe('hello\nworld\n');
  });

  it('8 writers race for one version: exactly one wins each round, the others are precondition_failed, no update is lost', async (ctx) => {
    const skip = kind.raceSkip();
    if (skip) ctx.skip(skip);
    const { key, loc } = await pair(kind, '');
    const ROUNDS = 8;
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
    const lines = (await kind.get(key)).toString().split('\n').filter(Boolean);
    expect(lines).toHaveLength(ROUNDS);
    lines.forEach((l, round) => expect(l).toMatch(new RegExp(`^round ${round} writer [0-7]$`)));
    const open = await kind.openUploads(key);
    if (open) expect(open).toEqual([]);
  });
});
