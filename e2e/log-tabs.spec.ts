/**
 * Tabs (issue 17), as a user in Chromium against `folio serve`: files opened from
 * the path box, the recent list and a drop each get a tab; every tab keeps its own
 * view (top line, checked with sed), find and follow; × closes a tab and shows its
 * neighbour; Ctrl+Tab / Ctrl+Shift+Tab and Alt+PageDown / Alt+PageUp cycle.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test, type Page } from './app-test.ts';
import { writeTimedLog } from '../test/fixtures/timed-log.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { logLineOf } from './log-fixture.ts';
import { docsScreenshot, shownLinesOf, watchPage } from './page-helpers.ts';
import { sedLine } from './sed.ts';

const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;
let a: string;
let b: string;
let c: string;
const A_LINES = 50_000;
const B_LINES = 30_000;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  a = join(workspace, 'alpha.log');
  writeTimedLog(a, { lines: A_LINES });
  b = join(workspace, 'beta.log');
  writeFileSync(b, Array.from({ length: B_LINES }, (_, i) => logLineOf(i + 1) + '\n').join(''));
  c = join(workspace, 'gamma.log');
  writeFileSync(c, Array.from({ length: 500 }, (_, i) => logLineOf(i + 1) + '\n').join(''));
  server = await startFolioServe([a], {
    cwd: workspace,
    env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache'), FOLIO_CONFIG_DIR: join(fixtures.dir, 'config') },
  });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

const pageOf = (file: string) => `${server.url.href.replace(/&file=[^&]*/, '')}&file=${encodeURIComponent(file)}`;
const tabs = (page: Page) => page.getByRole('tablist', { name: 'Open files' }).getByRole('tab');

async function openByPathBox(page: Page, file: string) {
  await page.getByTestId('path-input').fill(file);
  await page.getByTestId('path-input').press('Enter');
}

async function goTo(page: Page, typed: string) {
  await page.getByLabel('Go to').fill(typed);
  await page.getByLabel('Go to').press('Enter');
}

/** The top painted line once the view has settled (the same for 300 ms). */
async function settledTop(page: Page): Promise<number> {
  let last = -1;
  let top = -2;
  await expect
    .poll(
      async () => {
        last = top;
        top = (await shownLinesOf(page))[0]?.lineNo ?? -2;
        return top > 0 && top === last;
      },
      { intervals: [300] },
    )
    .toBe(true);
  return top;
}

/** The top painted line once it is `lineNo`, checked against the file with sed. */
async function expectTop(page: Page, file: string, lineNo: number) {
  await expect.poll(async () => (await shownLinesOf(page))[0]?.lineNo, { message: `top line ${lineNo} of ${file}` }).toBe(lineNo);
  const shown = await shownLinesOf(page);
  for (const row of shown.slice(0, 10)) expect(row.text, `line ${row.lineNo}`).toBe(sedLine(file, row.lineNo));
}

test('each tab keeps its own view and find; the path box and the recent list open or show tabs', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(pageOf(a));
  await expect(page.getByTestId('file-lines')).toHaveText(count(A_LINES));
  await expect(tabs(page)).toHaveText(['alpha.log']);

  // Alpha: line 12,345 at the top, and a find.
  await goTo(page, '12345');
  await page.keyboard.press('Control+f');
  await page.getByTestId('find-input').fill('request 4242 ');
  await page.getByTestId('find-input').press('Enter');
  await expect(page.getByTestId('find-total')).toHaveText('1');
  const alphaTop = await settledTop(page);

  // Beta from the path box: a second tab, shown, with nothing of alpha's find.
  await openByPathBox(page, b);
  await expect(tabs(page)).toHaveText(['alpha.log', 'beta.log']);
  await expect(tabs(page).nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('file-lines')).toHaveText(count(B_LINES));
  await expect(page.getByTestId('find-panel')).toHaveCount(0);
  await goTo(page, '20000');
  await expect.poll(async () => (await shownLinesOf(page)).some((r) => r.lineNo === 20_000)).toBe(true);
  const betaTop = await settledTop(page);

  // Back to alpha by its tab: its lines where they were, its find as it was.
  await tabs(page).nth(0).click();
  await expect(page.getByTestId('file-lines')).toHaveText(count(A_LINES));
  await expectTop(page, a, alphaTop);
  await expect(page.getByTestId('find-input')).toHaveValue('request 4242 ');
  await expect(page.getByTestId('find-total')).toHaveText('1');

  // Beta again from the recent list: its tab is shown (no third tab), where it was.
  await page.getByTestId('recent-toggle').click();
  await page.getByTestId('recent-file').filter({ hasText: b }).click();
  await expect(tabs(page)).toHaveCount(2);
  await expect(tabs(page).nth(1)).toHaveAttribute('aria-selected', 'true');
  await expectTop(page, b, betaTop);
  await expect(page.getByTestId('find-panel')).toHaveCount(0);
  await docsScreenshot(page, 'log-tabs.png');
  expect(seen.problems).toEqual([]);
});

test('a drop opens a tab; keys cycle the tabs; × closes one and shows its neighbour', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(pageOf(a));
  await expect(page.getByTestId('file-lines')).toHaveText(count(A_LINES));
  await openByPathBox(page, b);
  await expect(page.getByTestId('file-lines')).toHaveText(count(B_LINES));
  await expect(page.getByTestId('channel')).toHaveText('live');
  await page.evaluate((uri) => {
    const transfer = new DataTransfer();
    transfer.setData('text/uri-list', uri);
    const target = document.querySelector('[data-testid="viewer"]')!;
    for (const type of ['dragenter', 'dragover', 'drop'])
      target.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, pathToFileURL(c).href);
  await expect(tabs(page)).toHaveText(['alpha.log', 'beta.log', 'gamma.log']);
  await expect(page.getByTestId('file-lines')).toHaveText(count(500));

  const shownName = async () => (await page.getByRole('tab', { selected: true }).textContent())!;
  await page.locator('[data-testid="file-view"] .view-lines').click();
  await page.keyboard.press('Control+Tab');
  await expect.poll(shownName).toBe('alpha.log');
  await expect(page.getByTestId('file-lines')).toHaveText(count(A_LINES));
  await page.keyboard.press('Control+Shift+Tab');
  await expect.poll(shownName).toBe('gamma.log');
  await page.keyboard.press('Alt+PageUp');
  await expect.poll(shownName).toBe('beta.log');
  await expect(page.getByTestId('file-lines')).toHaveText(count(B_LINES));
  await expectTop(page, b, 1);
  await page.keyboard.press('Alt+PageDown');
  await expect.poll(shownName).toBe('gamma.log');

  // Close gamma (shown): beta, before it, is shown. Close alpha (not shown): beta stays.
  await page.getByRole('button', { name: 'Close gamma.log' }).click();
  await expect(tabs(page)).toHaveText(['alpha.log', 'beta.log']);
  await expect.poll(shownName).toBe('beta.log');
  await expect(page.getByTestId('file-lines')).toHaveText(count(B_LINES));
  await page.getByRole('button', { name: 'Close alpha.log' }).click();
  await expect(tabs(page)).toHaveText(['beta.log']);
  await expect(page.getByRole('button', { name: /^Close / })).toHaveCount(0);
  await expectTop(page, b, 1);
});

test('follow is per tab: a followed tab shows lines appended while another tab was shown', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(pageOf(c));
  await expect(page.getByTestId('file-lines')).toHaveText(count(500));
  await page.getByRole('button', { name: 'Follow' }).click();
  await expect(page.getByRole('button', { name: 'Following' })).toBeVisible();
  await openByPathBox(page, a);
  await expect(page.getByTestId('file-lines')).toHaveText(count(A_LINES));
  await expect(page.getByRole('button', { name: 'Follow', exact: true })).toBeVisible();
  appendFileSync(c, Array.from({ length: 40 }, (_, i) => logLineOf(501 + i) + '\n').join(''));
  // Alpha is not following: it stays at its first line.
  await page.waitForTimeout(600);
  await expectTop(page, a, 1);
  await page.getByRole('tab', { name: 'gamma.log' }).click();
  await expect(page.getByRole('button', { name: 'Following' })).toBeVisible();
  await expect(page.getByTestId('file-lines')).toHaveText(count(540));
  await expect.poll(async () => (await shownLinesOf(page)).at(-1)?.lineNo).toBe(540);
  const last = (await shownLinesOf(page)).at(-1)!;
  expect(last.text).toBe(sedLine(c, 540));
});
