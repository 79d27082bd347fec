/** `folio serve` in Chromium: the file facts in the StatusBar, the token, loopback-only traffic. */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
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

test('typing another path shows that file, and a missing one shows not_found', async ({ page }) => {
  const seen = watchPage(page);
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText(count(lfFile.lines));

  await page.getByTestId('path-input').fill(crlfFile.path);
  await page.getByTestId('path-input').press('Enter');
  await expect(page.getByTestId('file-lines')).toHaveText(count(crlfFile.lines));
  await expect(page.getByTestId('file-newline')).toHaveText('CRLF, no final newline');

  await page.getByTestId('path-input').fill(join(fixtures.dir, 'no-such-file.txt'));
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByTestId('file-info-error')).toContainText('not_found');
  await page.screenshot({ path: join(ARTIFACTS, 'file-info-error.png') });

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

  const queryToken = await request.post(`${api}?token=${server.token}`, { data });
  expect(queryToken.status()).toBe(200);

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
