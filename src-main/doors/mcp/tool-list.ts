/**
 * The MCP tool list: each agent tool with the compact, strict JSON Schemas tools/list
 * advertises (api/tool-schema.ts) and the wire form its calls are decoded from. A
 * function of the operation table alone, so the CLI bundle computes it once when it is
 * built (scripts/build-cli.mjs) instead of at every `folio mcp` start.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentTool } from '../../api/agent-door.ts';
import { toolInputSchemaOf, toolOutputSchemaOf, type ToolInputSchema } from '../../api/tool-schema.ts';

export interface McpToolEntry {
  tool: Tool;
  wire: ToolInputSchema;
}

export function mcpToolsOf(tools: readonly AgentTool[]): McpToolEntry[] {
  return tools.map((t) => {
    const wire = toolInputSchemaOf(t.input);
    // outputSchema: the table's output plus what the agent guard adds (src-main/api/schemas/agent.ts).
    const tool = { name: t.name, description: t.description, inputSchema: wire.schema, outputSchema: toolOutputSchemaOf(t.output) } as Tool;
    return { tool, wire };
  });
}
