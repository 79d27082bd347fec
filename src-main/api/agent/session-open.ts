/**
 * Opening an agent session: the workspace policy, the backends its config names and
 * the redaction rules. Apart from the agent tools (session.ts, tools.ts) because it
 * needs no operation schema: `folio mcp` opens its session at start (a bad policy
 * fails the start) and loads the tools with the first call.
 */
import { configureBackendsFor } from '../remote-ops.ts';
import { loadPolicy, type PolicyOverrides } from './policy.ts';
import { DEFAULT_RULES } from './secret-spans.ts';
import type { AgentSession } from './tool-kit.ts';

export function createAgentSession(root: string, agentName: string, overrides: PolicyOverrides = {}): AgentSession {
  const policy = loadPolicy(root, overrides);
  // Remote locators connect as the workspace config's `backends` says.
  configureBackendsFor(policy.root);
  return { policy, actor: { kind: 'agent', name: agentName }, rules: DEFAULT_RULES };
}
