/**
 * The agent session: what an agent (over MCP) may do, written once for every agent
 * door. Each call is validated against the contract's schema, then:
 * - its path is resolved with realpath and checked against the workspace policy
 *   (roots, deny and read-only globs; permission_denied otherwise);
 * - reads are capped by the workspace caps, and text returned to the agent passes
 *   the redactor (the answer counts `redactions`); human views are never redacted;
 * - upserts follow the review policy of the path: `review` (default) stores a
 *   proposal for a person to decide, `auto` applies and journals it (undoable),
 *   `deny` refuses; an edit of lines that hold redacted secrets is refused;
 * - one audit line is written per call.
 */
import { z } from 'zod';
import { appendAudit } from '../engine/audit.ts';
import { FolioError, isFolioError } from '../engine/errors.ts';
import { fileInfo } from '../engine/file-info.ts';
import { checkAccess, loadPolicy, reviewPolicyFor, type PolicyOverrides, type WorkspacePolicy } from '../engine/policy.ts';
import { read } from '../engine/read.ts';
import { DEFAULT_RULES, redact, type RedactionRule } from '../engine/redact.ts';
import { searchPath } from '../engine/search-path.ts';
import { applyDirect } from '../review/journal.ts';
import { propose, showProposal } from '../review/proposals.ts';
import { watch } from '../review/watch.ts';
import { operations, type Actor } from './operations.ts';
import { toReadRequest } from './read-request.ts';
import { toSearchOptions } from './search-request.ts';
import { FileInfoInput, ReadInput, SearchInput, UpsertInput } from './schemas.ts';
import { toUpsertRequest } from './upsert-request.ts';

export type { PolicyOverrides } from '../engine/policy.ts';

export interface AgentSession {
  policy: WorkspacePolicy;
  actor: Actor;
  rules: RedactionRule[];
}

export function createAgentSession(root: string, agentName: string, overrides: PolicyOverrides = {}): AgentSession {
  return { policy: loadPolicy(root, overrides), actor: { kind: 'agent', name: agentName }, rules: DEFAULT_RULES };
}

export const ProposalStatusInput = z.object({
  proposal_id: z.string().min(1),
  wait_ms: z.number().int().min(0).max(120_000).optional().describe('Wait up to this long for a decision while the proposal is pending (default 0: answer at once).'),
});

interface ToolResult {
  output: Record<string, unknown>;
  audit: { path?: string; range?: Record<string, number | null>; version_before?: string; version_after?: string; bytes_read?: number; bytes_written?: number; reason?: string };
}

export interface AgentTool {
  name: string;
  description: string;
  input: z.ZodObject;
  run(session: AgentSession, input: unknown): Promise<ToolResult>;
}

function redactText(s: AgentSession, text: string): { text: string; count: number } {
  const r = redact(text, s.rules);
  return { text: r.text, count: r.count };
}

const readTool: AgentTool = {
  name: 'read',
  description: operations.read.description,
  input: ReadInput,
  async run(s, raw) {
    const input = ReadInput.parse(raw);
    const real = checkAccess(s.policy, input.path, 'read');
    const { req, opts } = toReadRequest({ ...input, path: real });
    if (req.mode === 'bytes' && (req.maxBytes ?? 0) > s.policy.caps.maxWindowBytes) req.maxBytes = s.policy.caps.maxWindowBytes;
    const r = await read(real, req, { ...opts, maxBytes: s.policy.caps.maxWindowBytes, maxFullBytes: s.policy.caps.maxFullBytes });
    let redactions = 0;
    const content = redactText(s, r.content);
    redactions += content.count;
    const ranges = r.ranges?.map((x) => {
      const c = redactText(s, x.content);
      return { ...x, content: c.text };
    });
    return {
      output: { ...r, content: content.text, ...(ranges ? { ranges } : {}), redactions },
      audit: { path: real, range: { start_line: r.start_line, end_line: r.end_line, start_byte: r.start_byte, end_byte: r.end_byte }, version_before: r.version.etag, bytes_read: r.end_byte - r.start_byte },
    };
  },
};

const searchTool: AgentTool = {
  name: 'search',
  description: operations.search.description,
  input: SearchInput,
  async run(s, raw) {
    const input = SearchInput.parse(raw);
    const real = checkAccess(s.policy, input.path, 'read');
    const r = await searchPath(real, toSearchOptions(input));
    let redactions = 0;
    const matches = r.matches.map((m) => {
      const t = redactText(s, m.text);
      redactions += t.count;
      return { ...m, text: t.text };
    });
    return {
      output: { ...r, matches, redactions },
      audit: { path: real, version_before: r.version.etag, bytes_read: r.scanned.endByte - r.scanned.startByte },
    };
  },
};

const fileInfoTool: AgentTool = {
  name: 'file_info',
  description: operations.file_info.description,
  input: FileInfoInput,
  async run(s, raw) {
    const input = FileInfoInput.parse(raw);
    const real = checkAccess(s.policy, input.path, 'read');
    const r = await fileInfo(real);
    return { output: { ...r }, audit: { path: real, version_before: r.version.etag } };
  },
};

