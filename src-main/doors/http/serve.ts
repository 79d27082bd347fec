/**
 * The HTTP door (`folio serve`): the built renderer and the operation API on a
 * loopback address, for two principals with their own random tokens (door-auth.ts).
 * The person's: the URL it returns carries it (`?token=`) so that opening it is
 * the only step; opening it trades the token for the page cookie and redirects to
 * the URL without it; the person's scripts send it as a bearer token. The agent's:
 * a bearer token on /api/mcp only, handed over as an MCP client config
 * (`mcpClientConfig`).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIPv4, type AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpStatusOf } from '../../api/error-map.ts';
import { errorPayloadOf } from '../../api/error-payload.ts';
import { FolioError, preloadReads } from '../../api/handle.ts';
import { subscribe } from '../../api/events.ts';
import { indexInBackground } from '../../api/background-indexing.ts';
import { isRemoteLocator } from '../../api/input-paths.ts';
import { HTTP_ACTOR, handleApiRequest, sendJson } from './api-route.ts';
import { apiRefusalOf, doorAuthOf, hasRightQueryToken, MCP_PATH, pageCookieOf, principalOf, withoutToken, type DoorAuth } from './door-auth.ts';
import { announcesTooLargeBody, bodyTooLargeError, readJsonBody } from './request-body.ts';
import { firstWindowOf, indexHtmlOf, pageWithFirstWindow } from './first-window.ts';
import { HTML_SECURITY_HEADERS } from './renderer-csp.ts';
import type { SessionLimits } from '../mcp/http-sessions.ts';
import { mcpHttpHandler } from '../mcp/server.ts';
import { serveRendererFile } from './static-files.ts';

export interface ServeOptions {
  file?: string;
  /** lines of `file` the printed URL lands on, selected (`folio open` of a folio:// link) */
  lines?: { startLine: number; endLine: number };
  port?: number;
  host?: string;
  open?: boolean;
  rendererDir?: string;
  /** the workspace whose review state is served and pushed (default: the current directory) */
  workspace?: string;
  /** idle timeout and cap of the MCP sessions at /api/mcp (http-sessions.ts has the defaults) */
  mcpSessions?: SessionLimits;
}

export interface RunningServer {
  /** http://HOST:PORT/?token=TOKEN[&file=PATH]: the page to open (it trades the token for a cookie). */
  url: string;
  /** the person's token: the URL's, and a bearer token on every /api route but /api/mcp */
  token: string;
  /** the agent's token: a bearer token on /api/mcp, refused everywhere else */
  agentToken: string;
  /** http://HOST:PORT/api/mcp */
  mcpUrl: string;
  /**
   * What connects an agent to `mcpUrl` over Streamable HTTP with its token: an
   * entry of an MCP client's `mcpServers` (Claude Code's `.mcp.json`; the
   * `type`/`url`/`headers` shape other clients read too).
   */
  mcpClientConfig: { type: 'http'; url: string; headers: { Authorization: string } };
  close(): Promise<void>;
}

