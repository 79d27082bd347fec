/**
 * The person's credentials on the HTTP door, on a real server on 127.0.0.1: the
 * printed URL's token is traded once for an HttpOnly SameSite=Strict cookie, the
 * page and its API calls go by the cookie, the person's scripts by the bearer
 * header, and a query-string token on /api is refused. (The agent's token, which
 * opens /api/mcp only: http-principals.test.ts.)
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../src-main/doors/http/serve.ts';
import { forgetStores } from '../../src-main/review/store.ts';
import { tempDir } from '../fixtures/generate.ts';
import { cookieOf, httpRequest } from './http-request.ts';

const tmp = tempDir();
const INDEX = '<!doctype html><html><head><title>t</title></head><body><div id="root"></div></body></html>';
let server: RunningServer;
let origin: string;
let file: string;

beforeAll(async () => {
  const ws = tmp.path('ws');
  mkdirSync(ws);
  const renderer = tmp.path('renderer');
  mkdirSync(renderer);
  writeFileSync(`${renderer}/index.html`, INDEX);
  file = join(ws, 'notes.txt');
  writeFileSync(file, 'one\ntwo\n');
  server = await serve({ port: 0, rendererDir: renderer, workspace: ws, file });
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  await server?.close();
  forgetStores();
  tmp.cleanup();
});

/** Opens the printed URL as a browser would: the trade, then the page it redirects to with the cookie. */
async function openPrintedUrl(): Promise<{ cookie: string; location: string; page: string }> {
  const trade = await httpRequest(server.url, { headers: { 'sec-fetch-site': 'none' } });
  expect(trade.status).toBe(303);
  const cookie = cookieOf(trade).pair;
  const location = String(trade.headers.location);
  const page = await httpRequest(`${origin}${location}`, { headers: { cookie, 'sec-fetch-site': 'none' } });
  expect(page.status).toBe(200);
  return { cookie, location, page: page.text };
}

const fileInfo = (headers: Record<string, string>, query = '') =>
  httpRequest(`${origin}/api/file_info${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ path: file }),
  });

describe('folio serve: the token is traded once for a page cookie', () => {
  it('opening the printed URL sets an HttpOnly SameSite=Strict cookie and redirects to the URL without the token, file kept', async () => {
    const trade = await httpRequest(server.url);
    expect(trade.status).toBe(303);
    const location = new URL(String(trade.headers.location), origin);
    expect(location.searchParams.has('token')).toBe(false);
    expect(location.searchParams.get('file')).toBe(file);
    expect(location.pathname).toBe('/');
    const { pair, attributes } = cookieOf(trade);
    expect(pair).toMatch(new RegExp(`^folio_${new URL(origin).port}=[A-Za-z0-9_-]{43}$`));
    // The cookie holds its own secret, not the bearer token.
    expect(pair).not.toContain(server.token);
    expect(attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/']));
    expect(trade.headers['cache-control']).toBe('no-store');
    expect(trade.headers['referrer-policy']).toBe('no-referrer');
  });

  it('the page the redirect names carries the first window with the cookie, and only the plain page without it', async () => {
    const { page, location } = await openPrintedUrl();
    expect(page).toContain('id="folio-first-window"');
    expect(page).toContain('<span class="plain-line-text">two</span>');
    expect((await httpRequest(`${origin}${location}`)).text).toBe(INDEX);
    // A wrong token trades nothing: no cookie, the plain page.
    const wrong = await httpRequest(`${origin}/?token=nope&file=${encodeURIComponent(file)}`);
    expect(wrong.status).toBe(200);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect(wrong.text).toBe(INDEX);
  });

  it("the page's API calls and its event stream go by the cookie from the same origin; a cross-origin request with it is refused", async () => {
    const { cookie } = await openPrintedUrl();
    const ok = await fileInfo({ cookie, origin, 'sec-fetch-site': 'same-origin' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text).lines).toBe(2);

    const ac = new AbortController();
    const events = await fetch(`${origin}/api/events`, { headers: { cookie, 'sec-fetch-site': 'same-origin' }, signal: ac.signal });
    expect(events.status).toBe(200);
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    ac.abort();

    // Another port of 127.0.0.1 is the same site (the cookie goes along) but not the same origin.
    const otherPort = `http://127.0.0.1:${Number(new URL(origin).port) === 9 ? 10 : 9}`;
    const crossOrigin: Record<string, string>[] = [
      { origin: otherPort },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'none' },
    ];
    for (const headers of crossOrigin) {
      const refused = await fileInfo({ cookie, ...headers });
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(refused.text).error).toMatchObject({ code: 'permission_denied', reason: 'cross_origin' });
    }
    expect((await fileInfo({ cookie: 'folio_1=abc' })).status).toBe(401);
    expect((await fileInfo({ cookie: cookie.replace(/=.*/, '=wrong') })).status).toBe(401);
  });

  it('a token in the query string of /api is refused with a clear message, even with the bearer header', async () => {
    const withAndWithoutBearer: Record<string, string>[] = [{}, { authorization: `Bearer ${server.token}` }];
    for (const headers of withAndWithoutBearer) {
      const r = await fileInfo(headers, `?token=${server.token}`);
      expect(r.status).toBe(401);
      expect(JSON.parse(r.text).error).toMatchObject({ code: 'unauthorized', message: expect.stringContaining('query string') });
    }
    const events = await httpRequest(`${origin}/api/events?token=${server.token}`);
    expect(events.status).toBe(401);
  });

  it("the person's scripts keep the bearer header; no token is 401, a foreign Host 421, no CORS header anywhere, the state file 0600", async () => {
    const bearer = await fileInfo({ authorization: `Bearer ${server.token}` });
    expect(bearer.status).toBe(200);
    const none = await fileInfo({});
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="folio"');
    expect((await fileInfo({ authorization: 'Bearer nope' })).status).toBe(401);
    expect((await httpRequest(`${origin}/`, { headers: { host: 'evil.example' } })).status).toBe(421);
    expect((await httpRequest(server.url, { headers: { host: 'evil.example' } })).status).toBe(421);

    const answers = [bearer, none, await httpRequest(server.url), await httpRequest(`${origin}/`, { headers: { origin: 'http://evil.example' } })];
    for (const a of answers) expect(Object.keys(a.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(statSync(join(tmp.path('ws'), '.folio', 'serve.json')).mode & 0o777).toBe(0o600);
  });
});
