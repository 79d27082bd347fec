/**
 * Links that open again (issue 31, item 6), as a user in Chromium against
 * `folio serve`: Copy link gives this page's URL opened on the lines; pasted in a
 * new tab it shows the same file at the same lines (checked with sed); a
 * folio://open link and a page link pasted in the path box do the same; a bad
 * link opens nothing and says why. `folio open folio://…` is in open.spec.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { logLineOf } from './log-fixture.ts';
import { shownLinesOf, watchPage } from './page-helpers.ts';
import { sedLines } from './sed.ts';

const count = (n: number) => new Intl.NumberFormat('en-US').format(n);
const LINES = 20_000;

let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;
let log: string;
let other: string;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  log = join(workspace, 'app log #1.log'); // a space and a # must survive the link
  writeFileSync(log, Array.from({ length: LINES }, (_, i) => logLineOf(i + 1) + '\n').join(''));
  other = join(workspace, 'other.log');
  writeFileSync(other, Array.from({ length: 900 }, (_, i) => logLineOf(i + 1) + '\n').join(''));
  server = await startFolioServe([log], { cwd: workspace, env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

const tabs = (page: Page) => page.getByRole('tablist', { name: 'Open files' }).getByRole('tab');

async function openByPathBox(page: Page, text: string) {
  await page.getByTestId('path-input').fill(text);
  await page.getByTestId('path-input').press('Enter');
}

async function goTo(page: Page, typed: string) {
  await page.getByLabel('Go to').fill(typed);
  await page.getByLabel('Go to').press('Enter');
}

/** Lines `from`..`to` of `file` are all painted, each as sed prints it. */
async function expectLinesShown(page: Page, file: string, from: number, to: number) {
  const want = sedLines(file, from, to).map((text, i) => ({ lineNo: from + i, text }));
  await expect
    .poll(
      async () => {
        const shown = await shownLinesOf(page);
        return want.every((w) => shown.some((r) => r.lineNo === w.lineNo && r.text === w.text));
      },
      { message: `lines ${from}-${to} of ${file} shown as sed prints them` },
    )
    .toBe(true);
}

/** The lines Copy link names, after clicking it: the link read off the clipboard (its first line). */
async function copiedLink(page: Page): Promise<string> {
  await page.getByTestId('copy-link').click();
  await expect(page.getByTestId('copy-link-popover')).toContainText('Copied to the clipboard');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  return copied.split('\n')[0] ?? '';
}

const pageLink = (file: string, lines: string) => `${server.origin}/?path=${encodeURIComponent(file)}&lines=${lines}`;
const folioLink = (file: string, lines: string) => `folio://open?path=${encodeURIComponent(file)}&lines=${lines}`;

test('Copy link gives this page’s URL; opened in a new tab it shows the same file at the same lines', async ({ page }) => {
  const seen = watchPage(page);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText(count(LINES));
  await goTo(page, '12345');
  await expectLinesShown(page, log, 12_345, 12_345);

  const link = await copiedLink(page);
  const match = /^(.*)\/\?path=([^&]+)&lines=(\d+)-(\d+)$/.exec(link);
  expect(match, link).not.toBeNull();
  expect(match![1]).toBe(server.origin);
  expect(decodeURIComponent(match![2]!)).toBe(log);
  const [from, to] = [Number(match![3]), Number(match![4])];
  expect(from).toBeLessThanOrEqual(12_345);
  expect(to).toBeGreaterThanOrEqual(12_345);

  // The copied URL in a new tab of the same browser (its cookie): the same file, the same lines.
  const opened = await page.context().newPage();
  const openedSeen = watchPage(opened);
  await opened.setViewportSize({ width: 1280, height: 800 });
  await opened.goto(link);
  await expect(opened.getByTestId('file-path')).toHaveText(log);
  await expect(opened.getByTestId('file-lines')).toHaveText(count(LINES));
  await expectLinesShown(opened, log, from, Math.min(to, from + 20));
  await expect(tabs(opened)).toHaveText(['app log #1.log']);
  // And it names the same lines again.
  expect(await copiedLink(opened)).toBe(link);
  expect(seen.problems).toEqual([]);
  expect(openedSeen.problems).toEqual([]);
});

