/**
 * Marks in the merged view (issue 31), as an SRE in Chromium against `folio
 * serve`: a click in a merged row's mark lane marks that line in its own file (its
 * tab's Marks list shows it, text as sed prints it), `m` unmarks and marks the
 * selected row again, and a mark set in the file's tab shows in the merged view.
 */
import { expect, test, type Page } from './app-test.ts';
import { mergeOpenTabs, servedSteppedLogs } from './merged-helpers.ts';
import { watchPage } from './page-helpers.ts';
import { sedLine } from './sed.ts';

const served = servedSteppedLogs([
  { name: 'alpha', lines: 400, stepMs: 10 },
  { name: 'beta', lines: 300, stepMs: 13 },
]);

const tabs = (page: Page) => page.getByRole('tablist', { name: 'Open files' });
const markedRows = (page: Page) =>
  page
    .locator('[data-testid="merged-line"][data-marked]')
    .evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-path')}:${r.getAttribute('data-line')}`));

/** The Marks list of the file tab shown: the marked lines' texts. */
async function fileMarkTexts(page: Page): Promise<string[]> {
  const list = page.getByRole('list', { name: 'Marked lines' });
  if (!(await list.isVisible())) await page.getByRole('button', { name: 'Marks', exact: true }).click();
  return list.getByTestId('mark-text').allTextContents();
}

test('a merged row marks its line in its own file: the lane, m on the selected row, and back from the tab', async ({ page }) => {
  test.setTimeout(120_000);
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(served().server.url.href);
  const lines = await mergeOpenTabs(page, [served().logs[1]!]);
  await expect(tabs(page).getByRole('tab')).toHaveText(['alpha.log', 'beta.log', 'Merged (2 logs)']);

  // The lane of the 6th beta row: marked in beta.log, the row not opened.
  const beta = page.locator(`[data-testid="merged-line"][data-path="${served().logs[1]}"]`).nth(5);
  const betaLine = Number(await beta.getAttribute('data-line'));
  await beta.getByTestId('merged-mark').click();
  await expect.poll(() => markedRows(page)).toEqual([`${served().logs[1]}:${betaLine}`]);
  await expect(page.getByRole('tab', { selected: true })).toHaveText('Merged (2 logs)');
  await expect(beta.getByTestId('merged-mark')).toHaveText('●');

  // m on the selected row (the one just marked) unmarks it, and marks it again.
  await lines.press('m');
  await expect.poll(() => markedRows(page)).toEqual([]);
  await lines.press('m');
  await expect.poll(() => markedRows(page)).toEqual([`${served().logs[1]}:${betaLine}`]);

  // beta's tab lists it, its text as sed prints it; alpha's has none.
  await tabs(page).getByRole('tab', { name: 'beta.log' }).click();
  await expect.poll(() => fileMarkTexts(page)).toEqual([sedLine(served().logs[1]!, betaLine)]);
  // Marked in alpha's tab (the Marks list's own path: m on its first line), it shows in the merged view.
  await tabs(page).getByRole('tab', { name: 'alpha.log' }).click();
  await expect.poll(() => fileMarkTexts(page)).toEqual([]);
  await page.locator('[data-testid="file-view"] .view-line').first().click();
  await page.keyboard.press('m');
  await expect.poll(() => fileMarkTexts(page)).toEqual([sedLine(served().logs[0]!, 1)]);
  await tabs(page).getByRole('tab', { name: 'Merged (2 logs)' }).click();
  await expect.poll(() => markedRows(page)).toEqual([`${served().logs[0]}:1`, `${served().logs[1]}:${betaLine}`]); // alpha's line 1 is the merged view's first row
  expect(seen.problems).toEqual([]);
});
