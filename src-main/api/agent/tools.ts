/**
 * The agent tools: a guard around the operation table. Each tool is one table
 * operation (same name, input schema and description) run through runOp; the guard
 * adds only the agent's policy:
 * - the path is resolved with realpath and checked against the workspace policy
 *   (roots, deny and read-only globs; permission_denied otherwise);
 * - reads are capped by the workspace caps, and file text in the answer passes the
 *   redactor, decided on whole lines (redact.ts; the answer counts `redactions`);
 * - searches list and count only lines whose redacted text matches (redact-search.ts);
 * - upserts follow the review policy of the path: `review` (default) stores a
 *   proposal for a person to decide, `auto` applies and journals it (undoable),
 *   `deny` refuses; an edit of lines that hold redacted secrets is refused.
 * What each tool answers is declared in schemas/agent.ts (the table's output plus
 * these additions); session.ts audits every call and checks the answer against it.
 */
import type { z } from 'zod';
import { FolioError } from '../../engine/errors.ts';
import { countTokens } from '../../engine/address/tokens.ts';
import { applyDirect } from '../../review/journal.ts';
import { propose } from '../../review/proposals.ts';
import { runOp, type CallContext, type OperationName, type OpInput } from '../handle.ts';
import { operations, type Actor } from '../operations.ts';
import { AgentFileInfoOutput, AgentOutlineOutput, AgentProposalStatusOutput, AgentReadOutput, AgentSearchOutput, AgentUpsertOutput } from '../schemas/agent.ts';
import { upsertRequestOf } from '../upsert-request.ts';
import { withPinnedFile } from '../../engine/index/pinned-file.ts';
import { checkAccess, reviewPolicyFor, type WorkspacePolicy } from './policy.ts';
import { answerTextOf, redactPreview, redactReadAnswer, redactStrings, redactedTargetLines, type RedactionRule } from './redact.ts';
import { visibleCount, visibleMatches } from './redact-search.ts';

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

function tool<N extends OperationName>(name: N, output: z.ZodObject, run: AgentTool<N>['run'], extraDescription = ''): AgentTool<N> {
  return { name, description: operations[name].description + extraDescription, input: operations[name].input, output, run };
}

/** The table's context for a session: its workspace, and for reads its caps. */
/** How the guard pins a file it checked: hard links refused unless the workspace allows them. */
const pinningOf = (s: AgentSession) => ({ refuseLinks: !s.policy.allowHardlinks });

function ctxOf(s: AgentSession): CallContext {
  return { workspace: s.policy.root, readCaps: { maxBytes: s.policy.caps.maxWindowBytes, maxFullBytes: s.policy.caps.maxFullBytes } };
}

const readTool = tool('read', AgentReadOutput, async (s, input) => {
  const real = checkAccess(s.policy, input.path, 'read');
  // The file that was checked, whatever a race does to its path meanwhile (pinned-file.ts).
  const { r, content, ranges, json, redactions } = await withPinnedFile(
    real,
    async (pinned) => {
      const r = await runOp('read', { ...input, path: pinned }, s.actor, ctxOf(s));
      // Decided on the whole lines the answer touches, whatever slice it holds (redact.ts).
      const { content, ranges, json, count: redactions } = await redactReadAnswer(s.rules, pinned, r);
      return { r, content, ranges, json, redactions };
    },
    pinningOf(s),
  );
  // A token count follows the text the agent gets.
  const tokens = r.tokens && redactions ? { ...r.tokens, count: await countTokens(answerTextOf({ content, ranges }), r.tokens.tokenizer) } : r.tokens;
  return {
    output: { ...r, content, ...(ranges ? { ranges } : {}), ...(json ? { json } : {}), ...(tokens ? { tokens } : {}), redactions },
    audit: {
      path: real,
      range: { start_line: r.start_line, end_line: r.end_line, start_byte: r.start_byte, end_byte: r.end_byte },
      version_before: r.version.etag,
      bytes_read: r.end_byte - r.start_byte,
    },
  };
});

const searchTool = tool(
  'search',
  AgentSearchOutput,
  async (s, input) => withPinnedFile(checkAccess(s.policy, input.path, 'read'), (pinned) => searchPinned(s, input, pinned), pinningOf(s)),
  ' Secrets match as redacted.',
);

/** An agent's search of the pinned file `real`. */
async function searchPinned(s: AgentSession, input: OpInput<'search'>, real: string) {
  const search = (i: typeof input) => runOp('search', { ...i, path: real }, s.actor, ctxOf(s));
  // Matches are judged on the redacted lines, so search is no oracle for a secret (redact-search.ts).
  if (input.count_only) {
    const r = await visibleCount(s.rules, real, input, search);
    return { output: { ...r, redactions: 0 }, audit: { path: real, version_before: r.version.etag, bytes_read: r.scanned.end_byte - r.scanned.start_byte } };
  }
  const r = await search(input);
  const { matches, dropped, redactions } = await visibleMatches(s.rules, real, input, r.matches);
  return {
    output: { ...r, matches, count: r.count - dropped, redactions },
    audit: { path: real, version_before: r.version.etag, bytes_read: r.scanned.end_byte - r.scanned.start_byte },
  };
}