test('a folio:// link or a page link pasted in the path box opens the file at its lines', async ({ page }) => {
  const seen = watchPage(page);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText(count(LINES));

  // Another file, by its folio:// link (what Electron's Copy link gives): a new tab at those lines, selected.
  await openByPathBox(page, folioLink(other, '700-704'));
  await expect(tabs(page)).toHaveText(['app log #1.log', 'other.log']);
  await expect(page.getByTestId('file-path')).toHaveText(other);
  await expectLinesShown(page, other, 700, 704);
  expect(await copiedLink(page)).toBe(pageLink(other, '700-704'));

  // The first file's tab, by a page link of this origin: shown, at the link's lines.
  await openByPathBox(page, pageLink(log, '15000-15006'));
  await expect(tabs(page)).toHaveCount(2);
  await expect(tabs(page).nth(0)).toHaveAttribute('aria-selected', 'true');
  await expectLinesShown(page, log, 15_000, 15_006);
  expect(await copiedLink(page)).toBe(pageLink(log, '15000-15006'));
  await expect(page.getByTestId('open-problem')).toHaveCount(0);
  expect(seen.problems).toEqual([]);
});

test('a bad link opens nothing and says why; no tab is added', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText(count(LINES));
  await goTo(page, '5000');
  await expectLinesShown(page, log, 5000, 5000);
  const problem = page.getByTestId('open-problem');
  const bad: [link: string, says: RegExp][] = [
    [folioLink(other, '899-950'), /lines 899-950 are past the end of .*other\.log \(900 lines\)/],
    [folioLink(other, 'abc'), /lines=abc is not lines/],
    [folioLink(join(fixtures.dir, 'missing.log'), '1-2'), /Cannot open .*missing\.log: .*\(not_found\)/],
    ['folio://open?lines=1-2', /names no file/],
    ['folio://edit?path=%2Fetc%2Fpasswd', /folio:\/\/ links open files/],
    [`http://example.com/?path=${encodeURIComponent(other)}&lines=1-2`, /http:\/\/example\.com is not this Folio/],
  ];
  for (const [link, says] of bad) {
    await openByPathBox(page, link);
    await expect(problem, link).toHaveText(says);
    await expect(tabs(page), link).toHaveText(['app log #1.log']);
    await expect(page.getByTestId('file-path')).toHaveText(log);
  }
  // The shown file is where it was; editing the path box dismisses the message.
  await expectLinesShown(page, log, 5000, 5000);
  await page.getByTestId('path-input').fill('/');
  await expect(problem).toHaveCount(0);

  // A page opened on a bad link: the message, no file, no tab.
  await page.goto(`${server.origin}/?path=${encodeURIComponent(other)}&lines=0-x`);
  await expect(problem).toHaveText(/lines=0-x is not lines/);
  await expect(tabs(page)).toHaveCount(0);
  await page.goto(pageLink(other, '1000-1001'));
  await expect(problem).toHaveText(/lines 1000-1001 are past the end of .*other\.log \(900 lines\)/);
  await expect(tabs(page)).toHaveCount(0);
  // A page opened on a missing file: the viewer says why, and no tab stands for it.
  const missing = join(fixtures.dir, 'gone.log');
  await page.goto(pageLink(missing, '1-2'));
  await expect(page.getByTestId('file-info-error')).toContainText('not_found');
  await expect(tabs(page)).toHaveCount(0);
  // With no file open, a missing one typed in the path box: the message, still no tab; then a link opens the first tab.
  await openByPathBox(page, missing);
  await expect(problem).toContainText(/Cannot open .*gone\.log: .*\(not_found\)/);
  await expect(tabs(page)).toHaveCount(0);
  await openByPathBox(page, folioLink(other, '10-12'));
  await expect(tabs(page)).toHaveText(['other.log']);
  await expectLinesShown(page, other, 10, 12);
  // The missing file's file_info answers 404, which Chromium logs; nothing else may go wrong.
  expect(seen.problems.filter((p) => !p.includes('status of 404'))).toEqual([]);
});
