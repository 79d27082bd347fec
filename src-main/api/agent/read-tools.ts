/**
 * The agent's reading tools (read, search, list, outline, file_info): the table's
 * operations on the path as the policy resolved it, capped by the workspace's
 * caps, with file text redacted on whole lines (tools.ts says the guard's rules).
 */
import { countTokens } from '../../engine/address/tokens.ts';
import { onPlainPaths, plainFileOf } from '../compressed-paths.ts';
import { runOp, type CallContext, type OpInput } from '../handle.ts';
import { outlineView } from '../operations.ts';
import { isRemoteLocator } from '../input-paths.ts';
import { withReadFacts } from '../read-facts.ts';
import { AgentFileInfoOutput, AgentOutlineOutput, AgentReadOutput, AgentSearchOutput } from '../schemas/agent.ts';
import { AgentListOutput } from '../schemas/agent.ts';
import { isDirectoryPath } from '../tree-wire.ts';
import { withCheckedFile, pinningOf } from './checked-file.ts';
import { checkAccess, checkDirectoryAccess } from './policy.ts';
import { visibleTreeAnswer, visibleTreeCount } from './redact-tree-search.ts';
import { answerTextOf, redactReadAnswer, redactStrings } from './redact.ts';
import { visibleCount, visibleMatches } from './redact-search.ts';
import { refuseHiddenFilter } from './redact-json-filter.ts';
import { tool, ctxOf, type AgentSession } from './tool-kit.ts';

export const readTool = tool('read', AgentReadOutput, async (s, input) => {
  const real = checkAccess(s.policy, input.path, 'read');
  // The file that was checked, whatever a race does to its path meanwhile (pinned-file.ts).
  const { r, content, ranges, json, redactions } = await withCheckedFile(
    real,
    async (pinned) => {
      // A filter over a document with hidden values would test them (redact-json-filter.ts).
      // Redaction reads lines around the answer itself: of a compressed log, its plain file (compressed-paths.ts).
      const plain = await plainFileOf(pinned, ctxOf(s));
      if (input.json_path !== undefined) await refuseHiddenFilter(s.rules, plain, input.json_path, input.jsonl_line);
      const r = await runOp('read', { ...input, path: pinned }, s.actor, ctxOf(s));
      // Decided on the whole lines the answer touches, whatever slice it holds (redact.ts).
      const { content, ranges, json, count: redactions } = await redactReadAnswer(s.rules, plain, r);
      return { r, content, ranges, json, redactions };
    },
    pinningOf(s),
  );
  // A token count follows the text the agent gets.
  const tokens = r.tokens && redactions ? { ...r.tokens, count: await countTokens(answerTextOf({ content, ranges }), r.tokens.tokenizer) } : r.tokens;
  return {
    // The type judged from the name the agent gave, not the pinned /proc/self/fd path the read ran on.
    output: { ...withReadFacts(r, real), content, ...(ranges ? { ranges } : {}), ...(json ? { json } : {}), ...(tokens ? { tokens } : {}), redactions },
    audit: {
      path: real,
      range: { start_line: r.start_line, end_line: r.end_line, start_byte: r.start_byte, end_byte: r.end_byte },
      version_before: r.version.etag,
      bytes_read: r.end_byte - r.start_byte,
    },
  };
});

export const searchTool = tool(
  'search',
  AgentSearchOutput,
  async (s, input) =>
    isDirectoryPath(s.policy.root, input.path)
      ? searchDirectory(s, input)
      : withCheckedFile(checkAccess(s.policy, input.path, 'read'), (pinned) => searchPinned(s, input, pinned), pinningOf(s)),
  ' A directory: every file under it like rg (glob, context, next_cursor). Secrets match as redacted.',
);

/** An agent's search of the pinned file `real`. */
async function searchPinned(s: AgentSession, input: OpInput<'search'>, real: string) {
  const search = (i: typeof input) => runOp('search', { ...i, path: real }, s.actor, ctxOf(s));
  // Matches are redacted on the lines of the text searched: a compressed log's plain file.
  const plain = await plainFileOf(real, ctxOf(s));
  // Matches are judged on the redacted lines, so search is no oracle for a secret (redact-search.ts).
  if (input.count_only) {
    const r = await visibleCount(s.rules, plain, input, search);
    return { output: { ...r, redactions: 0 }, audit: { path: real, version_before: r.version.etag, bytes_read: r.scanned.end_byte - r.scanned.start_byte } };
  }
  const r = await search(input);
  const { matches, dropped, redactions } = await visibleMatches(s.rules, plain, input, r.matches);
  return {
    output: { ...r, matches, count: r.count - dropped, redactions },
    audit: { path: real, version_before: r.version.etag, bytes_read: r.scanned.end_byte - r.scanned.start_byte },
  };
}

// --- Reading and finding across the workspace (issue 14): directory search and list ---

/** The walk of a checked directory: what the policy denies is never met, files opened as walked. */
function walkOf(s: AgentSession, admit: (abs: string, rel: string, kind: 'file' | 'dir') => boolean): CallContext {
  return { ...ctxOf(s), walk: { admit, refuseLinks: !s.policy.allowHardlinks } };
}

/** An agent's search of a directory: inside the roots, denied files skipped, every file's matches redacted like a one-file search. */
async function searchDirectory(s: AgentSession, input: OpInput<'search'>) {
  const { real, admit } = checkDirectoryAccess(s.policy, input.path);
  const search = (i: typeof input) => runOp('search_tree', { ...i, path: real }, s.actor, walkOf(s, admit));
  const r = input.count_only
    ? await visibleTreeCount(s.rules, input, search, pinningOf(s))
    : await visibleTreeAnswer(s.rules, input, await search(input), pinningOf(s));
  return { output: { ...r }, audit: { path: real, bytes_read: r.bytes_searched, reason: `directory search: ${r.files_searched} files` } };
}

export const listTool = tool('list', AgentListOutput, async (s, input) => {
  const { real, admit } = checkDirectoryAccess(s.policy, input.path);
  const r = await runOp('list', { ...input, path: real }, s.actor, walkOf(s, admit));
  return { output: { ...r }, audit: { path: real, reason: `list: ${r.entries.length} entries` } };
});

// --- end issue 14 ---

export const outlineTool = tool('outline', AgentOutlineOutput, async (s, input) => {
  const real = checkAccess(s.policy, input.path, 'read');
  // A local file is outlined under its own name (a log's outline is its histogram, a markdown file's its headings).
  const r = await withCheckedFile(
    real,
    async (pinned) =>
      isRemoteLocator(real)
        ? runOp('outline', { ...input, path: pinned }, s.actor, ctxOf(s))
        : // A compressed log is outlined from its plain file, named `real` (compressed-paths.ts).
          (onPlainPaths('outline', { ...input, path: pinned }, ctxOf(s), (i) => outlineView(i, real)) as ReturnType<typeof outlineView>),
    pinningOf(s),
  );
  // Heading texts are file text: redacted like any other.
  return { output: { ...r, headings: redactStrings(s.rules, r.headings) }, audit: { path: real, version_before: r.version.etag, bytes_read: r.version.size } };
});

export const fileInfoTool = tool('file_info', AgentFileInfoOutput, async (s, input) => {
  const real = checkAccess(s.policy, input.path, 'read');
  const r = await withCheckedFile(real, (pinned) => runOp('file_info', { ...input, path: pinned }, s.actor, ctxOf(s)), pinningOf(s));
  return { output: { ...r }, audit: { path: real, version_before: r.version.etag } };
});
