/**
 * What a door may use of the agent guard (api/agent/**): the agent session and
 * its tools. Doors import this file, never api/agent/* directly (lint-enforced,
 * eslint.config.js), so policy, audit and redaction stay behind the api.
 *
 * The tools (and with them the operation table's schemas) load on demand,
 * `loadAgentTools()`: building those schemas was a sixth of an MCP start, and
 * `initialize` needs none of them (the CLI bundle carries the tool list, built with
 * it: doors/mcp/tool-list.ts).
 */
export { createAgentSession } from './agent/session-open.ts';
export type { AgentSession, AgentTool } from './agent/tool-kit.ts';
export type { PolicyOverrides } from './agent/policy.ts';

/** The agent tools and their runner: AGENT_TOOLS, runAgentTool (api/agent/session.ts). */
export const loadAgentTools = () => import('./agent/session.ts');

/**
 * What an agent's first tool call would wait for, done ahead, once its client has
 * initialized: the tools and the read and search code loaded, the index and search
 * workers started. On 2 cores the first `search` of a fresh `folio mcp` paid ~180 ms
 * loading code and ~110 ms for each pool's workers to boot, one pool after the
 * other (a 64 MiB log: 575 ms for the first search, 27 ms for the second).
 */
export async function prewarmAgentDoor(): Promise<void> {
  // runs.ts is imported here, not at the top: the door's start (`initialize`) must not load it.
  const { readCode, searchCode } = await import('./runs.ts');
  const [, , , { startIndexWorkers }, { startSearchWorkers }] = await Promise.all([
    loadAgentTools(),
    readCode(),
    searchCode(),
    import('../engine/index/builder.ts'),
    import('../engine/search/search.ts'),
  ]);
  startIndexWorkers();
  startSearchWorkers();
}
