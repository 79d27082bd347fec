/**
 * The change model: every proposal kind (quotes, several edits, byte targets, the
 * whole file, create, delete, move) is told as line hunks of its file, checked here
 * against the file's lines spliced in plain JS; the hunks move with edits elsewhere
 * and a person's edit of a hunk's own line makes the proposal a conflict, even when
 * its quote still matches.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { proposalStatus } from '../../src-main/api/agent/proposal-status.ts';
import { ReviewProposal } from '../../src-main/api/schemas.ts';
import { fileInfo } from '../../src-main/engine/read/file-info.ts';
import { approve, propose, proposeFileOp, showProposal } from '../../src-main/review/index.ts';
import { proposeGroup } from '../../src-main/review/proposals.ts';
import { applyOwnEdit } from '../../src-main/review/journal.ts';
import { proposalView } from '../../src-main/review/views.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-change-model-');
afterAll(() => tmp.cleanup());
const AGENT = { kind: 'agent', name: 'claude' } as const;
const ME = { kind: 'human', name: 'ana' } as const;
let n = 0;

const SOURCE = [
  "import { fetch } from './http';",
  '',
  'export const config = {',
  "  host: 'localhost',",
  '  timeout: 504,',
  '  retries: 3,',
  '};',
  '',
  'export function load(url: string) {',
  '  return fetch(url, { timeout: config.timeout });',
  '}',
  '',
  'export function save(url: string, body: string) {',
  "  return fetch(url, { method: 'POST', body });",
  '}',
];

function workspace(lines = SOURCE, name = 'client.ts'): { root: string; path: string } {
  const root = tmp.path(`ws${++n}`);
  mkdirSync(root, { recursive: true });
  const path = join(root, name);
  writeFileSync(path, lines.map((l) => `${l}\n`).join(''));
  return { root, path };
}

const etagOf = async (p: string) => (await fileInfo(p)).version.etag;
/** An agent's quote edit: [old, new] pairs (a third item true: replace_all). */
const proposeQuotes = (root: string, path: string, pairs: [string, string, true?][]) =>
  propose(root, AGENT, {
    path,
    target: { kind: 'whole' },
    content: '',
    preconditions: {},
    quoted: pairs.map(([oldText, newText, all]) => ({ oldText, newText, ...(all ? { replaceAll: true } : {}) })),
  });
const viewOf = (root: string, id: string) => ReviewProposal.parse(proposalView(root, showProposal(root, id).proposal));

