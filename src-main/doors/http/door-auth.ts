/**
 * Who may use the HTTP door. Two principals, with credentials that never open each
 * other's routes:
 * - **the person**: the page cookie, for the browser, and the person's token, for
 *   the person's own scripts and `folio open` (`Authorization: Bearer TOKEN`). The
 *   token is in the URL `folio serve` prints (`/?token=`) and in .folio/serve.json.
 *   Opening the printed URL trades the token once for an HttpOnly, SameSite=Strict
 *   cookie and redirects to the same URL without it, so the token leaves the
 *   address bar, the history of later navigations and every request the page makes
 *   (an EventSource cannot send headers). The person's credential opens every
 *   `/api/*` route but `/api/mcp`.
 * - **the agent**: its own random token (`agent_token` in .folio/serve.json, and
 *   the MCP client config `folio serve` prints on stderr), as
 *   `Authorization: Bearer AGENT_TOKEN` on `/api/mcp` and nowhere else. Behind
 *   /api/mcp the agent is an MCP session behind the agent guard (policy, review);
 *   every other route is the person's (review_approve, a read outside the
 *   workspace …), so the agent's token there is 403, whatever the route.
 *
 * A request is one principal: a bearer header decides alone (an agent's token
 * next to a person's cookie is the agent). A token in the query string of /api/*
 * is refused: query strings end up in logs, proxies and browser history. A
 * request from another origin (`Origin`, `Sec-Fetch-Site`) is refused on /api/*
 * whatever it carries.
 *
 * Cookies on 127.0.0.1 are shared by every port, so the cookie is named after the
 * port (two servers don't overwrite each other's) and holds its own random secret,
 * not a token: a local server on another port that sees it cannot use it as a
 * bearer token. SameSite does not separate ports either (a site is scheme and
 * host), hence the origin checks.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { ErrorPayload } from '../../api/bridge.ts';

/** The agent's door: the one route its token opens, and the one the person's credential does not. */
export const MCP_PATH = '/api/mcp';

export interface DoorAuth {
  /** the person's token (the printed URL's `?token=`, a bearer token on the person's routes) */
  personToken: string;
  /** the agent's token (a bearer token on /api/mcp only) */
  agentToken: string;
  /** the cookie's name: folio_<port> */
  cookieName: string;
  cookieSecret: string;
  /** origins the page is served from (http://127.0.0.1:PORT, http://localhost:PORT) */
  origins: ReadonlySet<string>;
}

/** Who a request speaks for. */
export type Principal = 'person' | 'agent';

/** Why a request is not let into /api: the status (401 no or wrong credential, 403 the wrong principal or origin) and the error body. */
export interface Refusal {
  status: 401 | 403;
  error: ErrorPayload;
}

export function doorAuthOf(tokens: { personToken: string; agentToken: string }, port: number, hosts: Iterable<string>): DoorAuth {
  return {
    ...tokens,
    cookieName: `folio_${port}`,
    cookieSecret: randomBytes(32).toString('base64url'),
    origins: new Set([...hosts].map((h) => `http://${h}`)),
  };
}

const AGENT_HOW = 'an agent sends Authorization: Bearer AGENT_TOKEN (agent_token in .folio/serve.json; folio serve prints the MCP client config on stderr)';
const PERSON_HOW = 'send Authorization: Bearer TOKEN (the token of the URL folio serve printed); a browser that opened that URL uses its cookie';