const outlineTool = tool('outline', AgentOutlineOutput, async (s, input) => {
  const real = checkAccess(s.policy, input.path, 'read');
  const r = await withPinnedFile(real, (pinned) => runOp('outline', { ...input, path: pinned }, s.actor, ctxOf(s)), pinningOf(s));
  // Heading texts are file text: redacted like any other.
  return { output: { ...r, headings: redactStrings(s.rules, r.headings) }, audit: { path: real, version_before: r.version.etag, bytes_read: r.version.size } };
});

const fileInfoTool = tool('file_info', AgentFileInfoOutput, async (s, input) => {
  const real = checkAccess(s.policy, input.path, 'read');
  const r = await withPinnedFile(real, (pinned) => runOp('file_info', { ...input, path: pinned }, s.actor, ctxOf(s)), pinningOf(s));
  return { output: { ...r }, audit: { path: real, version_before: r.version.etag } };
});

const upsertTool = tool(
  'upsert',
  AgentUpsertOutput,
  async (s, asked) => {
    const real = checkAccess(s.policy, asked.path, 'write');
    const mode = reviewPolicyFor(s.policy, real);
    if (mode === 'deny') throw new FolioError('permission_denied', `agents may not edit ${asked.path} (review policy: deny)`, { path: real });
    // Read from the file checked here (pinned-file.ts), and written only if the path still leads to it (write-target.ts).
    const checked = { allowHardlinks: s.policy.allowHardlinks };
    const pinning = pinningOf(s);
    const { req, hidden } = await withPinnedFile(
      real,
      async (pinned) => {
        // A section or JSON target becomes the line or byte edit it names, checked below like any other.
        const { request } = await upsertRequestOf({ ...asked, path: pinned });
        return { req: { ...request, checked }, hidden: await redactedTargetLines(s.rules, pinned, request) };
      },
      pinning,
    );
    if (hidden.length) {
      throw new FolioError('redacted', `lines ${hidden.join(', ')} hold secrets that were redacted in what you read; a person must edit them`, {
        path: real,
        lines: hidden,
      });
    }
    if (req.dryRun) {
      const r = await runOp('upsert', { ...asked, path: real }, s.actor, { ...ctxOf(s), checked });
      const preview = await withPinnedFile(real, (pinned) => redactPreview(s.rules, pinned, r.preview), pinning);
      return {
        output: { ...r, preview, policy: mode },
        audit: { path: real, version_before: r.version_before.etag },
      };
    }
    if (mode === 'auto') {
      const entry = await applyDirect(s.policy.root, s.actor, real, req);
      return {
        output: {
          applied: true,
          policy: 'auto',
          journal_id: entry.id,
          path: real,
          version_before: entry.version_before,
          version_after: entry.version_after,
          range_after: entry.range_after,
        },
        audit: {
          path: real,
          version_before: entry.version_before.etag,
          version_after: entry.version_after.etag,
          bytes_written: entry.range_after.end_byte - entry.range_after.start_byte,
        },
      };
    }
    const p = await propose(s.policy.root, s.actor, {
      path: real,
      target: req.target,
      content: req.content,
      preconditions: req.preconditions,
      normalizeNewlines: req.normalizeNewlines,
      checked: req.checked,
    });
    // The agent gets the proposal's id, preview and ranges; the stored record (content blobs, journal links) stays with the reviewer.
    const { proposal: _record, ...answer } = p;
    const preview = await withPinnedFile(real, (pinned) => redactPreview(s.rules, pinned, p.preview), pinning);
    const redacted = redactStrings(s.rules, { ...answer, actor: p.proposal.actor, preview });
    return {
      output: { applied: false, policy: 'review', ...redacted, next: 'a person reviews it; call proposal_status with wait_ms to wait for the decision' },
      audit: { path: real, reason: `proposal ${p.proposal_id}` },
    };
  },
  ' Under the review policy (default) it becomes a proposal: follow proposal_id with proposal_status.',
);

const proposalStatusTool = tool('proposal_status', AgentProposalStatusOutput, async (s, input) => {
  const status = await runOp('proposal_status', input, s.actor, ctxOf(s));
  return { output: status, audit: { path: status.path } };
});

export const AGENT_TOOLS: AgentTool[] = [readTool, searchTool, fileInfoTool, outlineTool, upsertTool, proposalStatusTool] as AgentTool[];