/** Refuse an agent edit of lines that hold something the redactor hides from it. */
async function refuseRedactedTarget(s: AgentSession, real: string, input: z.infer<typeof UpsertInput>): Promise<void> {
  const t = input.target;
  const lines = new Set<number>();
  if (('replace' in t || 'delete' in t) && (('replace' in t ? t.replace : t.delete).units ?? 'lines') === 'lines') {
    const { start, end } = 'replace' in t ? t.replace : t.delete;
    for (let l = start; l <= Math.min(end, start + 10_000); l++) lines.add(l);
  }
  for (const a of input.anchors ?? []) {
    const n = Number(a.split('#')[0]);
    if (Number.isInteger(n) && n > 0) lines.add(n);
  }
  if (lines.size === 0) return;
  const ranges = [...lines].sort((a, b) => a - b).map((l) => ({ start: l, end: l }));
  const r = await read(real, { mode: 'lines', ranges: ranges.slice(0, 1000) }).catch(() => null);
  if (!r) return; // out-of-range targets get their own error from the engine
  const hidden = (r.ranges ?? []).filter((x) => redact(x.content, s.rules).count > 0).map((x) => x.start);
  if (hidden.length) {
    throw new FolioError('redacted', `lines ${hidden.join(', ')} hold secrets that were redacted in what you read; a person must edit them`, {
      path: real,
      lines: hidden,
    });
  }
}

const upsertTool: AgentTool = {
  name: 'upsert',
  description:
    operations.upsert.description +
    ' Under the workspace review policy (the default) the edit becomes a proposal a person approves: the answer has proposal_id and the preview; ' +
    'follow it with proposal_status. Under auto it is applied at once.',
  input: UpsertInput,
  async run(s, raw) {
    const input = UpsertInput.parse(raw);
    const real = checkAccess(s.policy, input.path, 'write');
    const mode = reviewPolicyFor(s.policy, real);
    if (mode === 'deny') throw new FolioError('permission_denied', `agents may not edit ${input.path} (review policy: deny)`, { path: real });
    await refuseRedactedTarget(s, real, input);
    const req = toUpsertRequest({ ...input, path: real });
    if (req.dryRun) {
      const { upsert } = await import('../engine/upsert.ts');
      const r = await upsert(real, req);
      return { output: { ...r, policy: mode }, audit: { path: real, version_before: r.version_before.etag } };
    }
    if (mode === 'auto') {
      const entry = await applyDirect(s.policy.root, s.actor, real, req);
      return {
        output: { applied: true, policy: 'auto', journal_id: entry.id, path: real, version_before: entry.version_before, version_after: entry.version_after, range_after: entry.range_after },
        audit: { path: real, version_before: entry.version_before.etag, version_after: entry.version_after.etag, bytes_written: entry.range_after.end_byte - entry.range_after.start_byte },
      };
    }
    const p = await propose(s.policy.root, s.actor, { path: real, target: req.target, content: req.content, preconditions: req.preconditions, normalizeNewlines: req.normalizeNewlines });
    return {
      output: { applied: false, policy: 'review', ...p, next: 'a person reviews it; call proposal_status with wait_ms to wait for the decision' },
      audit: { path: real, reason: `proposal ${p.proposal_id}` },
    };
  },
};

function statusOf(root: string, id: string) {
  const { proposal, entry } = showProposal(root, id);
  return {
    proposal_id: proposal.id,
    status: proposal.status,
    path: proposal.path,
    decided_by: proposal.decided_by,
    decided_at: proposal.decided_at,
    reason: proposal.reason,
    conflict: proposal.conflict,
    ...(entry ? { version_after: entry.version_after, range_after: entry.range_after } : {}),
  };
}

const proposalStatusTool: AgentTool = {
  name: 'proposal_status',
  description:
    'The decision on a proposal made by upsert under the review policy: pending, applied, rejected (with the reason) or conflict (the file changed before approval: re-read and propose again). ' +
    'With wait_ms, waits up to that long for a decision.',
  input: ProposalStatusInput,
  async run(s, raw) {
    const input = ProposalStatusInput.parse(raw);
    let status = statusOf(s.policy.root, input.proposal_id);
    if (status.status === 'pending' && input.wait_ms) {
      status = await new Promise((resolveWait) => {
        const timer = setTimeout(() => finish(), input.wait_ms);
        const off = watch(s.policy.root, () => {
          const now = statusOf(s.policy.root, input.proposal_id);
          if (now.status !== 'pending') finish(now);
        });
        function finish(now = statusOf(s.policy.root, input.proposal_id)) {
          clearTimeout(timer);
          off();
          resolveWait(now);
        }
      });
    }
    return { output: status, audit: { path: status.path } };
  },
};

export const AGENT_TOOLS: AgentTool[] = [readTool, searchTool, fileInfoTool, upsertTool, proposalStatusTool];

/** Run an agent tool: the result, or a FolioError; either way one audit line. */
export async function runAgentTool(s: AgentSession, name: string, input: unknown): Promise<Record<string, unknown>> {
  const tool = AGENT_TOOLS.find((t) => t.name === name);
  const path = typeof (input as { path?: unknown })?.path === 'string' ? (input as { path: string }).path : undefined;
  try {
    if (!tool) throw new FolioError('invalid_input', `unknown tool: ${name}`, { tool: name });
    const r = await tool.run(s, input);
    appendAudit(s.policy.root, { actor: s.actor, op: name, outcome: 'ok', ...r.audit });
    return r.output;
  } catch (err) {
    const e = isFolioError(err)
      ? err
      : err instanceof z.ZodError
        ? new FolioError('invalid_input', `invalid input for ${name}: ${z.prettifyError(err)}`, { tool: name })
        : new FolioError('io_error', err instanceof Error ? err.message : String(err), {});
    appendAudit(s.policy.root, { actor: s.actor, op: name, outcome: 'error', code: e.code, reason: e.message, ...(path ? { path } : {}) });
    throw e;
  }
}