/** Why the request is not let into `url` (an /api/* route), or null when it is. */
export function apiRefusalOf(req: IncomingMessage, url: URL, auth: DoorAuth): Refusal | null {
  const route = url.pathname;
  if (url.searchParams.has('token')) {
    return unauthorized(`tokens in the query string are refused on /api: ${route === MCP_PATH ? AGENT_HOW : PERSON_HOW}`);
  }
  if (!isSameOrigin(req, auth, false)) {
    return forbidden(
      `cross-origin requests are refused on /api (Origin ${req.headers.origin ?? '-'}, Sec-Fetch-Site ${req.headers['sec-fetch-site'] ?? '-'})`,
      {
        reason: 'cross_origin',
        route,
      },
    );
  }
  const principal = principalOf(req, auth);
  if (route === MCP_PATH) {
    if (principal === 'agent') return null;
    if (principal === 'person') {
      return forbidden(`the person's credential does not open ${MCP_PATH}, the agent's door: ${AGENT_HOW}`, {
        reason: 'wrong_principal',
        credential: 'person',
        accepts: 'agent',
        route,
      });
    }
    return unauthorized(`missing or wrong token: ${AGENT_HOW}`);
  }
  if (principal === 'person') return null;
  if (principal === 'agent') {
    return forbidden(`the agent's token opens ${MCP_PATH} only: ${route} is the person's route`, {
      reason: 'wrong_principal',
      credential: 'agent',
      accepts: 'person',
      route,
    });
  }
  return unauthorized(`missing or wrong token: ${PERSON_HOW}`);
}

/**
 * The principal the request's credential names, or null (none, a wrong one, or
 * the cookie from another origin): a bearer header decides alone; else the page
 * cookie from a same-origin request, where `navigation` also lets in a top-level
 * navigation the user started (Sec-Fetch-Site: none: a typed or opened URL, a reload).
 */
export function principalOf(req: IncomingMessage, auth: DoorAuth, navigation = false): Principal | null {
  const bearer = bearerOf(req);
  if (bearer !== null) {
    // Both compared, always, so the time taken says nothing about which one nearly matched.
    const agent = sameSecret(bearer, auth.agentToken);
    const person = sameSecret(bearer, auth.personToken);
    return agent ? 'agent' : person ? 'person' : null;
  }
  const cookie = cookieOf(req, auth.cookieName);
  return cookie !== null && isSameOrigin(req, auth, navigation) && sameSecret(cookie, auth.cookieSecret) ? 'person' : null;
}

/** True when `?token=` is the person's token: the page URL may trade it for the cookie (the agent's token trades nothing). */
export function hasRightQueryToken(url: URL, auth: DoorAuth): boolean {
  const sent = url.searchParams.get('token');
  return sent !== null && sameSecret(sent, auth.personToken);
}

/** The Set-Cookie value that carries the page's credential; a session cookie (the token changes with each `folio serve`). */
export function pageCookieOf(auth: DoorAuth): string {
  return `${auth.cookieName}=${auth.cookieSecret}; Path=/; HttpOnly; SameSite=Strict`;
}

/** `path?query` of the page URL without its token, for the redirect after the trade. */
export function withoutToken(url: URL): string {
  const params = new URLSearchParams(url.search);
  params.delete('token');
  const query = params.toString();
  return `${url.pathname}${query ? `?${query}` : ''}`;
}

/**
 * The credential of an `Authorization: Bearer …` header, or null when there is no
 * such header. The scheme is case-insensitive (RFC 7235 §2.1); whatever follows it
 * is the credential, so a malformed one is a wrong one, not a missing one.
 */
function bearerOf(req: IncomingMessage): string | null {
  const match = /^bearer(?:[ \t]+(.*))?$/is.exec((req.headers.authorization ?? '').trim());
  return match ? (match[1] ?? '').trim() : null;
}

/**
 * Browsers send `Sec-Fetch-Site` and, on POST, `Origin`; a cross-origin value of
 * either refuses the request. A client that sends neither is not a browser page.
 */
function isSameOrigin(req: IncomingMessage, auth: DoorAuth, navigation: boolean): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && !(navigation && site === 'none')) return false;
  const origin = req.headers.origin;
  return origin === undefined || auth.origins.has(origin.toLowerCase());
}

function cookieOf(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

function sameSecret(sent: string, secret: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

function unauthorized(message: string): Refusal {
  return { status: 401, error: { code: 'unauthorized', message } };
}

function forbidden(message: string, details: Record<string, unknown>): Refusal {
  return { status: 403, error: { code: 'permission_denied', message, ...details } };
}
