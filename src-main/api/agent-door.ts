/**
 * What a door may use of the agent guard (api/agent/**): the agent session and
 * its tools. Doors import this file, never api/agent/* directly (lint-enforced,
 * eslint.config.js), so policy, audit and redaction stay behind the api.
 */
export { AGENT_TOOLS, createAgentSession, runAgentTool, type AgentSession, type AgentTool, type PolicyOverrides } from './agent/session.ts';
