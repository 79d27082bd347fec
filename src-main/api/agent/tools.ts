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
import { fileInfoTool, listTool, outlineTool, readTool, searchTool } from './read-tools.ts';
import type { AgentTool } from './tool-kit.ts';
import { editTool, proposalStatusTool, upsertTool } from './write-tools.ts';

export type { AgentSession, AgentTool, AuditFields } from './tool-kit.ts';

export const AGENT_TOOLS: AgentTool[] = [readTool, searchTool, fileInfoTool, outlineTool, upsertTool, editTool, proposalStatusTool, listTool] as AgentTool[];
