/**
 * `folio mcp --help` names the tools a real server lists (tools/list over stdio),
 * in the same order: the help comes from api/agent-tool-names.ts, which must keep
 * up with the tool table.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { AGENT_TOOL_NAMES } from '../../src-main/api/agent-tool-names.ts';
import { BIN, connectStdio } from '../fixtures/mcp-client.ts';
import { tempDir } from '../fixtures/generate.ts';

const tmp = tempDir('folio-mcp-tool-names-');
afterAll(() => tmp.cleanup());

it('folio mcp --help lists exactly the tools of tools/list, in its order', async () => {
  const ws = tmp.path('ws');
  mkdirSync(ws, { recursive: true });
  const session = await connectStdio(ws, { cacheDir: tmp.path('cache'), clientName: 'names' });
  let listed: string[];
  try {
    listed = (await session.client.listTools()).tools.map((t) => t.name);
  } finally {
    await session.close();
  }
  const help = execFileSync(process.execPath, [BIN, 'mcp', '--help'], { encoding: 'utf8' });
  const inHelp = /\(tools: ([^)]*)\)/.exec(help.replace(/\s+/g, ' '))?.[1]?.split(', ');
  expect(inHelp).toEqual(listed);
  expect([...AGENT_TOOL_NAMES]).toEqual(listed);
});

it('the tool list built into the CLI bundle is the one the sources derive: names, descriptions, input and output schemas', async () => {
  const ws = tmp.path('ws-built');
  mkdirSync(ws, { recursive: true });
  const listWith = async (env: Record<string, string>) => {
    const session = await connectStdio(ws, { cacheDir: tmp.path('cache'), clientName: 'built', env });
    try {
      return (await session.client.listTools()).tools;
    } finally {
      await session.close();
    }
  };
  const built = await listWith({});
  const fromSources = await listWith({ FOLIO_CLI_FROM_SOURCE: '1' });
  expect(fromSources.map((t) => t.name)).toEqual([...AGENT_TOOL_NAMES]);
  expect(built).toEqual(fromSources);
});
