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
import { realpathSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { z } from 'zod';
import { appendAudit } from './audit.ts';
import { FolioError, isFolioError } from '../../engine/errors.ts';
import { fileInfo } from '../../engine/read/file-info.ts';
import { checkAccess, loadPolicy, reviewPolicyFor, type PolicyOverrides, type WorkspacePolicy } from './policy.ts';
import { answerText, read } from '../../engine/read/read.ts';
import { DEFAULT_RULES, redact, type RedactionRule } from './redact.ts';
import { searchPath } from '../../engine/search/search-path.ts';
import { applyDirect } from '../../review/journal.ts';
import { propose, showProposal } from '../../review/proposals.ts';
import { watch } from '../../review/watch.ts';
import { operations, type Actor } from '../operations.ts';
import { outlineView } from '../operations.ts';
import { readByInput } from '../read-address.ts';
import { toSearchOptions } from '../search-request.ts';
import { FileInfoInput, OutlineInput, ReadInput, SearchInput, UpsertInput } from '../schemas.ts';
import { resolveUpsertInput, toUpsertRequest } from '../upsert-request.ts';
import { countTokens } from '../../engine/address/tokens.ts';

export type { PolicyOverrides } from './policy.ts';

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

const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;
const KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY-----/;
/** A key marker, or a line of base64 as long as a key body's. */
const MAY_HOLD_KEY = /PRIVATE KEY-----|^(?:\d+#[0-9a-f?]{3}\|)?[A-Za-z0-9+/=]{40,}\r?$/m;
/** Key blocks are a few dozen lines: look this far around a window for their markers. */
const KEY_CONTEXT_LINES = 200;

/**
 * Lines (1-based) within [from, to] that lie inside a private key block, found with
 * KEY_CONTEXT_LINES of context on both sides: a window that holds only the body of
 * a key (no BEGIN/END line) must still be redacted.
 */
async function secretLinesAround(path: string, from: number, to: number, seen: string): Promise<Set<number>> {
  const out = new Set<number>();
  if (!MAY_HOLD_KEY.test(seen)) return out; // no marker, no base64 body line: nothing to look around for
  const start = Math.max(1, from - KEY_CONTEXT_LINES);
  const r = await read(path, { mode: 'lines', ranges: [{ start, end: to + KEY_CONTEXT_LINES }] }).catch(() => null);
  if (!r) return out;
  const lines = r.content.split('\n');
  let open = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (open < 0 && KEY_BEGIN.test(line)) open = i;
    if (KEY_END.test(line)) {
      // An END with no BEGIN in view: the block began before the context.
      for (let j = open < 0 ? 0 : open; j <= i; j++) out.add(start + j);
      open = -1;
    }
  }
  if (open >= 0) for (let j = open; j < lines.length; j++) out.add(start + j); // not closed in view
  for (const l of out) if (l < from || l > to) out.delete(l);
  return out;
}

/** Redact `content` (lines from `firstLine`, maybe hashline-prefixed): secret lines whole, then the rules. */
function redactLines(s: AgentSession, content: string, firstLine: number, secret: Set<number>): { text: string; count: number } {
  let count = 0;
  let text = content;
  if (secret.size) {
    text = content
      .split('\n')
      .map((line, i) => {
        if (!secret.has(firstLine + i) || line === '') return line;
        count++;
        const prefix = /^\d+#[0-9a-f?]{3}\|/.exec(line)?.[0] ?? '';
        return `${prefix}[REDACTED:private_key]${line.endsWith('\r') ? '\r' : ''}`;
      })
      .join('\n');
  }
  const r = redactText(s, text);
  return { text: r.text, count: count + r.count };
}

const readTool: AgentTool = {
  name: 'read',
  description: operations.read.description,
  input: ReadInput,
  async run(s, raw) {
    const input = ReadInput.parse(raw);
    const real = checkAccess(s.policy, input.path, 'read');
    const r = await readByInput({ ...input, path: real }, { maxBytes: s.policy.caps.maxWindowBytes, maxFullBytes: s.policy.caps.maxFullBytes });
    const secret = r.start_line === null ? new Set<number>() : await secretLinesAround(real, r.start_line, r.end_line ?? r.start_line, answerText(r));
    let redactions = 0;
    const ranges = r.ranges?.map((x) => {
      const c = redactLines(s, x.content, x.start, secret);
      redactions += c.count;
      return { ...x, content: c.text };
    });
    const content = ranges ? { text: '', count: 0 } : redactLines(s, r.content, r.start_line ?? 1, secret);
    redactions += content.count;
    // JSON values are file text too; a token count follows the text the agent gets.
    const json = r.json ? redactStrings(s, r.json) : undefined;
    const tokens = r.tokens && redactions ? { ...r.tokens, count: await countTokens(content.text, r.tokens.tokenizer) } : r.tokens;
    return {
      output: { ...r, content: content.text, ...(ranges ? { ranges } : {}), ...(json ? { json } : {}), ...(tokens ? { tokens } : {}), redactions },
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
    const secret = r.matches.length ? await secretLinesAround(real, r.matches[0]!.line, r.matches.at(-1)!.line, r.matches.map((m) => m.text).join('\n')) : new Set<number>();
    let redactions = 0;
    const matches = r.matches.map((m) => {
      const t = secret.has(m.line) ? { text: '[REDACTED:private_key]', count: 1 } : redactText(s, m.text);
      redactions += t.count;
      return { ...m, text: t.text };
    });
    return {
      output: { ...r, matches, redactions },
      audit: { path: real, version_before: r.version.etag, bytes_read: r.scanned.endByte - r.scanned.startByte },
    };
  },
};

const outlineTool: AgentTool = {
  name: 'outline',
  description: operations.outline.description,
  input: OutlineInput,
  async run(s, raw) {
    const input = OutlineInput.parse(raw);
    const real = checkAccess(s.policy, input.path, 'read');
    const r = await outlineView({ ...input, path: real });
    // Heading texts are file text: redacted like any other.
    return { output: { ...r, headings: redactStrings(s, r.headings) }, audit: { path: real, version_before: r.version.etag, bytes_read: r.version.size } };
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
  const span = 'replace' in t ? t.replace : 'delete' in t ? t.delete : null;
  if (span && (span.units ?? 'lines') === 'lines') {
    for (let l = span.start; l <= Math.min(span.end, span.start + 10_000); l++) lines.add(l);
  } else if (span || ('insert' in t && t.insert.units === 'bytes')) {
    // Byte targets: the lines they touch (a byte insert inside a line changes that line).
    const [from, to] = span ? [span.start, Math.max(span.start + 1, span.end)] : [(t as { insert: { at: number } }).insert.at, (t as { insert: { at: number } }).insert.at + 1];
    const r = await read(real, { mode: 'exact', startByte: from, endByte: to }).catch(() => null);
    if (r?.start_line) for (let l = r.start_line; l <= (r.end_line ?? r.start_line); l++) lines.add(l);
  }
  for (const a of input.anchors ?? []) {
    const n = Number(a.split('#')[0]);
    if (Number.isInteger(n) && n > 0) lines.add(n);
  }
  if (lines.size === 0) return;
  const sorted = [...lines].sort((a, b) => a - b);
  const r = await read(real, { mode: 'lines', ranges: sorted.slice(0, 1000).map((l) => ({ start: l, end: l })) }).catch(() => null);
  if (!r) return; // out-of-range targets get their own error from the engine
  // Line by line: adjacent target lines come back merged into one range; several ranges carry their own text.
  const pieces = r.ranges ?? (r.start_line === null ? [] : [{ start: r.start_line, content: r.content }]);
  const secret = await secretLinesAround(real, sorted[0]!, sorted.at(-1)!, answerText(r));
  const hidden = pieces.flatMap((x) =>
    x.content
      .split(/(?<=\n)/)
      .map((text, i) => ({ lineNo: x.start + i, text }))
      .filter(({ lineNo, text }) => lines.has(lineNo) && (secret.has(lineNo) || redact(text, s.rules).count > 0))
      .map(({ lineNo }) => lineNo),
  );
  if (hidden.length) {
    throw new FolioError('redacted', `lines ${hidden.join(', ')} hold secrets that were redacted in what you read; a person must edit them`, {
      path: real,
      lines: hidden,
    });
  }
}

/** Every string inside `value`, redacted (a proposal's preview is file text). */
function redactStrings<T>(s: AgentSession, value: T): T {
  if (typeof value === 'string') return redactText(s, value).text as T;
  if (Array.isArray(value)) return value.map((v) => redactStrings(s, v)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(s, v)])) as T;
  }
  return value;
}