describe('every kind as line hunks', () => {
  it('a quote edit of three places: three hunks with their old and new lines, and a label saying where', async () => {
    const { root, path } = workspace();
    const r = await proposeQuotes(root, path, [
      ['timeout: 504,', 'timeout: 504, // gateway timeout'],
      ['return fetch(url, { timeout', 'return fetch(url.trim(), { timeout'],
      ["method: 'POST'", "method: 'PUT'"],
    ]);
    const c = viewOf(root, r.proposal_id).change;
    expect(c).toMatchObject({ kind: 'edit', how: 'quote', per_hunk: true, label: 'quote edit, 3 hunks, lines 5, 10, 14' });
    expect(c.hunks.map((h) => [h.index, h.start_line, h.old_lines, h.new_lines])).toEqual([
      [1, 5, [SOURCE[4]], ['  timeout: 504, // gateway timeout']],
      [2, 10, [SOURCE[9]], ['  return fetch(url.trim(), { timeout: config.timeout });']],
      [3, 14, [SOURCE[13]], ["  return fetch(url, { method: 'PUT', body });"]],
    ]);
  });

  it('replace_all: one decision unit, a hunk per place', async () => {
    const { root, path } = workspace();
    const r = await proposeQuotes(root, path, [
      ['fetch(url', 'request(url', true],
      ["host: 'localhost'", "host: '0.0.0.0'"],
    ]);
    const c = viewOf(root, r.proposal_id).change;
    expect(c.hunks.map((h) => [h.index, h.start_line])).toEqual([
      [2, 4],
      [1, 10],
      [1, 14],
    ]);
    expect(c.label).toBe('quote edit, 3 hunks, lines 4, 10, 14');
    // The agent's proposal_status: the same hunks and label, without the text.
    const status = await proposalStatus(root, r.proposal_id);
    expect(status.change).toEqual({
      kind: 'edit',
      label: c.label,
      hunks: c.hunks.map(({ index, status, start_line, old_count, new_count }) => ({ index, status, start_line, old_count, new_count })),
    });
  });

  it('a 3-line delete says lines 2–4, not "lines 2–1"', async () => {
    const { root, path } = workspace();
    const r = await propose(root, AGENT, {
      path,
      target: { kind: 'delete', start: 2, end: 4, units: 'lines' },
      content: '',
      preconditions: { ifMatch: await etagOf(path) },
    });
    const c = viewOf(root, r.proposal_id).change;
    expect(c.label).toBe('edit, 1 hunk, lines 2–4');
    expect(c.hunks).toMatchObject([{ start_line: 2, old_count: 3, new_count: 0, old_lines: SOURCE.slice(1, 4), new_lines: [] }]);
  });

  it('a whole-file rewrite is told as the hunks that differ, not one whole-file block', async () => {
    const { root, path } = workspace();
    const next = SOURCE.slice();
    next[5] = '  retries: 5,';
    next.splice(11, 0, '// loaders above, savers below');
    const r = await propose(root, AGENT, {
      path,
      target: { kind: 'whole' },
      content: next.map((l) => `${l}\n`).join(''),
      preconditions: { ifMatch: await etagOf(path) },
    });
    const c = viewOf(root, r.proposal_id).change;
    expect(c.how).toBe('whole');
    expect(c.hunks.map((h) => [h.start_line, h.old_lines, h.new_lines])).toEqual([
      [6, ['  retries: 3,'], ['  retries: 5,']],
      [12, [], ['// loaders above, savers below']],
    ]);
  });

  it('a byte-range edit inside a line is told as that whole line', async () => {
    const { root, path } = workspace();
    const text = readFileSync(path, 'utf8');
    const at = Buffer.byteLength(text.slice(0, text.indexOf('504')));
    const r = await propose(root, AGENT, {
      path,
      target: { kind: 'replace', start: at, end: at + 3, units: 'bytes' },
      content: '30000',
      preconditions: { ifMatch: await etagOf(path) },
    });
    const c = viewOf(root, r.proposal_id).change;
    expect(c).toMatchObject({ how: 'bytes', label: 'edit, 1 hunk, line 5' });
    expect(c.hunks).toMatchObject([{ old_lines: ['  timeout: 504,'], new_lines: ['  timeout: 30000,'] }]);
  });

  it('create, delete and move say what they are', async () => {
    const { root, path } = workspace();
    const created = await propose(root, AGENT, {
      path: join(root, 'src', 'new.ts'),
      target: { kind: 'whole' },
      content: 'export const a = 1;\nexport const b = 2;\n',
      preconditions: { ifNoneMatch: '*' },
      createParents: true,
    });
    expect(viewOf(root, created.proposal_id).change).toMatchObject({
      kind: 'create',
      label: 'create, 2 lines',
      hunks: [{ start_line: 1, old_count: 0, new_lines: ['export const a = 1;', 'export const b = 2;'] }],
    });
    const deleted = await proposeFileOp(root, AGENT, { op: 'delete', path, preconditions: { ifMatch: await etagOf(path) } });
    expect(viewOf(root, deleted.proposal_id).change).toMatchObject({
      kind: 'delete',
      label: `delete, ${SOURCE.length} lines`,
      hunks: [{ start_line: 1, old_count: SOURCE.length, old_lines: SOURCE, new_lines: [] }],
    });
    const moved = await proposeFileOp(root, AGENT, { op: 'move', path, to: join(root, 'http-client.ts'), preconditions: { ifMatch: await etagOf(path) } });
    expect(viewOf(root, moved.proposal_id).change).toMatchObject({ kind: 'move', how: 'file', label: 'move client.ts → http-client.ts', hunks: [] });
  });
});

