/**
 * Follow mode on a growing log: with Follow on, lines appended to the file (by
 * another writer, fs.appendFileSync) appear at the bottom of the view with their
 * absolute line numbers; F in the viewer toggles it.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { BIN, startFolioServe, type FolioServe } from './folio-serve.ts';
import { offHostOf, shownLinesOf, watchPage } from './page-helpers.ts';

let fixtures: ReturnType<typeof makeFixtureDir>;
let file: string;
let server: FolioServe;

const lineText = (n: number) => `2024-05-01T10:00:00Z INFO [app] event=${n}`;
const linesFrom = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => lineText(first + i) + '\n').join('');

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  file = join(workspace, 'growing.log');
  writeFileSync(file, linesFrom(1, 50));
  server = await startFolioServe([file], { cwd: workspace, env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

/** The last painted row, once it is `lineNo` with its text (checked every 20 ms, so the measure below is not the poll's step). */
async function expectBottomRow(page: Page, lineNo: number) {
  await expect
    .poll(
      async () => {
        const shown = await shownLinesOf(page);
        return shown[shown.length - 1] ?? null;
      },
      { message: `line ${lineNo} at the bottom`, intervals: [20] },
    )
    .toEqual({ lineNo, text: lineText(lineNo) });
}

test('follow: appended lines appear at the bottom with absolute numbers; F toggles it', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1300, height: 700 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText('50');
  await expect(page.locator('[data-testid="file-view"] .view-line').first()).toBeVisible();

  await page.getByTestId('follow-toggle').click();
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'true');
  await expectBottomRow(page, 50);

  appendFileSync(file, linesFrom(51, 80));
  const appendedAt = performance.now();
  await expectBottomRow(page, 80);
  console.log(`[measure] follow: appended lines painted ${Math.round(performance.now() - appendedAt)} ms after the write`);
  await expect(page.getByTestId('file-lines')).toHaveText('80');

  // A bigger burst, past one window's worth of the old file.
  appendFileSync(file, linesFrom(81, 3_000));
  await expectBottomRow(page, 3_000);
  const shown = await shownLinesOf(page);
  shown.forEach((row, i) => expect(row).toEqual({ lineNo: shown[0]!.lineNo + i, text: lineText(shown[0]!.lineNo + i) }));

  // F in the viewer turns it off: later appends leave the view where it is.
  await page.getByTestId('file-view').click();
  await page.keyboard.press('f');
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'false');
  await page.getByTestId('goto-input').fill('1');
  await page.getByTestId('goto-input').press('Enter');
  await expect.poll(async () => (await shownLinesOf(page))[0]?.lineNo).toBe(1);
  appendFileSync(file, linesFrom(3_001, 3_010));
  await page.waitForTimeout(1_200);
  expect((await shownLinesOf(page))[0]?.lineNo).toBe(1);
  // And on again.
  await page.getByTestId('file-view').click();
  await page.keyboard.press('f');
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'true');
  await expectBottomRow(page, 3_010);

  expect(seen.problems).toEqual([]);
  expect(offHostOf(seen.urls)).toEqual([]);
});

test('without follow, an edit made outside the app (folio upsert in another process) shows where the view is', async ({ page }) => {
  const other = join(fixtures.dir, 'ws', 'edited.log');
  writeFileSync(other, linesFrom(1, 40));
  await page.setViewportSize({ width: 1300, height: 700 });
  await page.goto(`${server.url.href.replace(/&file=[^&]*/, '')}&file=${encodeURIComponent(other)}`);
  await expect(page.getByTestId('file-lines')).toHaveText('40');
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'false');
  await expect.poll(async () => (await shownLinesOf(page)).find((r) => r.lineNo === 3)?.text).toBe(lineText(3));

  const info = JSON.parse(execFileSync(process.execPath, [BIN, 'info', other, '--json'], { encoding: 'utf8' })) as { version: { etag: string } };
  execFileSync(process.execPath, [BIN, 'upsert', other, '--replace', '3-3', '--content', 'edited elsewhere', '--if-match', info.version.etag], {
    encoding: 'utf8',
  });
  const editedAt = performance.now();
  await expect.poll(async () => (await shownLinesOf(page)).find((r) => r.lineNo === 3)?.text, { intervals: [20], timeout: 5_000 }).toBe('edited elsewhere');
  console.log(`[measure] an outside edit shown (no follow): ${Math.round(performance.now() - editedAt)} ms after the write`);
  expect((await shownLinesOf(page))[0]?.lineNo).toBe(1);
});

test('follow: the newest line stays in view when the window gets shorter or the toolbar wraps', async ({ page }) => {
  await page.setViewportSize({ width: 1300, height: 700 });
  await page.goto(server.url.href);
  const total = Number(execFileSync('wc', ['-l', file], { encoding: 'utf8' }).trim().split(' ')[0]);
  await expect(page.getByTestId('file-lines')).toHaveText(new Intl.NumberFormat('en-US').format(total));
  await page.getByTestId('follow-toggle').click();
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'true');
  await expectBottomRow(page, total);
  // Shorter: the editor's height changes under a view scrolled to its bottom.
  await page.setViewportSize({ width: 1300, height: 420 });
  await expectBottomRow(page, total);
  // Narrower: the toolbar wraps onto more rows, and the editor below it shrinks again.
  await page.setViewportSize({ width: 640, height: 420 });
  await expectBottomRow(page, total);
});
