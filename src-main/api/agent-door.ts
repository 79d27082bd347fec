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