describe('a quote edit through edits of its file', () => {
  const quote = async (root: string, path: string) =>
    proposeQuotes(root, path, [
      ['timeout: 504,', 'timeout: 504, // gateway timeout'],
      ["method: 'POST'", "method: 'PUT'"],
    ]);

  it('moves with an edit elsewhere and applies where its lines went', async () => {
    const { root, path } = workspace();
    const r = await quote(root, path);
    await applyOwnEdit(root, ME, path, {
      target: { kind: 'insert', at: 1, units: 'lines' },
      content: '// header\n// more',
      preconditions: { ifMatch: await etagOf(path) },
    });
    expect(viewOf(root, r.proposal_id).change.hunks.map((h) => h.start_line)).toEqual([7, 16]);
    expect(viewOf(root, r.proposal_id).change.label).toBe('quote edit, 2 hunks, lines 7, 16');
    await approve(root, ME, r.proposal_id);
    const want = ['// header', '// more', ...SOURCE];
    want[6] = '  timeout: 504, // gateway timeout';
    want[15] = "  return fetch(url, { method: 'PUT', body });";
    expect(readFileSync(path, 'utf8')).toBe(want.map((l) => `${l}\n`).join(''));
  });

  it("a person's edit of its own line is a conflict though the quote still matches; nothing is written", async () => {
    const { root, path } = workspace();
    const r = await quote(root, path);
    const text = readFileSync(path, 'utf8');
    const at = text.indexOf('timeout: 504,') + 'timeout: 504,'.length;
    await applyOwnEdit(root, ME, path, {
      target: { kind: 'insert', at: Buffer.byteLength(text.slice(0, at)), units: 'bytes' },
      content: ' // set by a human',
      preconditions: { ifMatch: await etagOf(path) },
    });
    const before = readFileSync(path, 'utf8');
    expect(before).toContain('timeout: 504, // set by a human');
    await expect(approve(root, ME, r.proposal_id)).rejects.toMatchObject({ code: 'precondition_failed' });
    expect(readFileSync(path, 'utf8')).toBe(before);
    const p = viewOf(root, r.proposal_id);
    expect(p.status).toBe('conflict');
    expect(String(p.conflict?.message)).toMatch(/line 5 changed after the agent read it/);
  });

  it('the same edit made outside Folio (no journal) is a conflict too', async () => {
    const { root, path } = workspace();
    const r = await quote(root, path);
    const changed = readFileSync(path, 'utf8').replace('timeout: 504,', 'timeout: 504, // set by a human');
    writeFileSync(path, changed);
    await expect(approve(root, ME, r.proposal_id)).rejects.toMatchObject({ code: 'precondition_failed' });
    expect(readFileSync(path, 'utf8')).toBe(changed);
    expect(viewOf(root, r.proposal_id).status).toBe('conflict');
  });

  it('outside Folio, an edit of other lines leaves it applicable', async () => {
    const { root, path } = workspace();
    const r = await quote(root, path);
    writeFileSync(path, readFileSync(path, 'utf8').replace("host: 'localhost'", "host: 'example.org'"));
    await approve(root, ME, r.proposal_id);
    const text = readFileSync(path, 'utf8');
    expect(text).toContain("host: 'example.org'");
    expect(text).toContain('timeout: 504, // gateway timeout\n');
    expect(text).toContain("method: 'PUT'");
  });
});

describe('a conflict of every kind resolves (3-way: the person merges against the file now)', () => {
  it('a quote edit whose own line a person changed: the merged lines land, nothing else moves', async () => {
    const { root, path } = workspace();
    const r = await proposeQuotes(root, path, [['timeout: 504,', 'timeout: 504, // gateway timeout']]);
    writeFileSync(path, readFileSync(path, 'utf8').replace('timeout: 504,', 'timeout: 504, // set by a human'));
    await expect(approve(root, ME, r.proposal_id)).rejects.toMatchObject({ code: 'precondition_failed' });
    const now = await etagOf(path);
    await approve(root, ME, r.proposal_id, { ifMatch: now, content: '  timeout: 504, // gateway timeout, set by a human\n', lines: { start: 5, end: 5 } });
    const want = SOURCE.slice();
    want[4] = '  timeout: 504, // gateway timeout, set by a human';
    expect(readFileSync(path, 'utf8')).toBe(want.map((l) => `${l}\n`).join(''));
    expect(viewOf(root, r.proposal_id).status).toBe('applied');
  });

  it('a create whose file appeared meanwhile: the merged text replaces it', async () => {
    const { root } = workspace();
    const path = join(root, 'notes.md');
    const r = await propose(root, AGENT, { path, target: { kind: 'whole' }, content: '# Notes\nagent\n', preconditions: { ifNoneMatch: '*' } });
    writeFileSync(path, '# Notes\nhuman\n');
    await expect(approve(root, ME, r.proposal_id)).rejects.toMatchObject({ code: 'precondition_failed' });
    await approve(root, ME, r.proposal_id, { ifMatch: await etagOf(path), content: '# Notes\nhuman\nagent\n' });
    expect(readFileSync(path, 'utf8')).toBe('# Notes\nhuman\nagent\n');
  });

  it('a move whose file changed: resolved against the version now, it moves; a stale version is refused', async () => {
    const { root, path } = workspace();
    const to = join(root, 'http-client.ts');
    const r = await proposeFileOp(root, AGENT, { op: 'move', path, to, preconditions: { ifMatch: await etagOf(path) } });
    writeFileSync(path, 'changed\n');
    await expect(approve(root, ME, r.proposal_id)).rejects.toMatchObject({ code: 'precondition_failed' });
    await expect(approve(root, ME, r.proposal_id, { ifMatch: 'stale-etag' })).rejects.toMatchObject({ code: 'precondition_failed' });
    await expect(approve(root, ME, r.proposal_id, { ifMatch: await etagOf(path), content: 'x' })).rejects.toMatchObject({ code: 'invalid_input' });
    await approve(root, ME, r.proposal_id, { ifMatch: await etagOf(path) });
    expect(readFileSync(to, 'utf8')).toBe('changed\n');
  });
});