/**
 * Redact the unified diff an agent gets back: its context and removed lines are file
 * text, so lines inside a private key block are blanked (mapped to file lines by the
 * hunk headers) and the rules run over the rest.
 */
async function redactPreview(s: AgentSession, real: string, preview: string): Promise<string> {
  const lines = preview.split('\n');
  const oldLineOf: (number | null)[] = [];
  let oldLine = 0;
  for (const line of lines) {
    const h = /^@@ -(\d+)/.exec(line);
    if (h) {
      oldLine = Number(h[1]);
      oldLineOf.push(null);
    } else if (oldLine && (line.startsWith(' ') || (line.startsWith('-') && !line.startsWith('---')))) {
      oldLineOf.push(oldLine++);
    } else {
      oldLineOf.push(null);
    }
  }
  const known = oldLineOf.filter((l): l is number => l !== null);
  const secret = known.length ? await secretLinesAround(real, Math.min(...known), Math.max(...known), preview) : new Set<number>();
  const blanked = lines.map((line, i) => {
    const l = oldLineOf[i];
    return l !== null && l !== undefined && secret.has(l) ? `${line[0]}[REDACTED:private_key]` : line;
  });
  return redactText(s, blanked.join('\n')).text;
}

const upsertTool: AgentTool = {
  name: 'upsert',
  description:
    operations.upsert.description +
    ' Under the workspace review policy (the default) the edit becomes a proposal a person approves: the answer has proposal_id and the preview; ' +
    'follow it with proposal_status. Under auto it is applied at once.',
  input: UpsertInput,
  async run(s, raw) {
    const asked = UpsertInput.parse(raw);
    const real = checkAccess(s.policy, asked.path, 'write');
    const mode = reviewPolicyFor(s.policy, real);
    if (mode === 'deny') throw new FolioError('permission_denied', `agents may not edit ${asked.path} (review policy: deny)`, { path: real });
    // A section or JSON target becomes the line or byte edit it names, checked below like any other.
    const input = await resolveUpsertInput({ ...asked, path: real });
    await refuseRedactedTarget(s, real, input);
    const req = toUpsertRequest({ ...input, path: real });
    if (req.dryRun) {
      const { upsert } = await import('../../engine/write/upsert.ts');
      const r = await upsert(real, req);
      return { output: { ...r, preview: await redactPreview(s, real, r.preview), policy: mode }, audit: { path: real, version_before: r.version_before.etag } };
    }
    if (mode === 'auto') {
      const entry = await applyDirect(s.policy.root, s.actor, real, req);
      return {
        output: { applied: true, policy: 'auto', journal_id: entry.id, path: real, version_before: entry.version_before, version_after: entry.version_after, range_after: entry.range_after },
        audit: { path: real, version_before: entry.version_before.etag, version_after: entry.version_after.etag, bytes_written: entry.range_after.end_byte - entry.range_after.start_byte },
      };
    }
    const p = await propose(s.policy.root, s.actor, { path: real, target: req.target, content: req.content, preconditions: req.preconditions, normalizeNewlines: req.normalizeNewlines });
    // The agent gets the proposal's id, preview and ranges; the stored record (content blobs, journal links) stays with the reviewer.
    const { proposal: _record, ...answer } = p;
    const redacted = redactStrings(s, { ...answer, actor: p.proposal.actor, preview: await redactPreview(s, real, p.preview) });
    return {
      output: { applied: false, policy: 'review', ...redacted, next: 'a person reviews it; call proposal_status with wait_ms to wait for the decision' },
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

export const AGENT_TOOLS: AgentTool[] = [readTool, searchTool, fileInfoTool, outlineTool, upsertTool, proposalStatusTool];

function resolvedPathOf(root: string, path: string): string {
  const abs = resolvePath(root, path);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/** Run an agent tool: the result, or a FolioError; either way one audit line. */
export async function runAgentTool(s: AgentSession, name: string, input: unknown): Promise<Record<string, unknown>> {
  const tool = AGENT_TOOLS.find((t) => t.name === name);
  const asked = typeof (input as { path?: unknown })?.path === 'string' ? (input as { path: string }).path : undefined;
  // Audit under the path the call resolves to, failed calls included, so --path finds them.
  const path = asked === undefined ? undefined : resolvedPathOf(s.policy.root, asked);
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