/**
 * The Folio package root: the nearest folder above this module with Folio's
 * package.json. This module runs from the sources (src-main/doors/http) or bundled
 * (dist/cli.mjs), so the depth differs.
 */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === 'folio-mcp') return dir;
    } catch {
      // no package.json here
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find Folio's package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

/** <package root>/out/renderer, where `npm run build` puts the renderer. */
export const DEFAULT_RENDERER_DIR = join(packageRoot(), 'out/renderer');

export async function serve(opts: ServeOptions = {}): Promise<RunningServer> {
  indexInBackground(true); // the app paints while a big file indexes
  const host = loopbackHostOf(opts.host ?? '127.0.0.1');
  const port = portOf(opts.port ?? 0);
  const rendererDir = resolve(opts.rendererDir ?? DEFAULT_RENDERER_DIR);
  const workspace = resolve(opts.workspace ?? process.cwd());
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new Error(`the renderer is not built (no ${join(rendererDir, 'index.html')}): run \`npm run build\` first`);
  }
  const mcp = mcpHttpHandler(workspace, {}, opts.mcpSessions);
  // Before the first page is asked for: its first window has a small time budget (first-window.ts).
  await preloadReads();
  const token = randomBytes(32).toString('base64url');
  const agentToken = randomBytes(32).toString('base64url');

  const server = createServer();
  // Clients keep connections open between calls; Node closes idle ones after 5 s, and a
  // request sent as it does fails with ECONNRESET. Keep them a minute, as proxies do.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(port, host, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  const boundPort = (server.address() as AddressInfo).port;
  const allowedHosts = allowedHostsOf(host, boundPort);
  const ctx: RouteContext = { rendererDir, auth: doorAuthOf({ personToken: token, agentToken }, boundPort, allowedHosts), allowedHosts, workspace, mcp };
  // Requests are taken once the port (which the allowed hosts and the cookie name hold) is known:
  // the listen callback runs before the first connection is accepted.
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    routeRequest(req, res, ctx).catch((err: unknown) => {
      if (!res.headersSent) sendFailure(res, err);
      else res.destroy();
    });
  });

  const url = new URL(`http://${host}:${boundPort}/`);
  url.searchParams.set('token', token);
  if (opts.file) url.searchParams.set('file', isRemoteLocator(opts.file) ? opts.file : resolve(opts.file)); // a locator stays as it is
  if (opts.file && opts.lines) url.searchParams.set('lines', `${opts.lines.startLine}-${opts.lines.endLine}`);
  if (opts.open) openInBrowser(url.href);
  const mcpUrl = `${url.origin}${MCP_PATH}`;
  // The person's tools (folio open) and the person handing an agent its config find
  // the server and both tokens here; only the owner can read it, and the agent
  // policy denies .folio/** to agents.
  const stateFile = join(workspace, '.folio', 'serve.json');
  mkdirSync(dirname(stateFile), { recursive: true });
  writeFileSync(stateFile, JSON.stringify({ url: url.href, mcp: mcpUrl, token, agent_token: agentToken, pid: process.pid }) + '\n', { mode: 0o600 });
  chmodSync(stateFile, 0o600);

  return {
    url: url.href,
    token,
    agentToken,
    mcpUrl,
    mcpClientConfig: { type: 'http', url: mcpUrl, headers: { Authorization: `Bearer ${agentToken}` } },
    close: () =>
      new Promise<void>((resolveClose) => {
        rmSync(stateFile, { force: true });
        mcp.closeAll();
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}

interface RouteContext {
  rendererDir: string;
  auth: DoorAuth;
  allowedHosts: ReadonlySet<string>;
  workspace: string;
  mcp: ReturnType<typeof mcpHttpHandler>;
}

async function routeRequest(req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> {
  // A page on another site that resolves its own name to 127.0.0.1 (DNS rebinding)
  // sends its own Host header: only our address is served.
  if (!ctx.allowedHosts.has((req.headers.host ?? '').toLowerCase())) {
    res.writeHead(421, { 'Content-Type': 'text/plain; charset=utf-8' }).end('misdirected request\n');
    return;
  }
  // Every route: a body announced over the limit is refused before any of it is read.
  if (announcesTooLargeBody(req)) throw bodyTooLargeError();
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname === '/api' || url.pathname.startsWith('/api/')) {
    const refusal = apiRefusalOf(req, url, ctx.auth);
    if (refusal) {
      if (refusal.status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="folio"');
      sendJson(res, refusal.status, { error: refusal.error });
      return;
    }
    if (url.pathname === MCP_PATH) {
      await ctx.mcp(req, res, req.method === 'POST' ? await readJsonBody(req) : undefined);
      return;
    }
    if (url.pathname === '/api/events') {
      streamEvents(req, res, ctx.workspace);
      return;
    }
    await handleApiRequest(url.pathname.slice('/api/'.length), req, res, ctx.workspace);
    return;
  }
  const isPage = req.method === 'GET' && (url.pathname === '/' || url.pathname === '/index.html');
  if (isPage && hasRightQueryToken(url, ctx.auth)) {
    // The trade: the cookie for the token, and the same page (its file parameter
    // included) at a URL without it, which then loads with its first window.
    res
      .writeHead(303, { Location: withoutToken(url), 'Set-Cookie': pageCookieOf(ctx.auth), 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' })
      .end();
    return;
  }
  if (isPage && (await servePageWithFirstWindow(req, res, url, ctx))) return;
  await serveRendererFile(ctx.rendererDir, url.pathname, req, res);
}

/** A failure thrown while routing, as the error payload with its status (a body too large closes the connection: the rest is not kept). */
function sendFailure(res: ServerResponse, err: unknown): void {
  const error = errorPayloadOf(err);
  if (error.code === 'too_large') closeLingering(res);
  sendJson(res, httpStatusOf(error.code), { error });
}

/** How long a connection closed after a 413 goes on reading (and dropping) what the client still sends. */
const LINGER_MS = 2_000;

/**
 * Close the connection after this answer without losing the answer. Node ends a
 * `Connection: close` answer with `socket.destroySoon()`, which closes the socket
 * while the client's unread body is still arriving; the kernel then resets the
 * connection, and a client still sending can lose the 413 before reading it
 * (EPIPE / ECONNRESET). Instead, like Apache's and nginx's lingering close: send
 * FIN after the answer, go on reading and dropping the rest, and destroy when
 * the client closes its side or after LINGER_MS.
 */
function closeLingering(res: ServerResponse): void {
  res.setHeader('Connection', 'close');
  const socket = res.socket;
  if (!socket) return;
  socket.destroySoon = () => {
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.once('end', () => socket.destroy());
    socket.end();
  };
}

/**
 * GET /?file=PATH: the app page with PATH's first lines in it (first-window.ts),
 * so they paint before any script runs. Only for the person (the page cookie, or
 * the person's bearer token; never the agent's), since the page then carries file
 * content read as the person; false (serve the plain page) otherwise.
 */
async function servePageWithFirstWindow(req: IncomingMessage, res: ServerResponse, url: URL, ctx: RouteContext): Promise<boolean> {
  const file = url.searchParams.get('file');
  if (!file || principalOf(req, ctx.auth, true) !== 'person') return false;
  const first = await firstWindowOf(file, HTTP_ACTOR, ctx.workspace);
  if (!first) return false;
  const html = pageWithFirstWindow(await indexHtmlOf(ctx.rendererDir), first);
  res.writeHead(200, { ...HTML_SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(html) });
  res.end(html);
  return true;
}

/** GET /api/events: Server-Sent Events, one `data:` JSON FolioEvent per change, plus a comment every 15 s to keep proxies from closing it. */
function streamEvents(req: IncomingMessage, res: ServerResponse, workspace: string): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
  res.write(': folio events\n\n');
  const off = subscribe(workspace, (event) => res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`));
  const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
  req.on('close', () => {
    clearInterval(ping);
    off();
  });
}

/** The address to bind: loopback only, since the API reads and writes files. */
function loopbackHostOf(host: string): string {
  if (host === 'localhost') return '127.0.0.1';
  if (isIPv4(host) && host.startsWith('127.')) return host;
  throw new FolioError('invalid_input', `refusing to listen on ${host}: folio serve binds a loopback address only (127.0.0.1)`, {
    host,
    allowed: ['127.0.0.1', 'localhost'],
  });
}

function portOf(port: number): number {
  if (Number.isInteger(port) && port >= 0 && port <= 65535) return port;
  throw new FolioError('invalid_input', `invalid port: ${port} (expected 0..65535; 0 picks a free one)`, { port });
}

function allowedHostsOf(host: string, port: number): ReadonlySet<string> {
  return new Set([`${host}:${port}`, `127.0.0.1:${port}`, `localhost:${port}`]);
}

/** Best effort: a missing opener (headless machine) is not an error, the URL is printed anyway. */
function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch {
    // ignored: see above
  }
}
