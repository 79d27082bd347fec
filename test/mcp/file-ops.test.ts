/**
 * delete_file and move_file through `folio mcp` with the real SDK client: under the
 * review policy each is a proposal that a person's approval applies and undo takes
 * back (a delete's bytes and mode, a move to its old name); under auto each is
 * applied at once with a journal id; the guard refuses denied, protected and
 * outside-the-root names (for a move, the destination too) and routes a move by the
 * stricter policy of its two names; redaction covers a delete's preview; every call
 * is in the audit log.
 */
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { forgetStores } from '../../src-main/review/index.ts';
import { connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-file-ops-');
const review = tmp.path('review');
const auto = tmp.path('auto');
const person = { kind: 'human' as const, name: 'reviewer' };
const AGENT = 'file-ops-agent';
const PW = 'Zq8Wm3Rt6Yp1Lk4Hs';
let r: McpSession;
let a: McpSession;

beforeAll(async () => {
  mkdirSync(review, { recursive: true });
  mkdirSync(join(auto, 'docs'), { recursive: true });
  mkdirSync(join(auto, 'src'), { recursive: true });
  writeFileSync(join(review, 'folio.config.json'), JSON.stringify({ create_folders: true }));
  writeFileSync(join(review, 'notes.txt'), 'alpha\nbeta\n', { mode: 0o640 });
  writeFileSync(join(review, 'old.md'), '# Old\n');
  writeFileSync(join(review, 'settings.ini'), `name = demo\npassword = ${PW}\n`);
  // Under --review auto, docs/ stays reviewed (a config rule is narrowed by the flag, never widened).
  writeFileSync(join(auto, 'folio.config.json'), JSON.stringify({ review: [{ glob: 'docs/**', policy: 'review' }] }));
  writeFileSync(join(auto, 'scratch.txt'), 'scratch\n', { mode: 0o600 });
  writeFileSync(join(auto, 'src/a.py'), 'A = 1\n');
  writeFileSync(join(auto, 'src/b.py'), 'B = 2\n');
  writeFileSync(join(auto, '.env'), 'TOKEN=1\n');
  writeFileSync(join(auto, 'docs/guide.md'), '# Guide\n');
  r = await connectStdio(review, { cacheDir: tmp.path('cache'), clientName: AGENT });
  a = await connectStdio(auto, { cacheDir: tmp.path('cache'), clientName: AGENT, flags: ['--review', 'auto'] });
});
afterAll(async () => {
  await r?.close();
  await a?.close();
  forgetStores();
  tmp.cleanup();
});

const etagVia = async (s: McpSession, path: string) => {
  const info = await s.call('file_info', { path });
  expect(info.isError, info.text).toBe(false);
  return info.body.version.etag as string;
};
const auditOf = (root: string) =>
  readFileSync(join(root, '.folio/audit.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) => JSON.parse(l) as { op: string; path?: string; outcome: string; code?: string; reason?: string; version_before?: string; version_after?: string },
    );

describe('tools/list', () => {
  it('offers delete and move as upsert targets (one tool fewer to pay for each turn); the server instructions name them', async () => {
    const { tools } = await r.client.listTools();
    const upsert = tools.find((t) => t.name === 'upsert')!;
    const target = (upsert.inputSchema.properties as Record<string, { properties: Record<string, unknown> }>).target!;
    expect(Object.keys(target.properties)).toEqual(expect.arrayContaining(['delete_file', 'move_to']));
    expect(tools.map((t) => t.name)).not.toContain('delete_file');
    expect(r.client.getInstructions()).toMatch(/delete_file: true/);
  });
});

describe('under the review policy', () => {
  it('delete_file is a proposal; approving deletes the file; undo brings back its bytes and mode', async () => {
    const p = join(review, 'notes.txt');
    const res = await r.call('upsert', { target: { delete_file: true }, path: 'notes.txt', if_match: await etagVia(r, 'notes.txt') });
    expect(res.isError, res.text).toBe(false);
    expect(res.body).toMatchObject({ applied: false, policy: 'review', status: 'pending', op: 'delete', path: 'notes.txt', actor: { name: AGENT } });
    expect(res.body.preview).toContain('-beta');
    expect(readFileSync(p, 'utf8')).toBe('alpha\nbeta\n');

    const shown = await handle('review_show', { id: res.body.proposal_id }, person, { workspace: review });
    expect(shown.proposal).toMatchObject({ status: 'pending', file_op: 'delete', path: 'notes.txt' });
    const approved = await handle('review_approve', { id: res.body.proposal_id }, person, { workspace: review });
    expect(approved.entry).toMatchObject({ file_op: 'delete', proposal_id: res.body.proposal_id, decided_by: person });
    expect(existsSync(p)).toBe(false);
    const status = await r.call('proposal_status', { proposal_id: res.body.proposal_id });
    expect(status.body).toMatchObject({ status: 'applied', decided_by: person, version_after: { etag: 'absent' } });

    await handle('review_undo', { id: approved.entry.id }, person, { workspace: review });
    expect(readFileSync(p, 'utf8')).toBe('alpha\nbeta\n');
    expect(statSync(p).mode & 0o777).toBe(0o640);
  });

  it('move_file is a proposal that moves nothing and makes no folder; approving moves it; undo moves it back', async () => {
    const from = join(review, 'old.md');
    const to = join(review, 'archive/2026/old.md');
    const res = await r.call('upsert', { path: 'old.md', target: { move_to: 'archive/2026/old.md' }, if_match: await etagVia(r, 'old.md') });
    expect(res.isError, res.text).toBe(false);
    expect(res.body).toMatchObject({ applied: false, policy: 'review', status: 'pending', op: 'move', to: 'archive/2026/old.md' });
    expect(res.body.preview).toBe(`rename from ${from}\nrename to ${to}\n`);
    expect(existsSync(join(review, 'archive'))).toBe(false);

    const approved = await handle('review_approve', { id: res.body.proposal_id }, person, { workspace: review });
    expect(approved.entry).toMatchObject({ file_op: 'move', path: 'old.md', to: 'archive/2026/old.md' });
    expect(existsSync(from)).toBe(false);
    expect(readFileSync(to, 'utf8')).toBe('# Old\n');

    await handle('review_undo', { path: to }, person, { workspace: review });
    expect(readFileSync(from, 'utf8')).toBe('# Old\n');
    expect(existsSync(to)).toBe(false);
  });

  it('a move whose destination appeared before approval becomes a conflict and moves nothing', async () => {
    writeFileSync(join(review, 'draft.txt'), 'draft\n');
    const res = await r.call('upsert', { path: 'draft.txt', target: { move_to: 'final.txt' }, if_match: await etagVia(r, 'draft.txt') });
    expect(res.body.status).toBe('pending');
    writeFileSync(join(review, 'final.txt'), 'someone else\n');
    await expect(handle('review_approve', { id: res.body.proposal_id }, person, { workspace: review })).rejects.toMatchObject({
      code: 'precondition_failed',
      details: { failed: ['destination_exists'], status: 'conflict' },
    });
    expect(readFileSync(join(review, 'draft.txt'), 'utf8')).toBe('draft\n');
    expect(readFileSync(join(review, 'final.txt'), 'utf8')).toBe('someone else\n');
    expect((await r.call('proposal_status', { proposal_id: res.body.proposal_id })).body.status).toBe('conflict');
  });

  it("a delete's preview of a file holding a secret is redacted like a read", async () => {
    const res = await r.call('upsert', { target: { delete_file: true }, path: 'settings.ini', if_match: await etagVia(r, 'settings.ini') });
    expect(res.isError, res.text).toBe(false);
    expect(res.body.preview).toContain('-name = demo');
    expect(res.text).not.toContain(PW.slice(0, 8));
    await handle('review_reject', { id: res.body.proposal_id, reason: 'keep it' }, person, { workspace: review });
    expect(readFileSync(join(review, 'settings.ini'), 'utf8')).toContain(PW);
  });
});

describe('under the auto policy', () => {
  it('delete_file is applied at once with a journal id; a person undoes it, bytes and mode back', async () => {
    const p = join(auto, 'scratch.txt');
    const res = await a.call('upsert', { target: { delete_file: true }, path: 'scratch.txt', if_match: await etagVia(a, 'scratch.txt') });
    expect(res.isError, res.text).toBe(false);
    expect(res.body).toMatchObject({ applied: true, policy: 'auto', op: 'delete', version_after: null });
    expect(res.body.journal_id).toMatch(/^j-/);
    expect(existsSync(p)).toBe(false);
    const undone = await handle('review_undo', { id: res.body.journal_id, include_others: true }, person, { workspace: auto });
    expect(undone.entry).toMatchObject({ id: res.body.journal_id, undone: true, actor: { kind: 'agent', name: AGENT } });
    expect(readFileSync(p, 'utf8')).toBe('scratch\n');
    expect(statSync(p).mode & 0o777).toBe(0o600);
  });

  it('move_file is applied at once with a journal id; undo moves it back; dry_run moves nothing', async () => {
    const from = join(auto, 'src/a.py');
    const to = join(auto, 'src/renamed.py');
    const dry = await a.call('upsert', { path: 'src/a.py', target: { move_to: 'src/renamed.py' }, if_match: await etagVia(a, 'src/a.py'), dry_run: true });
    expect(dry.body).toMatchObject({ applied: false, dry_run: true, policy: 'auto' });
    expect(existsSync(to)).toBe(false);
    const res = await a.call('upsert', { path: 'src/a.py', target: { move_to: 'src/renamed.py' }, if_match: await etagVia(a, 'src/a.py') });
    expect(res.isError, res.text).toBe(false);
    expect(res.body).toMatchObject({ applied: true, policy: 'auto', op: 'move', path: from, to });
    expect(res.body.journal_id).toMatch(/^j-/);
    expect(existsSync(from)).toBe(false);
    expect(readFileSync(to, 'utf8')).toBe('A = 1\n');
    await handle('review_undo', { id: res.body.journal_id, include_others: true }, person, { workspace: auto });
    expect(readFileSync(from, 'utf8')).toBe('A = 1\n');
    expect(existsSync(to)).toBe(false);
  });

  it('a move into or out of a reviewed folder is a proposal: the stricter policy of the two names', async () => {
    const into = await a.call('upsert', { path: 'src/b.py', target: { move_to: 'docs/b.py' }, if_match: await etagVia(a, 'src/b.py') });
    expect(into.body).toMatchObject({ applied: false, policy: 'review', status: 'pending' });
    const outOf = await a.call('upsert', { path: 'docs/guide.md', target: { move_to: 'guide.md' }, if_match: await etagVia(a, 'docs/guide.md') });
    expect(outOf.body).toMatchObject({ applied: false, policy: 'review', status: 'pending' });
    expect(readFileSync(join(auto, 'src/b.py'), 'utf8')).toBe('B = 2\n');
    expect(readFileSync(join(auto, 'docs/guide.md'), 'utf8')).toBe('# Guide\n');
    expect(existsSync(join(auto, 'docs/b.py'))).toBe(false);
    expect(existsSync(join(auto, 'guide.md'))).toBe(false);
  });
});

describe('refused', () => {
  it('a denied, protected, state or outside-the-root destination is permission_denied and the source stays', async () => {
    const etag = await etagVia(a, 'src/b.py');
    // A folder link inside the root that leads out of it.
    symlinkSync(tmp.dir, join(auto, 'out-link'));
    for (const to of ['.env.local', 'keys/server.pem', '../escape.py', '.folio/x.py', 'folio.config.json', join(tmp.dir, 'abs.py'), 'out-link/linked.py']) {
      const res = await a.call('upsert', { path: 'src/b.py', target: { move_to: to }, if_match: etag });
      expect(res.isError, to).toBe(true);
      expect(res.body.error.code, `${to}: ${res.text}`).toBe('permission_denied');
    }
    expect(readFileSync(join(auto, 'src/b.py'), 'utf8')).toBe('B = 2\n');
    expect(existsSync(join(tmp.dir, 'escape.py'))).toBe(false);
    expect(existsSync(join(tmp.dir, 'abs.py'))).toBe(false);
    expect(existsSync(join(tmp.dir, 'linked.py'))).toBe(false);
    expect(existsSync(join(auto, '.env.local'))).toBe(false);
  });

  it('deleting or moving a denied or protected file, or one outside the root, is permission_denied', async () => {
    writeFileSync(join(tmp.dir, 'outside.txt'), 'o\n');
    for (const path of ['.env', 'folio.config.json', '../outside.txt', '.folio/audit.jsonl']) {
      const del = await a.call('upsert', { target: { delete_file: true }, path, if_match: 'x' });
      expect(del.body.error?.code, `delete ${path}: ${del.text}`).toBe('permission_denied');
      const mv = await a.call('upsert', { path, target: { move_to: 'moved.txt' }, if_match: 'x' });
      expect(mv.body.error?.code, `move ${path}: ${mv.text}`).toBe('permission_denied');
    }
    expect(readFileSync(join(auto, '.env'), 'utf8')).toBe('TOKEN=1\n');
    expect(existsSync(join(tmp.dir, 'outside.txt'))).toBe(true);
    expect(existsSync(join(auto, 'moved.txt'))).toBe(false);
  });

  it('missing folders without create_folders, a stale etag, no precondition and an existing destination change nothing', async () => {
    const etag = await etagVia(a, 'src/b.py');
    expect((await a.call('upsert', { path: 'src/b.py', target: { move_to: 'new/dir/b.py' }, if_match: etag })).body.error).toMatchObject({
      code: 'permission_denied',
      missing_folders: ['new', 'dir'],
    });
    expect((await a.call('upsert', { target: { delete_file: true }, path: 'src/b.py', if_match: 'stale' })).body.error).toMatchObject({
      code: 'precondition_failed',
      failed: ['if_match'],
      current_version: { etag },
    });
    expect((await a.call('upsert', { target: { delete_file: true }, path: 'src/b.py' })).body.error.code).toBe('precondition_required');
    writeFileSync(join(auto, 'src/c.py'), 'C = 3\n');
    expect((await a.call('upsert', { path: 'src/b.py', target: { move_to: 'src/c.py' }, if_match: etag })).body.error).toMatchObject({
      code: 'precondition_failed',
      failed: ['destination_exists'],
    });
    expect(readFileSync(join(auto, 'src/b.py'), 'utf8')).toBe('B = 2\n');
    expect(readFileSync(join(auto, 'src/c.py'), 'utf8')).toBe('C = 3\n');
    expect(existsSync(join(auto, 'new'))).toBe(false);
  });
});

describe('audit', () => {
  /** The tool was upsert; the reason says which whole-file change it was. */
  const opOf = (e: { reason?: string }) => /^(delete_file|move_file)\b/.exec(e.reason ?? '')?.[1];
  it('records every delete / move call: applied ones with versions, proposals with their id, refusals with their code', () => {
    const lines = auditOf(auto).filter((e) => e.op === 'upsert');
    const applied = lines.filter((e) => e.outcome === 'ok' && e.version_after !== undefined);
    expect(applied.map((e) => [opOf(e), e.path])).toEqual([['move_file', join(auto, 'src/a.py')]]);
    expect(applied[0]!.reason).toBe(`move_file to ${join(auto, 'src/renamed.py')}`);
    const deleted = lines.find((e) => opOf(e) === 'delete_file' && e.outcome === 'ok');
    expect(deleted).toMatchObject({ path: join(auto, 'scratch.txt'), version_before: expect.any(String) });
    const proposals = lines.filter((e) => / proposal /.test(` ${e.reason ?? ''}`));
    expect(proposals.map((e) => e.path)).toEqual([join(auto, 'src/b.py'), join(auto, 'docs/guide.md')]);
    expect(proposals[0]!.reason).toMatch(/^move_file: proposal p-\w+ \(to .*docs\/b\.py\)$/);
    const refused = lines.filter((e) => e.outcome === 'error');
    // 7 destinations, 4 sources x 2 changes, then missing folders, stale, no precondition, destination exists.
    expect(refused).toHaveLength(7 + 8 + 4);
    expect(refused.filter((e) => e.code === 'permission_denied')).toHaveLength(7 + 8 + 1);
    expect(refused.every((e) => e.path !== undefined)).toBe(true);
    const ofReview = auditOf(review).filter((e) => e.op === 'upsert' && opOf(e));
    expect(ofReview.map((e) => [opOf(e), e.outcome])).toEqual([
      ['delete_file', 'ok'],
      ['move_file', 'ok'],
      ['move_file', 'ok'],
      ['delete_file', 'ok'],
    ]);
    expect(readFileSync(join(review, '.folio/audit.jsonl'), 'utf8')).not.toContain(PW.slice(0, 8));
  });
});
