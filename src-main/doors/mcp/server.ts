/**
 * The MCP door: an MCP server whose tools are the api's agent tools (AGENT_TOOLS,
 * api/agent/tools.ts: one per operation the agent guard admits), over stdio (`folio mcp`)
 * or Streamable HTTP (`/api/mcp` on `folio serve`, behind its bearer token).
 * tools/list gives compact, strict schemas (api/tool-schema.ts); each tool declares
 * its outputSchema and answers structuredContent and the same JSON as text, a long
 * read's text once in a block of its own, and no reply over the cap (reply.ts).
 * Tool errors, bad arguments included, come back as isError results holding
 * `{error: {code, message, ...}}` so an agent can act on the code and details;
 * a tool name that is not on the list is a JSON-RPC error (-32602), as the spec asks.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createRequire } from 'node:module';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createAgentSession, loadAgentTools, prewarmAgentDoor, type AgentSession, type PolicyOverrides } from '../../api/agent-door.ts';
import { errorPayloadOf } from '../../api/error-payload.ts';
import { toolArgumentsOf } from '../../api/tool-schema.ts';
import { McpHttpSessions, type SessionLimits } from './http-sessions.ts';
import { replyOf } from './reply.ts';
import { mcpToolsOf, type McpToolEntry } from './tool-list.ts';

const INSTRUCTIONS = [
  'Folio reads any window of any file (multi-GB logs included) and edits files only under a version check.',
  'Ask for big windows and several line ranges in one read; search a file or a whole directory (like rg); list shows a directory.',
  'To change text you have seen, use edit: quote old_text exactly (the quote is the precondition; whole lines off only in whitespace or look-alike punctuation still match one place, and the notes say so); edits[i].path edits several files at once, all or none.',
  'For line positions, appends and new files use upsert with the etag as if_match (or LINE#HASH anchors from a read with hashlines: true); if_none_match "*" creates a file.',
  'A failed precondition or quote answers with the current text: retry from it without another read.',
  'To delete or rename a whole file, upsert with target {delete_file: true} or {move_to: NEW_PATH} and the etag as if_match; a move never replaces an existing file.',
  'Under the review policy your upsert or edit becomes a proposal: use proposal_status with wait_ms to learn the decision.',
].join(' ');

/** The tool list the CLI bundle was built with (scripts/build-cli.mjs), or undefined when run from the sources. */
declare const __FOLIO_MCP_TOOLS__: McpToolEntry[] | undefined;

/**
 * Each agent tool as tools/list gives it, and the advertised input form its calls are
 * decoded from: derived from the zod schemas when the bundle is built (deriving them
 * at every start was 5% of an MCP start), or here from the sources.
 */
let toolList: Promise<McpToolEntry[]> | undefined;
const mcpTools = (): Promise<McpToolEntry[]> =>
  (toolList ??= typeof __FOLIO_MCP_TOOLS__ === 'undefined' ? loadAgentTools().then((t) => mcpToolsOf(t.AGENT_TOOLS)) : Promise.resolve(__FOLIO_MCP_TOOLS__));

/**
 * The SDK's JSON Schema validator (Ajv with its formats) checks what a client sends
 * back to an elicitation, which Folio never asks for; loaded and built on first use,
 * not with every server (building it was a tenth of an MCP start's CPU, loading it
 * another). Required from node_modules, not imported: the CLI bundle holds a stand-in
 * for the SDK's own import of it (scripts/build-cli.mjs).
 */
let ajv: AjvJsonSchemaValidator | undefined;
const newAjv = (): AjvJsonSchemaValidator => {
  const provider = createRequire(import.meta.url)('@modelcontextprotocol/sdk/validation/ajv') as typeof import('@modelcontextprotocol/sdk/validation/ajv');
  return new provider.AjvJsonSchemaValidator();
};
const lazyAjv: jsonSchemaValidator = { getValidator: (schema) => (ajv ??= newAjv()).getValidator(schema) };

