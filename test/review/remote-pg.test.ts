/**
 * Review on a PostgreSQL value, against a real server: an agent's edit becomes a
 * proposal (dry run on the value, nothing written), approval writes it by one
 * conditional splice with the journal's intent ahead of it, and undo and redo put
 * the bytes back and forth by the same splice, guarded by the region's hash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approve, propose, redo, undo, history, forgetStores, reject, showProposal } from '../../src-main/review/index.ts';
import { configureBackends } from '../../src-main/backends/index.ts';
import { closePostgresPools } from '../../src-main/backends/postgres/postgres.ts';
import { readRemote } from '../../src-main/engine/backend/remote.ts';
import { startPostgres, type TestPostgres } from '../fixtures/postgres.ts';
import { engineTempDir } from '../fixtures/engine-env.ts';
import { readdirSync } from 'node:fs';

const tmp = engineTempDir();
let pgs: TestPostgres;
const agent = { kind: 'agent' as const, name: 'bot' };
const person = { kind: 'human' as const, name: 'pat' };

beforeAll(async () => {
  pgs = await startPostgres();
  configureBackends({ pg: { host: pgs.host, port: pgs.port, user: pgs.user, database: pgs.database } });
  await pgs.client.query(`CREATE TABLE docs (id text PRIMARY KEY, body text)`);
});
afterAll(async () => {
  forgetStores();
  await closePostgresPools();
  await pgs?.stop();
});

const body = async (id: string) => (await pgs.client.query('SELECT body FROM docs WHERE id = $1', [id])).rows[0]?.body as string;
const etag = async (loc: string) => (await readRemote(loc, { mode: 'head', lines: 0 })).version.etag;

describe('review of pg:// values', () => {
  it('propose writes nothing; approve applies; undo and redo restore each side exactly', async () => {
    const root = tmp.path('ws1');
    (await import('node:fs')).mkdirSync(root);
    const original = 'one\ntwo\nthree\n' + 'filler line\n'.repeat(10000);
    await pgs.client.query(`INSERT INTO docs VALUES ('r1', $1)`, [original]);
    const loc = 'pg://docs/r1/body';
    const p = await propose(root, agent, {
      path: loc,
      target: { kind: 'replace', start: 2, end: 2, units: 'lines' },
      content: 'TWO ✓',
      preconditions: { ifMatch: await etag(loc) },
    });
    expect(p.preview).toContain('+TWO ✓');
    expect(await body('r1')).toBe(original);
    const a = await approve(root, person, p.proposal_id);
    expect(a.proposal.status).toBe('applied');
    const edited = original.replace('two\n', 'TWO ✓\n');
    expect(await body('r1')).toBe(edited);
    expect(history(root, { path: loc }).map((e) => e.path)).toEqual([loc]);
    // No intent is left behind.
    expect(readdirSync(`${root}/.folio/review/intents`).length).toBe(0);

    await undo(root, person);
    expect(await body('r1')).toBe(original);
    await redo(root, person);
    expect(await body('r1')).toBe(edited);
    await undo(root, person);
    expect(await body('r1')).toBe(original);
  });

  it('an undo whose region was changed outside Folio is a conflict and writes nothing', async () => {
    const root = tmp.path('ws2');
    (await import('node:fs')).mkdirSync(root);
    await pgs.client.query(`INSERT INTO docs VALUES ('r2', 'a\nb\nc\n')`);
    const loc = 'pg://docs/r2/body';
    const p = await propose(root, agent, {
      path: loc,
      target: { kind: 'replace', start: 2, end: 2, units: 'lines' },
      content: 'B',
      preconditions: { ifMatch: await etag(loc) },
    });
    await approve(root, person, p.proposal_id);
    await pgs.client.query(`UPDATE docs SET body = 'a\nX\nc\n' WHERE id = 'r2'`);
    await expect(undo(root, person)).rejects.toMatchObject({ code: 'conflict' });
    expect(await body('r2')).toBe('a\nX\nc\n');
  });

  it('a proposal whose value changed before approval becomes a conflict; nothing is written', async () => {
    const root = tmp.path('ws3');
    (await import('node:fs')).mkdirSync(root);
    await pgs.client.query(`INSERT INTO docs VALUES ('r3', 'a\nb\nc\n')`);
    const loc = 'pg://docs/r3/body';
    const p = await propose(root, agent, {
      path: loc,
      target: { kind: 'replace', start: 2, end: 2, units: 'lines' },
      content: 'B',
      preconditions: { ifMatch: await etag(loc) },
    });
    await pgs.client.query(`UPDATE docs SET body = 'a\nb\nc\nd\n' WHERE id = 'r3'`);
    await expect(approve(root, person, p.proposal_id)).rejects.toMatchObject({ code: 'precondition_failed' });
    expect(showProposal(root, p.proposal_id).proposal.status).toBe('conflict');
    expect(await body('r3')).toBe('a\nb\nc\nd\n');
    const q = await propose(root, agent, {
      path: loc,
      target: { kind: 'insert', at: 1, units: 'lines' },
      content: 'zero',
      preconditions: { ifMatch: await etag(loc) },
    });
    expect((await reject(root, person, q.proposal_id, 'no')).status).toBe('rejected');
    expect(await body('r3')).toBe('a\nb\nc\nd\n');
  });
});