describe('a several-file edit', () => {
  it('labels each file with its place; one conflicted file resolves alone, the others stay to decide', async () => {
    const { root, path } = workspace();
    const other = join(root, 'server.ts');
    writeFileSync(other, 'export const port = 80;\n');
    const g = await proposeGroup(root, AGENT, [
      { path, target: { kind: 'whole' }, content: '', preconditions: {}, quoted: [{ oldText: 'retries: 3', newText: 'retries: 4' }] },
      {
        path: other,
        target: { kind: 'replace', start: 1, end: 1, units: 'lines' },
        content: 'export const port = 8080;\n',
        preconditions: { ifMatch: await etagOf(other) },
      },
    ]);
    const [a, b] = g.proposals.map((p) => p.proposal_id) as [string, string];
    expect(viewOf(root, a).change.label).toBe('quote edit, 1 hunk, line 6, file 1 of 2');
    expect(viewOf(root, b).change.label).toBe('edit, 1 hunk, line 1, file 2 of 2');
    writeFileSync(other, 'export const port = 81;\n');
    await expect(approve(root, ME, a)).rejects.toMatchObject({ code: 'precondition_failed' });
    expect([viewOf(root, a).status, viewOf(root, b).status]).toEqual(['conflict', 'conflict']);
    await approve(root, ME, b, { ifMatch: await etagOf(other), content: 'export const port = 8081;\n', lines: { start: 1, end: 1 } });
    expect(readFileSync(other, 'utf8')).toBe('export const port = 8081;\n');
    expect(readFileSync(path, 'utf8')).toBe(SOURCE.map((l) => `${l}\n`).join(''));
    expect([viewOf(root, a).status, viewOf(root, b).status]).toEqual(['conflict', 'applied']);
  });
});

describe('a several-file edit whose own lines changed', () => {
  const groupOf = async (root: string, path: string, other: string) =>
    (
      await proposeGroup(root, AGENT, [
        {
          path,
          target: { kind: 'whole' },
          content: '',
          preconditions: {},
          quoted: [{ oldText: 'timeout: 504,', newText: 'timeout: 504, // gateway timeout' }],
        },
        { path: other, target: { kind: 'whole' }, content: '', preconditions: {}, quoted: [{ oldText: 'port = 80', newText: 'port = 8080' }] },
      ])
    ).proposals.map((p) => p.proposal_id) as [string, string];

  it('outside Folio: the quote still matches, yet approving is a conflict of the whole group and nothing is written', async () => {
    const { root, path } = workspace();
    const other = join(root, 'server.ts');
    writeFileSync(other, 'export const port = 80;\n');
    const [a, b] = await groupOf(root, path, other);
    const changed = readFileSync(path, 'utf8').replace('timeout: 504,', 'timeout: 504, // set by a human');
    writeFileSync(path, changed);
    await expect(approve(root, ME, b)).rejects.toMatchObject({ code: 'precondition_failed' });
    expect([readFileSync(path, 'utf8'), readFileSync(other, 'utf8')]).toEqual([changed, 'export const port = 80;\n']);
    expect([viewOf(root, a).status, viewOf(root, b).status]).toEqual(['conflict', 'conflict']);
  });

  it("through the journal: a person's edit of one file's own line makes the group a conflict, naming that file", async () => {
    const { root, path } = workspace();
    const other = join(root, 'server.ts');
    writeFileSync(other, 'export const port = 80;\n');
    const [a, b] = await groupOf(root, path, other);
    await applyOwnEdit(root, ME, path, {
      target: { kind: 'replace', start: 5, end: 5, units: 'lines' },
      content: '  timeout: 504, // set by a human\n',
      preconditions: { ifMatch: await etagOf(path) },
    });
    const before = readFileSync(path, 'utf8');
    await expect(approve(root, ME, b)).rejects.toMatchObject({ code: 'precondition_failed' });
    expect([readFileSync(path, 'utf8'), readFileSync(other, 'utf8')]).toEqual([before, 'export const port = 80;\n']);
    expect(String(viewOf(root, b).conflict?.message)).toMatch(/^client\.ts: line 5 changed after the agent read it/);
    expect(viewOf(root, a).status).toBe('conflict');
  });
});
