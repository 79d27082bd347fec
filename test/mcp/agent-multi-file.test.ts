/**
 * Several files in one call through `folio mcp` with the real SDK client: edit
 * (edits[i].path) and upsert (targets[i].path with that file's if_match), all or
 * nothing, under auto (one journal group, undone as one) and under review (one
 * proposal per file, approved or rejected together), through every guard: a denied
 * or outside file, a secret, a stale file, refuse the whole call and write nothing.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handle } from '../../src-main/api/handle.ts';
import { connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-multi-');
const auto = tmp.path('auto');
const review = tmp.path('review');
const person = { kind: 'human' as const, name: 'reviewer' };
const FILES = {
  'src/api.ts': 'import { fetchOrder } from "./service";\nexport const get = () => fetchOrder(1);\n',
  'src/service.ts': 'export function fetchOrder(id: number) {\n  return id;\n}\n',
  'src/cache.ts': 'const hit = fetchOrder;\n',
};
let a: McpSession;
let r: McpSession;

function seed(root: string): void {
  mkdirSync(join(root, 'src'), { recursive: true });
  for (const [p, text] of Object.entries(FILES)) writeFileSync(join(root, p), text);
  writeFileSync(join(root, 'settings.ini'), 'name = demo\npassword = hunter2-very-secret\n');
}
const text = (root: string, p: string) => readFileSync(join(root, p), 'utf8');
const renameAll = Object.keys(FILES).map((path) => ({ path, old_text: 'fetchOrder', new_text: 'loadOrder', replace_all: true }));

beforeAll(async () => {
  seed(auto);
  seed(review);
  a = await connectStdio(auto, { cacheDir: tmp.path('cache'), flags: ['--review', 'auto'] });
  r = await connectStdio(review, { cacheDir: tmp.path('cache') });
});
afterAll(async () => {
  await a?.close();
  await r?.close();
  tmp.cleanup();
});

describe('edit over several files', () => {
  it('a failing quote in the last file refuses the call, names the file, and writes none', async () => {
    const bad = [...renameAll.slice(0, 2), { path: 'src/cache.ts', old_text: 'fetchOrders', new_text: 'x' }];
    const res = await a.call('edit', { edits: bad });
    expect(res.body.error).toMatchObject({ code: 'no_match', file: 2 });
    for (const [p, t] of Object.entries(FILES)) expect(text(auto, p)).toBe(t);
  });

  it('a denied file, a path outside the root, or a quote of a secret refuse the whole call', async () => {
    for (const extra of [
      { path: '.env', old_text: 'A', new_text: 'B' },
      { path: '../outside.txt', old_text: 'A', new_text: 'B' },
      { path: 'settings.ini', old_text: 'hunter2-very-secret', new_text: 'x' },
    ]) {
      const res = await a.call('edit', { edits: [...renameAll, extra] });
      expect(res.isError, extra.path).toBe(true);
      // A quote that reaches into a secret matches nothing the agent saw: no_match, as a search of the redacted text.
      expect(['permission_denied', 'redacted', 'no_match']).toContain(res.body.error.code);
      expect(res.text).not.toContain('hunter2');
    }
    for (const [p, t] of Object.entries(FILES)) expect(text(auto, p)).toBe(t);
  });

  it('a dry run previews every file and writes none', async () => {
    const res = await a.call('edit', { edits: renameAll, dry_run: true });
    expect(res.isError, res.text).toBe(false);
    expect(res.body.files.map((f: { path: string; dry_run: boolean }) => [f.path.replace(`${auto}/`, ''), f.dry_run])).toEqual(
      Object.keys(FILES).map((p) => [p, true]),
    );
    for (const [p, t] of Object.entries(FILES)) expect(text(auto, p)).toBe(t);
  });

  it('under auto: every file applied as one journal group, undone as one by a person', async () => {
    const res = await a.call('edit', { edits: renameAll });
    expect(res.isError, res.text).toBe(false);
    expect(res.body).toMatchObject({ applied: true, policy: 'auto', group_id: expect.stringMatching(/^g-/) });
    expect(res.body.files).toHaveLength(3);
    for (const [p, t] of Object.entries(FILES)) expect(text(auto, p)).toBe(t.replaceAll('fetchOrder', 'loadOrder'));
    const history = (await handle('review_history', {}, person, { workspace: auto })) as { entries: { group?: { id: string } }[] };
    expect(history.entries.filter((e) => e.group?.id === res.body.group_id)).toHaveLength(3);
    await handle('review_undo', { include_others: true }, person, { workspace: auto });
    for (const [p, t] of Object.entries(FILES)) expect(text(auto, p), p).toBe(t);
    const audit = readFileSync(join(auto, '.folio/audit.jsonl'), 'utf8');
    expect(audit).toContain(`group ${res.body.group_id}`);
  });
});

describe('upsert over several files', () => {
  it('each other file needs its own if_match; a stale one refuses the call and writes none', async () => {
    const etag = async (p: string) => (await a.call('file_info', { path: p })).body.version.etag as string;
    const noTag = await a.call('upsert', {
      path: 'src/api.ts',
      if_match: await etag('src/api.ts'),
      targets: [
        { insert: { at: 1 }, content: '// a' },
        { path: 'src/cache.ts', insert: { at: 1 }, content: '// c' },
      ],
    });
    expect(noTag.body.error).toMatchObject({ code: 'precondition_required' });
    const stale = await a.call('upsert', {
      path: 'src/api.ts',
      if_match: await etag('src/api.ts'),
      targets: [
        { insert: { at: 1 }, content: '// a' },
        { path: 'src/cache.ts', insert: { at: 1 }, content: '// c', if_match: 'stale-etag' },
      ],
    });
    expect(stale.body.error).toMatchObject({ code: 'precondition_failed', file: 1 });
    for (const [p, t] of Object.entries(FILES)) expect(text(auto, p)).toBe(t);
    const ok = await a.call('upsert', {
      path: 'src/api.ts',
      if_match: await etag('src/api.ts'),
      targets: [
        { insert: { at: 1 }, content: '// a' },
        { path: 'src/cache.ts', insert: { at: 1 }, content: '// c', if_match: await etag('src/cache.ts') },
      ],
    });
    expect(ok.isError, ok.text).toBe(false);
    expect(text(auto, 'src/api.ts').startsWith('// a\n')).toBe(true);
    expect(text(auto, 'src/cache.ts').startsWith('// c\n')).toBe(true);
  });
});

describe('under review', () => {
  it('one proposal per file in one group; approving one applies all, and the agent sees each applied', async () => {
    const res = await r.call('edit', { edits: renameAll });
    expect(res.isError, res.text).toBe(false);
    expect(res.body).toMatchObject({ applied: false, policy: 'review', group_id: expect.stringMatching(/^g-/) });
    const ids = res.body.files.map((f: { proposal_id: string }) => f.proposal_id);
    expect(new Set(ids).size).toBe(3);
    for (const [p, t] of Object.entries(FILES)) expect(text(review, p)).toBe(t);
    await handle('review_approve', { id: ids[1] }, person, { workspace: review });
    for (const [p, t] of Object.entries(FILES)) expect(text(review, p)).toBe(t.replaceAll('fetchOrder', 'loadOrder'));
    for (const id of ids) expect((await r.call('proposal_status', { proposal_id: id })).body.status).toBe('applied');
  });

  it('rejecting one rejects the group, with the reason each proposal carries', async () => {
    const res = await r.call('edit', { edits: Object.keys(FILES).map((path) => ({ path, old_text: 'loadOrder', new_text: 'getOrder', replace_all: true })) });
    const ids = res.body.files.map((f: { proposal_id: string }) => f.proposal_id);
    await handle('review_reject', { id: ids[0], reason: 'keep loadOrder' }, person, { workspace: review });
    for (const id of ids) expect((await r.call('proposal_status', { proposal_id: id })).body).toMatchObject({ status: 'rejected', reason: 'keep loadOrder' });
    expect(text(review, 'src/service.ts')).toContain('loadOrder');
  });
});

describe('no probing of names the agent may not open', () => {
  it('a missing file outside the root or under a denied name answers permission_denied, as an existing one does', async () => {
    writeFileSync(join(auto, '.env'), 'A=1\n');
    writeFileSync(join(tmp.dir, 'exists-outside.txt'), 'x\n');
    for (const path of ['../exists-outside.txt', '../missing-outside.txt', '.env', '.env.missing', 'keys/missing.pem']) {
      for (const [tool, args] of [
        ['read', { path, head: 1 }],
        ['edit', { path, edits: [{ old_text: 'A', new_text: 'B' }] }],
      ] as const) {
        const res = await a.call(tool, args);
        expect(res.body.error?.code, `${tool} ${path}`).toBe('permission_denied');
      }
    }
  });
});

describe('a group that went stale', () => {
  it('one file changed under a pending group: approving writes no file and marks every proposal of the group conflict', async () => {
    const res = await r.call('edit', {
      edits: Object.keys(FILES).map((path) => ({ path, old_text: 'loadOrder', new_text: 'fetchOrder2', replace_all: true })),
    });
    expect(res.isError, res.text).toBe(false);
    const ids = res.body.files.map((f: { proposal_id: string }) => f.proposal_id);
    // A person rewrites the middle file so the quote is gone.
    writeFileSync(join(review, 'src/service.ts'), 'export function getOrder() {}\n');
    const before = Object.keys(FILES).map((p) => text(review, p));
    const err = await handle('review_approve', { id: ids[0] }, person, { workspace: review }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'no_match' });
    expect(Object.keys(FILES).map((p) => text(review, p))).toEqual(before);
    for (const id of ids) expect((await r.call('proposal_status', { proposal_id: id })).body.status).toBe('conflict');
  });
});
