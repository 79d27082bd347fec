/**
 * The merged view's keys (issue 31), as an SRE in Chromium against `folio serve`:
 * three logs merged (3,600 lines, eight windows of the view, more than it keeps in
 * memory), the arrows move the selected line, PageUp moves it a page, End and
 * Home take it to the last and first line, `m` marks it in its own file, and `u` /
 * `U` step from mark to mark across windows read on or back, with "no mark after
 * line N" past the last one. Every selected row is checked against
 * `LC_ALL=C sort -m -s -k1,1` over the files.
 */
import { execFileSync } from 'node:child_process';
import { basename } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import type { FolioServe } from './folio-serve.ts';
import { mergeOpenTabs, serveSteppedLogs, type SteppedLogs } from './merged-helpers.ts';
import { watchPage } from './page-helpers.ts';

let served: SteppedLogs;
let server: FolioServe;
let logs: string[];
let sorted: string[];

test.beforeAll(async () => {
  served = await serveSteppedLogs([
    { name: 'alpha', lines: 1500, stepMs: 10 },
    { name: 'beta', lines: 1200, stepMs: 13 },
    { name: 'gamma', lines: 900, stepMs: 17 },
  ]);
  ({ server, logs } = served);
  sorted = execFileSync('sort', ['-m', '-s', '-k1,1', ...logs], { env: { ...process.env, LC_ALL: 'C' }, encoding: 'utf8' })
    .replace(/\n$/, '')
    .split('\n');
});

test.afterAll(async () => {
  await served?.stop();
});

/** The selected row: its index in the view, its text, and the file line it names. */
async function selectedOf(page: Page): Promise<{ index: number; text: string; at: string } | null> {
  const row = page.locator('[data-testid="merged-line"][aria-selected="true"]');
  if ((await row.count()) === 0) return null;
  return {
    index: Number(await row.getAttribute('data-index')),
    text: (await row.locator('.merged-text').textContent()) ?? '',
    at: `${basename((await row.getAttribute('data-path')) ?? '')}:${await row.getAttribute('data-line')}`,
  };
}

/** What sort -m puts at index i: its text, and the file line it is (`[beta] request 12` is beta.log's line 12). */
function sortedAt(i: number) {
  const text = sorted[i]!;
  const [, name, line] = /\[(\w+)\] request (\d+)$/.exec(text)!;
  return { index: i, text, at: `${name}.log:${line}` };
}

test('arrows, pages, End and Home move the selected line; m marks it; u / U step from mark to mark across windows', async ({ page }) => {
  test.setTimeout(180_000);
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(server.url.href);
  const lines = await mergeOpenTabs(page, logs.slice(1));
  await expect(lines.getByTestId('merged-line').first()).toHaveAttribute('data-index', '0');
  expect(sorted).toHaveLength(3600);

  // ArrowDown selects the top line, then the ones below it; ArrowUp goes back.
  await lines.press('ArrowDown');
  await expect.poll(() => selectedOf(page)).toEqual(sortedAt(0));
  for (let i = 0; i < 4; i++) await lines.press('ArrowDown');
  await lines.press('ArrowUp');
  await expect.poll(() => selectedOf(page)).toEqual(sortedAt(3));
  await lines.press('m');
  await expect(lines.locator('[data-index="3"]')).toHaveAttribute('data-marked', 'true');

  // End: the last line, selected; two up, marked.
  await lines.press('End');
  await expect.poll(() => selectedOf(page)).toEqual(sortedAt(3599));
  await lines.press('ArrowUp');
  await lines.press('ArrowUp');
  await expect.poll(() => selectedOf(page)).toEqual(sortedAt(3597));
  await lines.press('m');
  await expect(lines.locator('[data-index="3597"]')).toHaveAttribute('data-marked', 'true');

  // PageUp ten times: the selection moves a page each time (windows read back); marked there.
  for (let i = 0; i < 10; i++) await lines.press('PageUp');
  const middle = await selectedOf(page);
  expect(middle!.index).toBeLessThan(3597 - 10 * 10);
  expect(middle).toEqual(sortedAt(middle!.index));
  await lines.press('m');
  await expect(lines.locator(`[data-index="${middle!.index}"]`)).toHaveAttribute('data-marked', 'true');

  // Home: the first line. u steps to each mark in view order, reading on through the windows.
  await lines.press('Home');
  await expect.poll(() => selectedOf(page)).toEqual(sortedAt(0));
  const status = page.getByTestId('merged-status');
  for (const want of [3, middle!.index, 3597]) {
    await lines.press('u');
    await expect.poll(() => selectedOf(page)).toEqual(sortedAt(want));
    await expect(lines.locator(`[data-index="${want}"]`)).toHaveAttribute('data-marked', 'true');
  }
  await lines.press('u');
  await expect(status).toHaveText('no mark after line 3598');
  expect(await selectedOf(page)).toEqual(sortedAt(3597));
  // U steps back, reading the windows dropped since.
  for (const want of [middle!.index, 3]) {
    await lines.press('Shift+U');
    await expect.poll(() => selectedOf(page)).toEqual(sortedAt(want));
  }
  await lines.press('Shift+U');
  await expect(status).toHaveText('no mark before line 4');
  // A move clears the notice.
  await lines.press('ArrowDown');
  await expect.poll(() => selectedOf(page)).toEqual(sortedAt(4));
  await expect(status).toContainText('lines ');
  expect(seen.problems).toEqual([]);
});
