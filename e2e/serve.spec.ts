/** `folio serve` in Chromium: the file facts in the StatusBar, the token, loopback-only traffic. */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { expect, test } from './app-test.ts';
import { makeFixtureDir, writeTextFixture, type TextFixture } from './fixtures.ts';
import { REPO_ROOT, runFolioServeExpectingFailure, startFolioServe, type FolioServe } from './folio-serve.ts';
import { offHostOf, watchPage } from './page-helpers.ts';

const ARTIFACTS = join(REPO_ROOT, 'e2e', 'artifacts');
const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

let fixtures: ReturnType<typeof makeFixtureDir>;
let lfFile: TextFixture;
let crlfFile: TextFixture;
let server: FolioServe;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  lfFile = writeTextFixture(fixtures.dir, 'big-lf.txt', { lines: 123_457, newline: '\n', finalNewline: true });
  crlfFile = writeTextFixture(fixtures.dir, 'small-crlf.txt', { lines: 1_001, newline: '\r\n', finalNewline: false });
  server = await startFolioServe([lfFile.path]);
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

test('the StatusBar shows file_info of the file given to folio serve', async ({ page }) => {
  const seen = watchPage(page);
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText(count(lfFile.lines));
  await expect(page.getByTestId('file-path')).toHaveText(lfFile.path);
  await expect(page.getByTestId('file-size')).toContainText(`${count(lfFile.size)} bytes`);
  await expect(page.getByTestId('file-encoding')).toHaveText('utf-8');
  await expect(page.getByTestId('file-newline')).toHaveText('LF');
  await expect(page.getByTestId('file-version')).not.toBeEmpty();
  await page.screenshot({ path: join(ARTIFACTS, 'file-info-panel.png'), fullPage: true });

  expect(seen.problems).toEqual([]);
  expect(seen.urls.length).toBeGreaterThan(0);
  expect(offHostOf(seen.urls), 'requests that left 127.0.0.1').toEqual([]);
});

test('typing another path shows that file, and a missing one shows not_found and opens nothing', async ({ page }) => {
  const seen = watchPage(page);
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText(count(lfFile.lines));

  await page.getByTestId('path-input').fill(crlfFile.path);
  await page.getByTestId('path-input').press('Enter');
  await expect(page.getByTestId('file-lines')).toHaveText(count(crlfFile.lines));
  await expect(page.getByTestId('file-newline')).toHaveText('CRLF, no final newline');

  await page.getByTestId('path-input').fill(join(fixtures.dir, 'no-such-file.txt'));
  await page.getByRole('button', { name: 'Open' }).click();
  // Under the path box; the file shown stays, and no third tab is added.
  await expect(page.getByTestId('open-problem')).toContainText('(not_found)');
  await expect(page.getByTestId('file-path')).toHaveText(crlfFile.path);
  await expect(page.getByRole('tab')).toHaveCount(2);
  await page.screenshot({ path: join(ARTIFACTS, 'open-problem.png') });

  // The failed call answers 404, which Chromium logs as a console error: that one is expected.
  expect(seen.problems.filter((p) => !p.includes('404'))).toEqual([]);
  expect(seen.urls.filter((u) => new URL(u).hostname !== '127.0.0.1')).toEqual([]);
});

test('the API answers 401 without the token and runs operations with it', async ({ request }) => {
  const api = `${server.origin}/api/file_info`;
  const data = { path: lfFile.path };

  const noToken = await request.post(api, { data });
  expect(noToken.status()).toBe(401);
  expect((await noToken.json()).error.code).toBe('unauthorized');

  const wrongToken = await request.post(api, { data, headers: { Authorization: 'Bearer nope' } });
  expect(wrongToken.status()).toBe(401);

  const ok = await request.post(api, { data, headers: { Authorization: `Bearer ${server.token}` } });
  expect(ok.status()).toBe(200);
  expect((await ok.json()).lines).toBe(lfFile.lines);

  // A token in the query string is refused on /api (it ends up in logs and history).
  const queryToken = await request.post(`${api}?token=${server.token}`, { data });
  expect(queryToken.status()).toBe(401);
  expect((await queryToken.json()).error.message).toContain('query string');

  const auth = { Authorization: `Bearer ${server.token}` };
  const badInput = await request.post(api, { data: { path: '' }, headers: auth });
  expect(badInput.status()).toBe(400);
  expect((await badInput.json()).error.code).toBe('invalid_input');

  const unknown = await request.post(`${server.origin}/api/no_such_op`, { data: {}, headers: auth });
  expect(unknown.status()).toBe(400);
  expect((await unknown.json()).error.message).toContain('unknown operation');

  const get = await request.get(api, { headers: auth });
  expect(get.status()).toBe(405);
});

test('the printed URL trades its token for an HttpOnly SameSite=Strict cookie; the page then asks the API without any token', async ({ page }) => {
  const context = page.context();
  const seen = watchPage(page);
  const apiHeaders: Record<string, string>[] = [];
  page.on('request', (req) => {
    if (new URL(req.url()).pathname.startsWith('/api/')) apiHeaders.push(req.headers());
  });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText(count(lfFile.lines));
  // The address bar keeps the file but not the token.
  const shown = new URL(page.url());
  expect(shown.searchParams.has('token')).toBe(false);
  expect(shown.searchParams.get('file')).toBe(lfFile.path);
  // The first lines came in the HTML of the first load (the trade kept the file parameter).
  expect(await page.evaluate(() => document.getElementById('folio-first-window') !== null)).toBe(true);

  const cookies = await context.cookies(server.origin);
  expect(cookies).toHaveLength(1);
  expect(cookies[0]).toMatchObject({ name: `folio_${new URL(server.origin).port}`, httpOnly: true, sameSite: 'Strict', path: '/' });
  expect(cookies[0]!.value).not.toBe(server.token);
  expect(await page.evaluate(() => document.cookie)).toBe('');

  // The event stream and the operations went by the cookie: no token in any URL or header.
  const api = seen.urls.filter((u) => new URL(u).pathname.startsWith('/api/'));
  expect(api.some((u) => u.endsWith('/api/events'))).toBe(true);
  expect(api.some((u) => u.endsWith('/api/file_info'))).toBe(true);
  expect(seen.urls.filter((u) => u.includes(server.token))).toEqual([server.url.href]);
  expect(apiHeaders.filter((h) => 'authorization' in h)).toEqual([]);
  expect(seen.problems).toEqual([]);

  // Reloading goes by the cookie too.
  await page.reload();
  await expect(page.getByTestId('file-lines')).toHaveText(count(lfFile.lines));
});

test('HTML carries a strict CSP and a foreign Host header is refused', async ({ request }) => {
  const page = await request.get(`${server.origin}/`);
  expect(page.status()).toBe(200);
  const csp = page.headers()['content-security-policy'] ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(page.headers()['referrer-policy']).toBe('no-referrer');

  const traversal = await request.get(`${server.origin}/..%2f..%2fpackage.json`);
  expect(traversal.status()).toBe(404);

  const status = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(`${server.origin}/`, { headers: { Host: 'evil.example:80' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject).end();
  });
  expect(status).toBe(421);
});

test('folio serve refuses a non-loopback host', async () => {
  const { code, stderr } = await runFolioServeExpectingFailure(['--host', '0.0.0.0', '--port', '0']);
  expect(code).toBe(1);
  expect(stderr).toContain('invalid_input');
  expect(stderr).toContain('loopback');
});