/**
 * The tools are served with the low-level Server rather than McpServer.registerTool:
 * registerTool advertises the SDK's own JSON Schema of the zod input (bare anyOf,
 * type arrays, safe-integer bounds), which strict clients refuse. Here tools/list
 * gives the compact schemas of api/tool-schema.ts and tools/call parses with the
 * zod input in runAgentTool, so a bad argument is an invalid_input error like any other.
 */
export function createMcpServer(session: AgentSession, version = '0.1.0'): Server {
  const server = new Server({ name: 'folio', version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: lazyAjv });
  // Once the client is ready (initialize answered first), ready the first tool call's code and workers (once per process: the rest is cached).
  if (process.env.FOLIO_PREWARM !== '0') server.oninitialized = () => void prewarmAgentDoor().catch(() => undefined);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await mcpTools()).map((t) => t.tool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args = {} } = request.params;
    // The client's name (from initialize) names the actor in the audit log and proposals.
    const client = server.getClientVersion()?.name;
    const s = client ? { ...session, actor: { kind: 'agent' as const, name: client } } : session;
    const tools = await mcpTools();
    const wire = tools.find((t) => t.tool.name === name)?.wire;
    try {
      const { runAgentTool } = await loadAgentTools();
      const out = await runAgentTool(s, name, args, (input) => (wire ? toolArgumentsOf(wire, input as Record<string, unknown>) : input));
      // structuredContent and text, a long text once, never more than the cap (reply.ts).
      return replyOf(name, args, out as Record<string, unknown>, s.policy.caps.maxReplyChars);
    } catch (err) {
      // A tool that does not exist is a protocol error (MCP spec, tools: error handling), audited like any call.
      if (!wire) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}; the tools are ${tools.map((t) => t.tool.name).join(', ')}`);
      return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: errorPayloadOf(err) }) }] };
    }
  });
  return server;
}

/** `folio mcp`: serve one agent over stdin/stdout until stdin closes. */
export async function runStdio(root: string, overrides: PolicyOverrides = {}): Promise<void> {
  const session = createAgentSession(root, 'mcp-client', overrides);
  const server = createMcpServer(session);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  await new Promise<void>((resolveClosed) => {
    transport.onclose = () => resolveClosed();
    process.stdin.once('end', () => resolveClosed());
  });
}

/** The JSON-RPC error answer of the Streamable HTTP door (no request id: it may not have been parsed). */
function sendRpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
}

/**
 * Streamable HTTP at /api/mcp: one transport (and MCP session) per client, keyed by the
 * Mcp-Session-Id header the transport hands out on initialize. Sessions expire when
 * idle and are capped in number (http-sessions.ts); an unknown or expired id is 404.
 */
export function mcpHttpHandler(root: string, overrides: PolicyOverrides = {}, limits: SessionLimits = {}) {
  const sessions = new McpHttpSessions(limits);
  const handler = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const transport = sessions.transportOf(id);
      if (!transport) return sendRpcError(res, 404, 'unknown MCP session');
      sessions.trackRequest(id, res);
      await transport.handleRequest(req, res, body);
      return;
    }
    if (!sessions.makeRoom()) {
      return sendRpcError(res, 503, `too many MCP sessions in use (${sessions.maxSessions}); retry later`, { 'Retry-After': '5' });
    }
    // Loaded here, not at import: it brings Hono and undici, which `folio mcp` over stdio never uses.
    const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
    const server = createMcpServer(createAgentSession(root, 'mcp-http-client', overrides));
    const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => sessions.add(sid, t, server),
    });
    t.onclose = () => {
      if (t.sessionId) sessions.forget(t.sessionId);
    };
    await server.connect(t);
    await t.handleRequest(req, res, body);
    // A request without a session id that was not an initialize opened nothing: free its server.
    if (!t.sessionId || !sessions.transportOf(t.sessionId)) await server.close();
  };
  return Object.assign(handler, {
    /** live sessions (for tests and diagnostics) */
    sessionCount: () => sessions.size,
    /** requests whose response is still open, event streams included (for tests and diagnostics) */
    openRequestCount: () => sessions.openRequests,
    /** closes every session (the HTTP server is closing) */
    closeAll: () => sessions.closeAll(),
  });
}
