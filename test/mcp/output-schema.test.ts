/**
 * Every MCP tool declares an outputSchema (the operation table's output plus what the
 * agent guard adds) and every answer's structuredContent validates against it with
 * ajv; the text block holds the same JSON. Real SDK client, real `folio mcp` child.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorPayloadOf } from '../../src-main/api/error-payload.ts';
import { FolioError, handle, operations } from '../../src-main/api/handle.ts';
import { approve, forgetStores } from '../../src-main/review/index.ts';
import { AGENT_TOOL_NAMES, connectStdio, type McpSession } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-output-');
const cacheDir = tmp.path('cache');
const ws = tmp.path('ws');
const NOTES = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const SECRET_LINE = 'api_token = "s3cr3t-value-for-tests"';

let review: McpSession;
let auto: McpSession;
let tools: Tool[];
const ajv = new AjvJsonSchemaValidator();

beforeAll(async () => {
  mkdirSync(join(ws, 'logs'), { recursive: true });
  writeFileSync(join(ws, 'notes.txt'), NOTES);
  writeFileSync(join(ws, 'conf.txt'), `name = demo\n${SECRET_LINE}\nport = 80\n`);
  writeFileSync(join(ws, 'data.json'), JSON.stringify({ users: [{ id: 1, key_id: 'AKIAIOSFODNN7EXAMPLE' }] }, null, 2) + '\n');
  writeFileSync(join(ws, 'README.md'), '# Demo\n\nintro\n\n## Install\n\nrun it\n');
  writeFileSync(join(ws, 'logs', 'app.log'), 'start\n');
  [review, auto] = await Promise.all([
    connectStdio(ws, { cacheDir, clientName: 'schema-agent' }),
    connectStdio(ws, { cacheDir, clientName: 'schema-auto-agent', flags: ['--review', 'auto'] }),
  ]);
  tools = (await review.client.listTools()).tools;
});
afterAll(async () => {
  await Promise.all([review?.close(), auto?.close()]);
  forgetStores();
  tmp.cleanup();
});

const called = new Set<string>();

/** Call a tool that must succeed; its structuredContent validated against the tool's declared outputSchema. */
async function callValid(s: McpSession, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const tool = tools.find((t) => t.name === name)!;
  const r = await s.client.callTool({ name, arguments: args });
  const text = (r.content as { type: string; text: string }[])[0]!.text;
  expect(r.isError ?? false, text).toBe(false);
  const structured = r.structuredContent as Record<string, unknown>;
  expect(structured, `${name} answers structuredContent`).toBeDefined();
  const verdict = ajv.getValidator(tool.outputSchema!)(structured);
  expect(verdict.valid, `${name} ${JSON.stringify(args)}: ${verdict.valid ? '' : verdict.errorMessage}`).toBe(true);
  expect(JSON.parse(text)).toEqual(structured);
  called.add(name);
  return structured;
}

