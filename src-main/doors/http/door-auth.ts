/**
 * Who may use the HTTP door. Two credentials:
 * - `Authorization: Bearer TOKEN`, for agents and tools (the token is in the URL
 *   `folio serve` prints and in .folio/serve.json);
 * - the page cookie, for the browser. Opening the printed URL (`/?token=TOKEN`)
 *   trades the token once for an HttpOnly, SameSite=Strict cookie and redirects
 *   to the same URL without it, so the token leaves the address bar, the history
 *   of later navigations and every request the page makes (an EventSource cannot
 *   send headers, which is why the token used to ride in /api/events?token=).
 *
 * A token in the query string of /api/* is refused: query strings end up in logs,
 * proxies and browser history.
 *
 * Cookies on 127.0.0.1 are shared by every port, so the cookie is named after the
 * port (two servers don't overwrite each other's) and holds its own random secret,
 * not the bearer token: a local server on another port that sees it cannot use it
 * as a bearer token. SameSite does not separate ports either (a site is scheme and
 * host), so a cookie is accepted only from a same-origin request: a cross-origin
 * `Origin` or `Sec-Fetch-Site` refuses it (a page on another local port can't
 * post to the API with the user's cookie).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface DoorAuth {
  token: string;
  /** the cookie's name: folio_<port> */
  cookieName: string;
  cookieSecret: string;
  /** origins the page is served from (http://127.0.0.1:PORT, http://localhost:PORT) */
  origins: ReadonlySet<string>;
}

export function doorAuthOf(token: string, port: number, hosts: Iterable<string>): DoorAuth {
  return {
    token,
    cookieName: `folio_${port}`,
    cookieSecret: randomBytes(32).toString('base64url'),
    origins: new Set([...hosts].map((h) => `http://${h}`)),
  };
}

/** Why the request is not let into /api (a message for the 401), or null when it is. */
export function apiRefusalOf(req: IncomingMessage, url: URL, auth: DoorAuth): string | null {
  if (url.searchParams.has('token')) {
    return 'tokens in the query string are refused on /api: send Authorization: Bearer TOKEN (a browser that opened the URL folio serve printed uses its cookie)';
  }
  return isAuthorized(req, auth) ? null : 'missing or wrong token: send Authorization: Bearer TOKEN (the token is in the URL folio serve printed)';
}

/**
 * True when the request carries the right bearer token, or the page cookie from a
 * same-origin request; `navigation` also lets in a top-level navigation the user
 * started (Sec-Fetch-Site: none: a typed or opened URL, a reload).
 */
export function isAuthorized(req: IncomingMessage, auth: DoorAuth, navigation = false): boolean {
  const header = req.headers.authorization ?? '';
  if (header.startsWith('Bearer ')) return sameSecret(header.slice('Bearer '.length).trim(), auth.token);
  const cookie = cookieOf(req, auth.cookieName);
  return cookie !== null && isSameOrigin(req, auth, navigation) && sameSecret(cookie, auth.cookieSecret);
}

/** True when `?token=` is the right token: the page URL may trade it for the cookie. */
export function hasRightQueryToken(url: URL, auth: DoorAuth): boolean {
  const sent = url.searchParams.get('token');
  return sent !== null && sameSecret(sent, auth.token);
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
 * Browsers send `Sec-Fetch-Site` and, on POST, `Origin`; a cross-origin value of
 * either refuses the cookie. A client that sends neither is not a browser page and
 * had to read the cookie from somewhere the token is too.
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
