/**
 * What every agent tool is made of: the session it runs in, what it leaves in the
 * audit log, and `tool()`, which takes the operation table's name, input schema
 * and description and adds the guard's run and declared output (tools.ts).
 */
import type { z } from 'zod';
import { type CallContext, type OperationName, type OpInput } from '../handle.ts';
import { operations, type Actor } from '../operations.ts';
import { type WorkspacePolicy } from './policy.ts';
import { type RedactionRule } from './redact.ts';

export interface AgentSession {
  policy: WorkspacePolicy;
  actor: Actor;
  rules: RedactionRule[];
}

/** What a tool call leaves in the audit log besides actor, op and outcome. */
export interface AuditFields {
  path?: string;
  range?: Record<string, number | null>;
  version_before?: string;
  version_after?: string;
  bytes_read?: number;
  bytes_written?: number;
  reason?: string;
}

export interface AgentTool<N extends OperationName = OperationName> {
  name: N;
  description: string;
  input: (typeof operations)[N]['input'];
  /** the table's output schema extended with what the guard adds */
  output: z.ZodObject;
  run(s: AgentSession, input: OpInput<N>): Promise<{ output: Record<string, unknown>; audit: AuditFields }>;
}

export function tool<N extends OperationName>(
  name: N,
  output: z.ZodObject,
  run: AgentTool<N>['run'],
  extraDescription = '',
  input: (typeof operations)[N]['input'] = operations[name].input,
): AgentTool<N> {
  return { name, description: operations[name].description + extraDescription, input, output, run };
}

/** The table's context for a session: its workspace, and for reads its caps. */
export function ctxOf(s: AgentSession): CallContext {
  return { workspace: s.policy.root, readCaps: { maxBytes: s.policy.caps.maxWindowBytes, maxFullBytes: s.policy.caps.maxFullBytes } };
}
