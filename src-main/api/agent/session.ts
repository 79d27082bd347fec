/**
 * The agent session: who the agent is and the workspace policy and redaction
 * rules it runs under, written once for every agent door. runAgentTool runs one
 * agent tool (tools.ts: the guard around the operation table), checks its answer
 * against the tool's declared output schema and writes one audit line per call,
 * failed calls included. Errors are redacted like answers before they leave
 * (redact-details.ts: file text in their details by whole lines).
 */
import { realpathSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { FolioError } from '../../engine/errors.ts';
import { redactErrorForAgent } from './redact-details.ts';
import { errorPayloadOf } from '../error-payload.ts';
import { parseInputAs } from '../handle.ts';
import { appendAudit } from './audit.ts';
import { AGENT_TOOLS, type AgentSession, type AgentTool } from './tools.ts';

export { createAgentSession } from './session-open.ts';
export type { PolicyOverrides } from './policy.ts';
export { AGENT_TOOLS, type AgentSession, type AgentTool } from './tools.ts';

function resolvedPathOf(root: string, path: string): string {
  const abs = resolvePath(root, path);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/**
 * `output` as the tool declares it (unknown fields dropped), so what an agent gets
 * is exactly what the tool's outputSchema says. A mismatch is our bug: thrown as a
 * plain Error, it reaches the agent as code `internal`.
 */
function declaredOutputOf(tool: AgentTool, output: Record<string, unknown>): Record<string, unknown> {
  const parsed = tool.output.safeParse(output);
  if (!parsed.success) throw new Error(`the ${tool.name} answer does not match its output schema: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * Run an agent tool: its answer, or the error thrown (redacted); either way one audit line.
 * `argumentsOf` turns a door's wire form into the tool's input (MCP: api/tool-schema.ts), inside the audit.
 */
export async function runAgentTool(
  s: AgentSession,
  name: string,
  input: unknown,
  argumentsOf: (input: unknown) => unknown = (i) => i,
): Promise<Record<string, unknown>> {
  const tool = AGENT_TOOLS.find((t) => t.name === name);
  const asked = typeof (input as { path?: unknown })?.path === 'string' ? (input as { path: string }).path : undefined;
  // Audit under the path the call resolves to, failed calls included, so --path finds them.
  const path = asked === undefined ? undefined : resolvedPathOf(s.policy.root, asked);
  // The reason the agent gave for a write, on its audit line whatever the outcome (its first 500 characters).
  const given = (input as { reason?: unknown } | null)?.reason;
  const why = typeof given === 'string' && given !== '' ? { caller_reason: given.slice(0, 500) } : {};
  try {
    if (!tool) throw new FolioError('invalid_input', `unknown tool: ${name}`, { tool: name });
    const r = await tool.run(s, parseInputAs(tool.input, tool.name, argumentsOf(input)) as never);
    const output = declaredOutputOf(tool, r.output);
    appendAudit(s.policy.root, { actor: s.actor, op: name, outcome: 'ok', ...r.audit, ...why });
    return output;
  } catch (thrown) {
    // Message and details as an agent may see them: file text in them by whole lines, as reads are (redact-details.ts).
    const err = await redactErrorForAgent(s, thrown, asked);
    const e = errorPayloadOf(err);
    appendAudit(s.policy.root, { actor: s.actor, op: name, outcome: 'error', code: e.code, reason: e.message, ...(path ? { path } : {}), ...why });
    throw err;
  }
}
