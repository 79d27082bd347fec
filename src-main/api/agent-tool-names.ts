/**
 * The names of the agent tools, in tools/list order, without loading the tools:
 * `folio mcp --help` lists them at start-up of every CLI call. AGENT_TOOLS
 * (agent/tools.ts) is the table; test/mcp/tool-names.test.ts holds the two equal.
 */
export const AGENT_TOOL_NAMES = ['read', 'search', 'file_info', 'outline', 'upsert', 'edit', 'proposal_status', 'list'] as const;
