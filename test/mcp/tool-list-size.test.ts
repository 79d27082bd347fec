/**
 * What tools/list costs an agent, against the reference MCP filesystem server
 * (@modelcontextprotocol/server-filesystem, a dev dependency) measured in the
 * same run with the same SDK client: Folio's list must not be the bigger one.
 * Two measures: the whole answer (JSON.stringify(tools)), and the part clients
 * put in the model's context every turn (name, description, inputSchema).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-tool-size-');
const ws = tmp.path('ws');
const FILESYSTEM_SERVER = join(process.cwd(), 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

/** tools/list of the stdio server `args` (run with this Node), through the SDK client. */
async function toolsOf(args: string[]): Promise<Tool[]> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { ...(process.env as Record<string, string>), FOLIO_CACHE_DIR: tmp.path('cache') },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'size-probe', version: '1.0.0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

const whole = (tools: Tool[]) => JSON.stringify(tools).length;
const inContext = (tools: Tool[]) => JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))).length;

let folio: Tool[];
let filesystem: Tool[];

beforeAll(async () => {
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'notes.txt'), 'one\n');
  [folio, filesystem] = await Promise.all([toolsOf([BIN, 'mcp', '--root', ws]), toolsOf([FILESYSTEM_SERVER, ws])]);
});
afterAll(() => tmp.cleanup());

describe('tools/list size against the MCP filesystem server', () => {
  it('the whole answer is no bigger than the filesystem server’s', () => {
    const [f, fs] = [whole(folio), whole(filesystem)];
    console.log(`tools/list: folio ${f} chars (${folio.length} tools), filesystem ${fs} (${filesystem.length} tools), ratio ${(f / fs).toFixed(2)}`);
    expect(f).toBeLessThanOrEqual(fs);
  });

  it('the part in the model’s context (name, description, inputSchema) is no bigger either', () => {
    const [f, fs] = [inContext(folio), inContext(filesystem)];
    console.log(`name+description+inputSchema: folio ${f} chars, filesystem ${fs}, ratio ${(f / fs).toFixed(2)}`);
    expect(f).toBeLessThanOrEqual(fs);
  });
});
