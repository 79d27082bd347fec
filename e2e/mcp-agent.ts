/**
 * A real agent for the review tests: the MCP SDK client talking to
 * `node bin/folio.mjs mcp --root WS` over stdio, as any MCP host would.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN } from './folio-serve.ts';
import { answerOfResult } from '../src-main/doors/mcp/reply.ts';

export interface McpAgent {
  /** Calls a Folio tool; returns the parsed JSON answer, throwing on isError. */
  // The answers are the api's shapes, checked field by field where used.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  call(tool: string, args: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

export async function connectAgent(root: string, env: Record<string, string>, name = 'e2e-agent'): Promise<McpAgent> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--root', root],
    cwd: root,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return {
    async call(tool, args) {
      const result = await client.callTool({ name: tool, arguments: args });
      const { text, body } = answerOfResult(result);
      if (result.isError) throw new Error(`${tool} failed: ${text}\nstderr: ${stderr}`);
      return body;
    },
    close: () => client.close(),
  };
}
