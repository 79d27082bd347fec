/** `folio mcp` over stdio: a real SDK client on a real child process, on real files. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { approve, forgetStores, reject } from '../../src-main/review/index.ts';
import { AGENT_TOOL_NAMES, connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-stdio-');
const cacheDir = tmp.path('cache');
const ws = tmp.path('ws');
const notes = join(ws, 'notes.txt');
const TEXT = Array.from({ length: 50 }, (_, i) => `line ${i + 1}\n`).join('');
const HUMAN = { kind: 'human', name: 'reviewer' } as const;
let mcp: McpSession;

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeFileSync(notes, TEXT);
  writeFileSync(join(ws, 'wide.txt'), Array.from({ length: 4000 }, (_, i) => `${String(i).padStart(5, '0')} ${'w'.repeat(94)}\n`).join(''));
  mcp = await connectStdio(ws, { cacheDir, clientName: 'stdio-agent' });
});
// Two tests write notes.txt (an approved proposal, an auto-applied upsert): each test
// starts from the same text, so they pass alone and in any order.
beforeEach(() => writeFileSync(notes, TEXT));
afterAll(async () => {
  await mcp?.close();
  forgetStores();
  tmp.cleanup();
});

/** The anchor of line `n` from a hashlines read over MCP. */
async function anchorOf(s: McpSession, path: string, n: number): Promise<string> {
  const r = await s.call('read', { path, ranges: [{ start: n, end: n }], hashlines: true });
  return /^(\d+#[0-9a-f]{3})\|/.exec(r.body.content)![1]!;
}

describe('folio mcp (stdio)', () => {
  it('lists exactly the agent tools; upsert explains anchors and if_match', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(AGENT_TOOL_NAMES);
    const upsert = tools.find((t) => t.name === 'upsert')!;
    expect(upsert.description).toMatch(/anchors?/);
    expect(upsert.description).toMatch(/if_match/);
    expect(tools.find((t) => t.name === 'read')!.description).toMatch(/if_match|hashlines/);
    expect(upsert.inputSchema.properties).toHaveProperty('anchors');
    expect(upsert.inputSchema.properties).toHaveProperty('if_match');
  });

  it('reads line ranges (merged, each with its content), a byte window, exact bytes, a page, head, tail and hashlines', async () => {
    const ranges = await mcp.call('read', {
      path: 'notes.txt',
      ranges: [
        { start: 2, end: 3 },
        { start: 10, end: 10 },
      ],
    });
    expect(ranges.isError).toBe(false);
    expect(ranges.body.content).toBe('');
    expect(ranges.body.ranges.map((r: { start: number; content: string }) => [r.start, r.content])).toEqual([
      [2, 'line 2\nline 3\n'],
      [10, 'line 10\n'],
    ]);
    expect(ranges.body.total_lines).toBe(50);
    expect(ranges.body.version.etag).toEqual(expect.any(String));

    // Lines 1-9 are 7 bytes each: byte 9 is inside line 2, so the window starts at its
    // start (7) and holds the whole lines that fit in 20 bytes (lines 2 and 3).
    const window = await mcp.call('read', { path: 'notes.txt', start_byte: 9, max_bytes: 20 });
    expect(window.body).toMatchObject({ mode: 'bytes', start_byte: 7, end_byte: 21, content: 'line 2\nline 3\n', next_start_byte: 21 });

    const exact = await mcp.call('read', { path: 'notes.txt', start_byte: 2, end_byte: 10 });
    expect(exact.body).toMatchObject({ mode: 'exact', content: TEXT.slice(2, 10), is_partial: true, file_size: TEXT.length });

    // A budget over the 256 KiB cap: the page still holds at most the cap, in whole lines, and paging covers the file.
    const wide = readFileSync(join(ws, 'wide.txt'), 'utf8');
    const big = await mcp.call('read', { path: 'wide.txt', page: 1, page_chars: 300_000 });
    expect(Buffer.byteLength(big.body.content)).toBeLessThanOrEqual(256 * 1024);
    expect(big.body.content.endsWith('\n')).toBe(true);
    const rest = await mcp.call('read', { path: 'wide.txt', page: 2, page_chars: 300_000 });
    expect(big.body.content + rest.body.content).toBe(wide);
    const page = await mcp.call('read', { path: 'notes.txt', page: 2, page_chars: 100 });
    expect(page.body.mode).toBe('page');
    expect(page.body.content.length).toBeLessThanOrEqual(100);
    expect(TEXT).toContain(page.body.content);
    expect(page.body.next_page).toBe(3);

    expect((await mcp.call('read', { path: 'notes.txt', head: 2 })).body.content).toBe('line 1\nline 2\n');
    expect((await mcp.call('read', { path: join(ws, 'notes.txt'), tail: 2 })).body.content).toBe('line 49\nline 50\n');

    const hashed = await mcp.call('read', { path: 'notes.txt', ranges: [{ start: 7, end: 8 }], hashlines: true });
    expect(hashed.body.content).toMatch(/^7#[0-9a-f]{3}\|line 7\n8#[0-9a-f]{3}\|line 8\n$/);
  });

  it('searches with a regex (one match per line, with its line number) and answers file_info', async () => {
    const s = await mcp.call('search', { path: 'notes.txt', pattern: '^line 4\\d$' });
    expect(s.isError).toBe(false);
    expect(s.body.matches.map((m: { line: number }) => m.line)).toEqual([40, 41, 42, 43, 44, 45, 46, 47, 48, 49]);
    expect(s.body.count).toBe(10);
    const info = await mcp.call('file_info', { path: 'notes.txt' });
    expect(info.body).toMatchObject({ size: TEXT.length, lines: 50, encoding: 'utf-8', newline_style: 'lf', final_newline: true });
  });

  it('upsert under the default review policy proposes (proposal_id + preview) and leaves the file alone', async () => {
    const anchor = await anchorOf(mcp, 'notes.txt', 5);
    const r = await mcp.call('upsert', { path: 'notes.txt', target: { replace: { start: 5, end: 5 } }, content: 'line five', anchors: [anchor] });
    expect(r.isError, r.text).toBe(false);
    expect(r.body).toMatchObject({ applied: false, policy: 'review', status: 'pending', path: 'notes.txt' });
    expect(r.body.proposal_id).toEqual(expect.any(String));
    expect(r.body.preview).toContain('-line 5');
    expect(r.body.preview).toContain('+line five');
    expect(readFileSync(notes, 'utf8')).toBe(TEXT);
  });

  it('proposal_status with wait_ms, asked before a person approves, reports applied and the file has the edit', async () => {
    const etag = (await mcp.call('read', { path: 'notes.txt', head: 1 })).body.version.etag;
    const p = await mcp.call('upsert', { path: 'notes.txt', target: { replace: { start: 6, end: 6 } }, content: 'line six', if_match: etag });
    const id = p.body.proposal_id as string;
    expect((await mcp.call('proposal_status', { proposal_id: id })).body.status).toBe('pending');

    const t0 = Date.now();
    const waiting = mcp.call('proposal_status', { proposal_id: id, wait_ms: 50_000 });
    // The server reads its requests in order: once a later one is answered, the wait has begun.
    expect((await mcp.call('proposal_status', { proposal_id: id })).body.status).toBe('pending');
    await approve(ws, HUMAN, id);
    const status = await waiting;
    // Answered on the decision, not at the end of the wait (a generous margin for a loaded machine).
    expect(Date.now() - t0).toBeLessThan(40_000);
    expect(status.body).toMatchObject({ proposal_id: id, status: 'applied', decided_by: HUMAN, path: 'notes.txt' });
    expect(status.body.version_after.etag).not.toBe(etag);
    expect(readFileSync(notes, 'utf8').split('\n')[5]).toBe('line six');
  });

  it('a rejected proposal reports rejected with the reason, and nothing is written', async () => {
    const before = readFileSync(notes, 'utf8');
    const anchor = await anchorOf(mcp, 'notes.txt', 9);
    const p = await mcp.call('upsert', { path: 'notes.txt', target: { delete: { start: 9, end: 9 } }, anchors: [anchor] });
    const id = p.body.proposal_id as string;
    await reject(ws, HUMAN, id, 'keep line 9');
    const status = await mcp.call('proposal_status', { proposal_id: id, wait_ms: 5000 });
    expect(status.body).toMatchObject({ status: 'rejected', reason: 'keep line 9', decided_by: HUMAN });
    expect(readFileSync(notes, 'utf8')).toBe(before);
  });

  it('precondition_failed comes back as isError with the code, the mismatched line and a ready read request', async () => {
    const r = await mcp.call('upsert', { path: 'notes.txt', target: { replace: { start: 12, end: 12 } }, content: 'x', anchors: ['12#000'] });
    expect(r.isError).toBe(true);
    expect(r.body.error.code).toBe('precondition_failed');
    expect(r.body.error.mismatched_lines).toEqual([{ line: 12, expected: '000', actual: expect.stringMatching(/^[0-9a-f]{3}$/) }]);
    expect(r.body.error.read).toMatchObject({ ranges: [{ start: 12, end: 12 }], hashlines: true });
    // The read request is ready to send as is.
    const again = await mcp.call('read', r.body.error.read);
    expect(again.isError).toBe(false);
    expect(again.body.content).toMatch(/^12#[0-9a-f]{3}\|line 12\n$/);

    const stale = await mcp.call('upsert', { path: 'notes.txt', target: { append: { at_end: true } }, content: 'z', if_match: 'not-the-etag' });
    expect(stale.isError).toBe(true);
    expect(stale.body.error).toMatchObject({ code: 'precondition_failed', current_version: { etag: expect.any(String) } });
  });

  it('under --review auto an upsert applies at once and is journaled', async () => {
    const auto = await connectStdio(ws, { cacheDir, flags: ['--review', 'auto'], clientName: 'auto-agent' });
    try {
      const anchor = await anchorOf(auto, 'notes.txt', 20);
      const r = await auto.call('upsert', { path: 'notes.txt', target: { replace: { start: 20, end: 20 } }, content: 'line twenty', anchors: [anchor] });
      expect(r.isError, r.text).toBe(false);
      expect(r.body).toMatchObject({ applied: true, policy: 'auto', journal_id: expect.any(String) });
      expect(readFileSync(notes, 'utf8').split('\n')[19]).toBe('line twenty');
    } finally {
      await auto.close();
    }
  });
});
