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
afterAll(() => tmp.cleanup());

/** `npx @modelcontextprotocol/inspector --cli node bin/folio.mjs mcp --root WS …` (the local install; never downloads). */
function inspector(args: string[]) {
  const r = spawnSync('npx', ['--no-install', '@modelcontextprotocol/inspector', '--cli', process.execPath, BIN, 'mcp', '--root', ws, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, FOLIO_CACHE_DIR: tmp.path('cache') },
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('MCP Inspector CLI against folio mcp', () => {
  it('tools/list lists the 5 tools', () => {
    const out = inspector(['--method', 'tools/list']);
    expect(out.tools.map((t: { name: string }) => t.name).sort()).toEqual(AGENT_TOOL_NAMES);
  });

  it('tools/call read with --tool-arg answers the file content as JSON text', () => {
    const out = inspector(['--method', 'tools/call', '--tool-name', 'read', '--tool-arg', 'path=notes.txt', '--tool-arg', 'tail=1']);
    expect(out.isError ?? false).toBe(false);
    expect(JSON.parse(out.content[0].text)).toMatchObject({ mode: 'tail', content: 'second\n', total_lines: 2 });
  });
});
