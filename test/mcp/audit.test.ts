/** The audit log of MCP calls: one line per call in <root>/.folio/audit.jsonl, shown by `folio audit`. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetStores } from '../../src-main/review/index.ts';
import { BIN, connectStdio } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-audit-');
const cacheDir = tmp.path('cache');
const ws = tmp.path('ws');
const notes = join(ws, 'notes.txt');
const other = join(ws, 'other.txt');
const AGENT = 'audited-agent';
const secretFile = join(ws, 'secret.md');
const PW = 'Au8Kd3Lq7Wm2Xz5Np';
const HEADING_TOKEN = 'Ht4Rj9Vb1Nc6Yq3Ze';
const why = join(ws, 'why.txt');
const WHY = 'capitalise the second line, as the style guide asks';
const SECRET_TEXT = `# Notes\n\n## Deploy token=${HEADING_TOKEN}\n\npassword = "${PW}"\n`;

interface Call {
  op: string;
  path: string;
  outcome: 'ok' | 'error';
  code?: string;
}
const calls: Call[] = [];

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeFileSync(notes, 'one\ntwo\nthree\n');
  writeFileSync(other, 'other\n');
  writeFileSync(why, 'one\ntwo\n');
  writeFileSync(join(ws, '.env'), 'A=1\n');
  writeFileSync(secretFile, SECRET_TEXT);
  const mcp = await connectStdio(ws, { cacheDir, clientName: AGENT });
  try {
    const run = async (op: string, args: Record<string, unknown>, expected: Omit<Call, 'op'>) => {
      const r = await mcp.call(op, args);
      expect(r.isError, r.text).toBe(expected.outcome === 'error');
      if (expected.code) expect(r.body.error.code).toBe(expected.code);
      calls.push({ op, ...expected });
      return r;
    };
    const first = await run('read', { path: 'notes.txt', ranges: [{ start: 2, end: 3 }] }, { path: notes, outcome: 'ok' });
    await run('search', { path: 'notes.txt', pattern: 't' }, { path: notes, outcome: 'ok' });
    await run('file_info', { path: 'other.txt' }, { path: other, outcome: 'ok' });
    await run(
      'upsert',
      { path: 'notes.txt', target: { replace: { start: 1, end: 1 } }, content: 'ONE', if_match: first.body.version.etag },
      { path: notes, outcome: 'ok' },
    );
    await run('read', { path: '.env', head: 1 }, { path: join(ws, '.env'), outcome: 'error', code: 'permission_denied' });
    await run('read', { path: 'missing.txt', head: 1 }, { path: join(ws, 'missing.txt'), outcome: 'error', code: 'not_found' });
    await run(
      'upsert',
      { path: 'notes.txt', target: { append: { at_end: true } }, content: 'x', if_match: 'stale' },
      { path: notes, outcome: 'error', code: 'precondition_failed' },
    );
    await run('read', { path: 'notes.txt', ranges: [{ start: 9, end: 9 }] }, { path: notes, outcome: 'error', code: 'out_of_bounds' });
    // Redaction probes: a slice inside a value, search as an oracle, an error naming headings.
    const at = SECRET_TEXT.indexOf(PW) + 3;
    await run('read', { path: 'secret.md', start_byte: at, end_byte: at + 8 }, { path: secretFile, outcome: 'ok' });
    await run('search', { path: 'secret.md', pattern: `password = "${PW.slice(0, 3)}` }, { path: secretFile, outcome: 'ok' });
    await run('search', { path: 'secret.md', pattern: PW.slice(0, 6), count_only: true }, { path: secretFile, outcome: 'ok' });
    await run('read', { path: 'secret.md', section: 'Deploy' }, { path: secretFile, outcome: 'error', code: 'not_found' });
    // The reason an agent gives for a write (the partial-upsert guideline's `reason`), whatever the outcome.
    await run('edit', { path: 'why.txt', edits: [{ old_text: 'two', new_text: 'TWO' }], reason: WHY }, { path: why, outcome: 'ok' });
    const stale = { path: 'why.txt', target: { append: { at_end: true } }, content: 'y', if_match: 'stale' };
    await run('upsert', { ...stale, reason: 'append y' }, { path: why, outcome: 'error', code: 'precondition_failed' });
    await run('upsert', { ...stale, reason: 'r'.repeat(501) }, { path: why, outcome: 'error', code: 'precondition_failed' });
  } finally {
    await mcp.close();
  }
});
afterAll(() => {
  forgetStores();
  tmp.cleanup();
});

const folioAudit = (args: string[]) =>
  spawnSync(process.execPath, [BIN, 'audit', '--root', ws, '--json', ...args], { encoding: 'utf8', env: { ...process.env, FOLIO_CACHE_DIR: cacheDir } });

describe('audit of MCP calls', () => {
  it('.folio/audit.jsonl has one line per call: actor = the MCP client name, op, path, outcome and code', () => {
    const lines = readFileSync(join(ws, '.folio/audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(calls.length);
    lines.forEach((e, i) => {
      const c = calls[i]!;
      expect(e.actor).toEqual({ kind: 'agent', name: AGENT });
      expect(e.op).toBe(c.op);
      expect(e.outcome).toBe(c.outcome);
      expect(e.code).toBe(c.code);
      expect(Date.parse(e.time)).not.toBeNaN();
    });
    expect(lines[0]).toMatchObject({ range: { start_line: 2, end_line: 3 }, version_before: expect.any(String), bytes_read: 'two\nthree\n'.length });
    expect(lines[3].reason).toMatch(/^proposal /);
  });

  it('folio audit --json prints the entries; --path keeps the successful calls of one file', () => {
    const all = folioAudit([]);
    expect(all.status, all.stderr).toBe(0);
    const entries = JSON.parse(all.stdout).entries;
    expect(entries.map((e: Call) => [e.op, e.outcome, e.code])).toEqual(calls.map((c) => [c.op, c.outcome, c.code]));

    const one = folioAudit(['--path', other]);
    expect(one.status, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout).entries).toMatchObject([{ op: 'file_info', path: other, outcome: 'ok' }]);
    const okOfNotes = JSON.parse(folioAudit(['--path', 'notes.txt']).stdout).entries.filter((e: Call) => e.outcome === 'ok');
    expect(okOfNotes.map((e: Call) => e.op)).toEqual(['read', 'search', 'upsert']);
  });

  it('records the path each call resolved to, failed calls included', () => {
    const lines = readFileSync(join(ws, '.folio/audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((e) => e.path)).toEqual(calls.map((c) => c.path));
  });

  it('folio audit --path keeps the failed calls of that file too', () => {
    const ofNotes = JSON.parse(folioAudit(['--path', notes]).stdout).entries;
    expect(ofNotes.map((e: Call) => [e.op, e.outcome, e.code])).toEqual(calls.filter((c) => c.path === notes).map((c) => [c.op, c.outcome, c.code]));
  });

  it('holds no part of a secret the calls touched (slices, searches, errors naming headings)', () => {
    const audit = readFileSync(join(ws, '.folio/audit.jsonl'), 'utf8');
    for (const secret of [PW, HEADING_TOKEN]) for (let i = 0; i + 6 <= secret.length; i++) expect(audit).not.toContain(secret.slice(i, i + 6));
  });

  it('carries the reason an agent gave for a write, ok or failed (its first 500 characters); calls without one have none', () => {
    const lines = readFileSync(join(ws, '.folio/audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const n = lines.length;
    expect(lines[n - 3]).toMatchObject({ op: 'edit', path: why, outcome: 'ok', caller_reason: WHY, reason: expect.stringMatching(/^proposal /) });
    expect(lines[n - 2]).toMatchObject({ op: 'upsert', outcome: 'error', code: 'precondition_failed', caller_reason: 'append y' });
    expect(lines[n - 1]).toMatchObject({ op: 'upsert', outcome: 'error', code: 'precondition_failed', caller_reason: 'r'.repeat(500) });
    expect(lines.slice(0, n - 3).filter((e) => 'caller_reason' in e)).toEqual([]);
    const human = spawnSync(process.execPath, [BIN, 'audit', '--root', ws, '--path', why], {
      encoding: 'utf8',
      env: { ...process.env, FOLIO_CACHE_DIR: cacheDir },
    });
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toContain(`why: ${JSON.stringify(WHY)}`);
  });

  it('folio audit without --json prints one human line per entry', () => {
    const r = spawnSync(process.execPath, [BIN, 'audit', '--root', ws], { encoding: 'utf8', env: { ...process.env, FOLIO_CACHE_DIR: cacheDir } });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(calls.length);
    expect(lines[4]).toContain(`agent:${AGENT} read`);
    expect(lines[4]).toContain('error permission_denied');
  });
});