describe('MCP tools declare and honour an outputSchema', () => {
  it('lists the agent tools, each with an object outputSchema that names its fields and allows no others', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(AGENT_TOOL_NAMES);
    for (const t of tools) {
      expect(t.outputSchema, t.name).toMatchObject({ type: 'object', additionalProperties: false });
      expect(Object.keys(t.outputSchema!.properties ?? {}).length, t.name).toBeGreaterThan(2);
    }
    const props = (name: string) => Object.keys(tools.find((t) => t.name === name)!.outputSchema!.properties!);
    expect(props('read')).toEqual(
      expect.arrayContaining(['content', 'ranges', 'start_line', 'end_line', 'start_byte', 'end_byte', 'total_lines', 'version', 'redactions']),
    );
    expect(props('search')).toEqual(expect.arrayContaining(['matches', 'redactions']));
    expect(props('upsert')).toEqual(expect.arrayContaining(['applied', 'policy', 'proposal_id', 'journal_id', 'preview', 'version_after']));
    expect(props('proposal_status')).toEqual(expect.arrayContaining(['proposal_id', 'status', 'decided_by', 'version_after']));
    expect(props('search')).toEqual(expect.arrayContaining(['files', 'next_cursor', 'files_searched']));
    expect(props('list')).toEqual(expect.arrayContaining(['entries', 'truncated']));
  });

  it('directory search (capped, with context, count_only, from a cursor) and list answers validate, redacted ones included', async () => {
    // The secret is a context line of `name = demo`: masked there.
    const dir = await callValid(review, 'search', { path: '.', pattern: 'line|name', context: 1 });
    expect(dir).toMatchObject({ truncated: false, next_cursor: null, redactions: 1 });
    expect(JSON.stringify(dir)).not.toContain('s3cr3t');
    expect((dir.files as { path: string }[]).map((f) => f.path)).toEqual(['conf.txt', 'notes.txt']);
    const capped = await callValid(review, 'search', { path: '.', pattern: 'line', max: 5 });
    expect(capped).toMatchObject({ truncated: true, next_cursor: expect.any(String), count: 5 });
    await callValid(review, 'search', { path: '.', pattern: 'line', max: 5, cursor: capped.next_cursor });
    const counted = await callValid(review, 'search', { path: '.', pattern: '=', count_only: true, glob: '*.txt' });
    expect(counted).toMatchObject({ count: 3, files: [{ path: 'conf.txt', count: 3 }] });
    const listed = await callValid(review, 'list', { path: '.' });
    expect((listed.entries as { path: string }[]).map((e) => e.path)).toEqual(['README.md', 'conf.txt', 'data.json', 'logs', 'logs/app.log', 'notes.txt']);
  });

  it('read, search, file_info and outline answers validate, redacted ones included', async () => {
    const ranges = await callValid(review, 'read', {
      path: 'notes.txt',
      ranges: [
        { start: 2, end: 3 },
        { start: 9, end: 9 },
      ],
      hashlines: true,
    });
    expect(ranges).toMatchObject({ content: '', total_lines: 30, redactions: 0 });
    expect((ranges.ranges as unknown[]).length).toBe(2);
    await callValid(review, 'read', { path: 'notes.txt', page: 1, page_chars: 40 });
    const over = await callValid(review, 'read', { path: 'notes.txt', page: 1, page_chars: 3 });
    expect(over).toMatchObject({ over_budget: true, starts_mid_line: false, ends_mid_line: false });
    writeFileSync(join(ws, 'long.txt'), 'x'.repeat(300_000) + '\n'); // removed below: the list test names every file
    const cut = await callValid(review, 'read', { path: 'long.txt', page: 2, page_chars: 100 });
    expect(cut).toMatchObject({ starts_mid_line: true, ends_mid_line: true, line_cut: { line: 1 } });
    rmSync(join(ws, 'long.txt'));
    await callValid(review, 'read', { path: 'notes.txt', start_byte: 3, end_byte: 12 });
    const secret = await callValid(review, 'read', { path: 'conf.txt', full: true, tokenizer: 'o200k_base' });
    expect(secret.redactions).toBe(1);
    expect(JSON.stringify(secret)).not.toContain('s3cr3t');
    const json = await callValid(review, 'read', { path: 'data.json', json_path: '$.users[0]' });
    expect(JSON.stringify(json)).not.toContain('AKIAIOSFODNN7EXAMPLE');
    await callValid(review, 'read', { path: 'README.md', section: 'Demo > Install' });
    const found = await callValid(review, 'search', { path: 'conf.txt', pattern: '=' });
    expect(found).toMatchObject({ count: 3, redactions: 1 });
    await callValid(review, 'file_info', { path: 'notes.txt' });
    const outline = await callValid(review, 'outline', { path: 'README.md' });
    expect((outline.headings as { path: string }[]).map((h) => h.path)).toEqual(['Demo', 'Demo > Install']);
  });

  it('upsert answers validate under review (dry run and proposal), under auto, and proposal_status before and after a decision', async () => {
    const etag = ((await callValid(review, 'read', { path: 'notes.txt', head: 1 })).version as { etag: string }).etag;
    const edit = { path: 'notes.txt', target: { replace: { start: 5, end: 5 } }, content: 'line five\n', if_match: etag };
    const dry = await callValid(review, 'upsert', { ...edit, dry_run: true });
    expect(dry).toMatchObject({ applied: false, dry_run: true, policy: 'review' });
    const proposal = await callValid(review, 'upsert', edit);
    expect(proposal).toMatchObject({ applied: false, policy: 'review', status: 'pending', actor: { kind: 'agent', name: 'schema-agent' } });
    const id = proposal.proposal_id as string;
    expect(await callValid(review, 'proposal_status', { proposal_id: id })).toMatchObject({ proposal_id: id, status: 'pending', decided_by: null });
    await approve(ws, { kind: 'human', name: 'reviewer' }, id);
    const decided = await callValid(review, 'proposal_status', { proposal_id: id, wait_ms: 1000 });
    expect(decided).toMatchObject({ status: 'applied', decided_by: { kind: 'human', name: 'reviewer' }, version_after: { etag: expect.any(String) } });
    // The tool is the table's operation: every door gets the same answer.
    const fromTable = await handle('proposal_status', { proposal_id: id }, { kind: 'human', name: 'reviewer' }, { workspace: ws });
    expect(operations.proposal_status.output.parse(fromTable)).toEqual(decided);

    const log = ((await callValid(auto, 'read', { path: 'logs/app.log', full: true })).version as { etag: string }).etag;
    const applied = await callValid(auto, 'upsert', { path: 'logs/app.log', target: { append: { at_end: true } }, content: 'ready\n', if_match: log });
    expect(applied).toMatchObject({ applied: true, policy: 'auto', journal_id: expect.any(String), version_after: { etag: expect.any(String) } });
  });

  it('edit, delete_file and move_file answers validate: dry run, proposal and applied', async () => {
    const quoted = await callValid(auto, 'edit', { path: 'logs/app.log', edits: [{ old_text: 'ready', new_text: 'READY' }] });
    expect(quoted).toMatchObject({ applied: true, policy: 'auto', journal_id: expect.any(String) });
    const queued = await callValid(review, 'edit', { path: 'notes.txt', edits: [{ old_text: 'line five', new_text: 'line 5' }], dry_run: true });
    expect(queued).toMatchObject({ applied: false, dry_run: true, policy: 'review' });
    writeFileSync(join(ws, 'logs', 'old.log'), 'old\n');
    writeFileSync(join(ws, 'scratch.txt'), 'scratch\n');
    const etagOf = async (path: string) => ((await callValid(review, 'file_info', { path })).version as { etag: string }).etag;
    const dry = await callValid(review, 'upsert', { target: { delete_file: true }, path: 'scratch.txt', if_match: await etagOf('scratch.txt'), dry_run: true });
    expect(dry).toMatchObject({ applied: false, dry_run: true, policy: 'review', op: 'delete' });
    const proposed = await callValid(review, 'upsert', { target: { delete_file: true }, path: 'scratch.txt', if_match: await etagOf('scratch.txt') });
    expect(proposed).toMatchObject({ applied: false, policy: 'review', status: 'pending', op: 'delete' });
    const moveProposal = await callValid(review, 'upsert', { path: 'scratch.txt', target: { move_to: 'kept.txt' }, if_match: await etagOf('scratch.txt') });
    expect(moveProposal).toMatchObject({ applied: false, policy: 'review', status: 'pending', op: 'move', to: 'kept.txt' });
    const moved = await callValid(auto, 'upsert', { path: 'logs/old.log', target: { move_to: 'logs/older.log' }, if_match: await etagOf('logs/old.log') });
    expect(moved).toMatchObject({ applied: true, policy: 'auto', op: 'move', journal_id: expect.any(String) });
    const deleted = await callValid(auto, 'upsert', { target: { delete_file: true }, path: 'logs/older.log', if_match: await etagOf('logs/older.log') });
    expect(deleted).toMatchObject({ applied: true, policy: 'auto', op: 'delete', version_after: null });
    expect([...called].sort()).toEqual(AGENT_TOOL_NAMES);
  });

  it('errors stay isError results with {error: {code, message, ...details}} and no structuredContent', async () => {
    const r = await review.client.callTool({ name: 'read', arguments: { path: 'missing.txt', head: 1 } });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    const body = JSON.parse((r.content as { text: string }[])[0]!.text);
    expect(body.error).toMatchObject({ code: 'not_found', message: expect.any(String), path: expect.any(String) });
  });
});

describe('errorPayloadOf: the error body of every door', () => {
  it('gives the code, message and details of a FolioError, and anything else as internal with its message', () => {
    expect(errorPayloadOf(new FolioError('not_found', 'no such file: x', { path: 'x' }))).toEqual({ code: 'not_found', message: 'no such file: x', path: 'x' });
    expect(errorPayloadOf(new TypeError('boom'))).toEqual({ code: 'internal', message: 'boom' });
    expect(errorPayloadOf('plain')).toEqual({ code: 'internal', message: 'plain' });
  });
});
