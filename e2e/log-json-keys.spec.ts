/**
 * JSON inside a log line, by key and by button alike (issue 31 item 3): `j` after a
 * click on a `payload={…}` line, in Monaco and in the plain rows painted before it;
 * the same on a growing log in follow mode, on a line appended while open. Checked
 * against the file's own bytes (sed), never against the app's parse.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { PAINT_POLL_INTERVALS, shownLinesOf, watchPage } from './page-helpers.ts';
import { sedLine } from './sed.ts';

let fixtures: ReturnType<typeof makeFixtureDir>;
let workspace: string;
let server: FolioServe;
let log: string;
let growing: string;
/** A `TIMESTAMP LEVEL [thread] … payload={…}` line: brackets before the JSON, as real logs have them. */
const payloadLine = (n: number) =>
  `2026-11-29T10:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}Z INFO [worker-${n % 4}] request done payload={"a":${n},"tags":["x","y"],"user":{"name":"ann"}}`;
const linesFrom = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => payloadLine(first + i) + '\n').join('');

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  log = join(workspace, 'payload.log');
  writeFileSync(log, linesFrom(1, 200));
  growing = join(workspace, 'growing.log');
  writeFileSync(growing, linesFrom(1, 40));
  server = await startFolioServe([log], {
    cwd: workspace,
    env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache'), FOLIO_CONFIG_DIR: join(fixtures.dir, 'config') },
  });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

const pageOf = (file: string) => `${server.url.href.replace(/&file=[^&]*/, '')}&file=${encodeURIComponent(file)}`;

/** The pretty JSON of the `{…}` after `payload=` in the file's line `lineNo`, as sed reads it. */
function prettyPayloadOf(file: string, lineNo: number): string {
  const line = sedLine(file, lineNo);
  return JSON.stringify(JSON.parse(line.slice(line.indexOf('payload=') + 'payload='.length)), null, 2);
}

/** Click line `lineNo`'s text in Monaco until the cursor is on it (a layout shift between measuring and clicking moves the rows). */
async function clickLine(page: Page, lineNo: number) {
  await expect(async () => {
    const box = await page.evaluate((n) => {
      const view = document.querySelector('[data-testid="file-view"]')!;
      const number = [...view.querySelectorAll('.margin-view-overlays .line-numbers')].find((el) => el.textContent?.trim() === String(n));
      if (!number) return null;
      const nb = number.getBoundingClientRect();
      return { y: nb.top + nb.height / 2, x: view.querySelector('.view-lines')!.getBoundingClientRect().left + 30 };
    }, lineNo);
    expect(box, `line ${lineNo} on screen`).not.toBeNull();
    await page.mouse.click(box!.x, box!.y);
    await expect(page.locator('[data-testid="file-view"] .line-numbers.active-line-number')).toHaveText(String(lineNo), { timeout: 2000 });
  }).toPass();
}

async function expectJsonOf(page: Page, file: string, lineNo: number) {
  const panel = page.getByRole('region', { name: 'JSON of the line' });
  await expect(panel.getByTestId('json-title')).toHaveText(`Line ${lineNo} as JSON`);
  // The answer or the error, whichever shows: a failure names what the panel said.
  await expect(panel.getByTestId(/^json-(text|error)$/)).toHaveText(prettyPayloadOf(file, lineNo), { useInnerText: true });
}

test('j after a click on a payload={…} line in Monaco shows the payload pretty-printed', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1300, height: 800 });
  await page.goto(pageOf(log));
  await expect(page.getByTestId('plain-lines')).toHaveCount(0);
  await clickLine(page, 5);
  await page.keyboard.press('j');
  await expectJsonOf(page, log, 5);
  // The button reads the same line.
  await clickLine(page, 9);
  await page.getByRole('button', { name: 'JSON', exact: true }).click();
  await expectJsonOf(page, log, 9);
  expect(seen.problems).toEqual([]);
});

test('on a growing log in follow mode, j and the JSON button on a freshly appended line show its payload', async ({ page }) => {
  await page.setViewportSize({ width: 1300, height: 700 });
  await page.goto(pageOf(growing));
  await expect(page.getByTestId('file-lines')).toHaveText('40');
  await expect(page.getByTestId('plain-lines')).toHaveCount(0);
  await page.getByTestId('follow-toggle').click();
  await expect(page.getByTestId('follow-toggle')).toHaveAttribute('aria-pressed', 'true');

  appendFileSync(growing, linesFrom(41, 60));
  await expect.poll(async () => (await shownLinesOf(page)).at(-1), { intervals: PAINT_POLL_INTERVALS }).toEqual({ lineNo: 60, text: payloadLine(60) });
  await clickLine(page, 58);
  await page.keyboard.press('j');
  await expectJsonOf(page, growing, 58);
  await clickLine(page, 60);
  await page.getByRole('button', { name: 'JSON', exact: true }).click();
  await expectJsonOf(page, growing, 60);
});
