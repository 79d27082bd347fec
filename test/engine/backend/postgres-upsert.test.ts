/**
 * Upserts of PostgreSQL values against a real server the suite starts: of 8 writers
 * on 8 connections racing for one version exactly one wins, every round. The upserts
 * every backend does alike (each target form against the same upsert of a local file,
 * dry run, stale preconditions, create) are in conformance-upsert.test.ts, over the
 * text and bytea columns.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpsertRequest } from '../../../src-main/engine/write/upsert.ts';
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

const T = (kind: string, extra: object) => ({ kind, units: 'lines', ...extra }) as UpsertRequest['target'];
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
