/**
 * The MCP sessions of the Streamable HTTP door (`/api/mcp`), with a bounded life.
 * Each session holds an McpServer and its transport (~30 KB); a client that goes
 * away without `DELETE /api/mcp` (killed, crashed, restarted) used to leave them
 * forever. Here:
 * - a session is idle when no request of it is open (an open GET event stream
 *   counts as open: its client is there) and expires after `idleMs` idle; a sweep
 *   timer (unref'd, so it never keeps the process alive) closes its transport and
 *   server, and a later request with its id gets the 404 'unknown MCP session' that
 *   tells SDK clients to start a new session;
 * - at most `maxSessions` live at once: a new one first closes the least recently
 *   active idle session, and when every session is busy it is refused with 503
 *   (closing a session in use would break a working agent to let a new one in).
 */
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ServerResponse } from 'node:http';

export interface SessionLimits {
  /** close a session after this long without an open request (default 30 min) */
  idleMs?: number;
  /** sessions alive at once (default 100) */
  maxSessions?: number;
}

export const DEFAULT_SESSION_LIMITS: Required<SessionLimits> = { idleMs: 30 * 60_000, maxSessions: 100 };

interface Closable {
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Closable;
  /** requests of this session whose response is still open */
  open: number;
  lastActive: number;
  /** order of the latest activity among all sessions (two in one millisecond still differ) */
  lastTurn: number;
}

export class McpHttpSessions {
  private readonly sessions = new Map<string, Session>();
  private turns = 0;
  private readonly sweep: ReturnType<typeof setInterval>;
  readonly idleMs: number;
  readonly maxSessions: number;

  constructor(limits: SessionLimits = {}) {
    this.idleMs = limits.idleMs ?? DEFAULT_SESSION_LIMITS.idleMs;
    this.maxSessions = limits.maxSessions ?? DEFAULT_SESSION_LIMITS.maxSessions;
    this.sweep = setInterval(() => this.closeIdle(), Math.max(10, Math.min(this.idleMs / 2, 60_000)));
    this.sweep.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  transportOf(id: string): StreamableHTTPServerTransport | undefined {
    return this.sessions.get(id)?.transport;
  }

  add(id: string, transport: StreamableHTTPServerTransport, server: Closable): void {
    this.sessions.set(id, { transport, server, open: 0, lastActive: Date.now(), lastTurn: ++this.turns });
  }

  forget(id: string): void {
    this.sessions.delete(id);
  }

  /** Counts the request as open until its response closes; the session is active meanwhile. */
  trackRequest(id: string, res: ServerResponse): void {
    const s = this.sessions.get(id);
    if (!s) return;
    s.open++;
    this.touch(s);
    res.once('close', () => {
      s.open--;
      this.touch(s);
    });
  }

  /** Room for one more session: true, after closing the least recently active idle one if at the cap; false when all are busy. */
  makeRoom(): boolean {
    if (this.sessions.size < this.maxSessions) return true;
    let oldest: [string, Session] | undefined;
    for (const entry of this.sessions) {
      if (entry[1].open === 0 && (!oldest || entry[1].lastTurn < oldest[1].lastTurn)) oldest = entry;
    }
    if (!oldest) return false;
    this.close(oldest[0]);
    return true;
  }

  /** Requests whose response is still open, over all sessions (event streams included). */
  get openRequests(): number {
    let n = 0;
    for (const s of this.sessions.values()) n += s.open;
    return n;
  }

  private touch(s: Session): void {
    s.lastActive = Date.now();
    s.lastTurn = ++this.turns;
  }

  /** Closes the sessions idle for `idleMs` or more. */
  closeIdle(now = Date.now()): void {
    for (const [id, s] of this.sessions) {
      if (s.open === 0 && now - s.lastActive >= this.idleMs) this.close(id);
    }
  }

  /** Closes every session and stops the sweep (the server is shutting down). */
  closeAll(): void {
    clearInterval(this.sweep);
    for (const id of [...this.sessions.keys()]) this.close(id);
  }

  private close(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    // The server closes its transport too; a failure to close leaves nothing to act on.
    void s.server.close().catch(() => {});
  }
}
