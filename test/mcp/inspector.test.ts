/**
 * The MCP Inspector's CLI mode (@modelcontextprotocol/inspector, a dev dependency)
 * against `folio mcp`: a second, independent client implementation.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_TOOL_NAMES, BIN } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-inspector-');
const ws = tmp.path('ws');
mkdirSync(ws, { recursive: true });
writeFileSync(join(ws, 'notes.txt'), 'first\nsecond\n');
writeFileSync(join(ws, 'README.md'), '# Demo\n\nintro\n');
afterAll(() => tmp.cleanup());

/**
 * What `npx @modelcontextprotocol/inspector --cli node bin/folio.mjs mcp --root WS …` runs:
 * that command (npx, then the inspector's launcher) starts `node cli/build/index.js COMMAND
 * ARGS…`, the Inspector's CLI client, from the local install. Started here directly: the
 * two launchers before it cost twice the client's own CPU and prove nothing about Folio.
 */
const INSPECTOR_CLI = join(process.cwd(), 'node_modules/@modelcontextprotocol/inspector/cli/build/index.js');
function inspector(args: string[]) {
  const r = spawnSync(process.execPath, [INSPECTOR_CLI, process.execPath, BIN, 'mcp', '--root', ws, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') },
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('MCP Inspector CLI against folio mcp', () => {
  it('tools/list lists the agent tools', () => {
    const out = inspector(['--method', 'tools/list']);
    expect(out.tools.map((t: { name: string }) => t.name).sort()).toEqual(AGENT_TOOL_NAMES);
  });

  it('tools/call read with --tool-arg answers the file content as JSON text', () => {
    const out = inspector(['--method', 'tools/call', '--tool-name', 'read', '--tool-arg', 'path=notes.txt', '--tool-arg', 'tail=1']);
    expect(out.isError ?? false).toBe(false);
    expect(JSON.parse(out.content[0].text)).toMatchObject({ mode: 'tail', content: 'second\n', total_lines: 2 });
  });

  it('tools/call calls every listed tool once with --tool-arg pairs, upsert with a target object', () => {
    const listed: string[] = inspector(['--method', 'tools/list']).tools.map((t: { name: string }) => t.name);
    const called = new Set<string>();
    /** `tools/call NAME --tool-arg k=v …`, which must succeed; its answer's JSON. */
    const call = (name: string, args: Record<string, string>) => {
      const pairs = Object.entries(args).flatMap(([k, v]) => ['--tool-arg', `${k}=${v}`]);
      const out = inspector(['--method', 'tools/call', '--tool-name', name, ...pairs]);
      expect(out.isError ?? false, `${name}: ${out.content?.[0]?.text}`).toBe(false);
      called.add(name);
      return JSON.parse(out.content[0].text);
    };
    const read = call('read', { path: 'notes.txt', ranges: '[{"start":1,"end":2}]', hashlines: 'true' });
    expect(read.content).toMatch(/^1#[0-9a-f]{3}\|first\n/);
    expect(call('search', { path: 'notes.txt', pattern: 'sec', max: '5' })).toMatchObject({ count: 1 });
    expect(call('file_info', { path: 'notes.txt' })).toMatchObject({ lines: 2 });
    expect(call('outline', { path: 'README.md', max_level: '2' }).headings).toHaveLength(1);
    // The target is typed object in the schema, so the Inspector sends it parsed (a bare anyOf stayed a string).
    const proposal = call('upsert', { path: 'notes.txt', target: '{"replace":{"start":2,"end":2}}', content: 'SECOND\n', if_match: read.version.etag });
    expect(proposal).toMatchObject({ applied: false, policy: 'review', status: 'pending' });
    expect(call('proposal_status', { proposal_id: proposal.proposal_id, wait_ms: '0' })).toMatchObject({ status: 'pending' });
    const quoted = call('edit', { path: 'notes.txt', edits: '[{"old_text":"first","new_text":"FIRST"}]' });
    expect(quoted).toMatchObject({ applied: false, policy: 'review', status: 'pending' });
    expect(call('list', { path: '.', depth: '1' }).entries.map((e: { path: string }) => e.path)).toContain('notes.txt');
    expect([...called].sort()).toEqual([...listed].sort());
    // Ten Inspector processes one after the other, each starting `folio mcp`: on a loaded machine that is minutes.
  }, 300_000);
});
