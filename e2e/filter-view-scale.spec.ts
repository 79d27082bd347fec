/**
 * The filter view past a browser's height limit (issue 31 item 4), as an SRE in
 * Chromium against `folio serve`: 600,000 matching lines are 11.4 million px of
 * 19 px rows, past what the list scrolls unscaled (8 million), so the scrollbar
 * maps onto the rows: scrolled to its end it shows the last match (grep | tail
 * -1), to its middle the matches there, each row's line and text as sed prints
 * them, and End from the keyboard the last again. Before, the list was cut at the
 * browser's limit and the end of a 1 GiB log's filter could not be reached.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Locator } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { sedLines } from './sed.ts';

const LINES = 600_000;
let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;
let log: string;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  log = join(fixtures.dir, 'many.log');
  const fd = openSync(log, 'w');
  try {
    for (let i = 1; i <= LINES; i += 10_000) {
      let chunk = '';
      for (let j = i; j < i + 10_000; j++) chunk += `2024-05-01T10:00:00Z ${j % 50 === 0 ? 'WARN' : 'INFO'} n=${j}\n`;
      writeSync(fd, chunk);
    }
  } finally {
    closeSync(fd);
  }
  server = await startFolioServe([log], { env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

/** The rows drawn in view, as "line:text", top to bottom. */
async function rowsInView(list: Locator): Promise<string[]> {
  return list.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return [...el.querySelectorAll('[data-testid="filter-row"]')]
      .filter((r) => {
        const b = r.getBoundingClientRect();
        return b.top >= box.top - 1 && b.bottom <= box.bottom + 1;
      })
      .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)
      .map((r) => `${r.getAttribute('data-line')}:${r.querySelector('.text')?.textContent ?? ''}`);
  });
}

/** sed's lines from..to as "line:text". */
const sedRows = (from: number, to: number) => sedLines(log, from, to).map((text, i) => `${from + i}:${text}`);

test('600,000 matches scroll end to end: the last, the middle and End show what sed shows there', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1300, height: 900 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText(LINES.toLocaleString('en-US'), { timeout: 60_000 });
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Filter view' });
  const list = panel.getByRole('listbox', { name: 'Filtered lines' });
  await panel.getByRole('textbox', { name: 'Filter expression' }).fill('INFO OR WARN');
  await panel.getByRole('textbox', { name: 'Filter expression' }).press('Enter');
  await expect(panel.getByTestId('filter-status')).toHaveText(/^600,000 lines · whole file searched/, { timeout: 60_000 });
  const scroll = await list.evaluate((el) => ({ height: el.scrollHeight, view: el.clientHeight }));
  expect(scroll.height).toBeLessThanOrEqual(8_000_000);

  // The end of the scrollbar: the last match on the last row.
  await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect.poll(async () => (await rowsInView(list)).at(-1), { timeout: 30_000 }).toBe(sedRows(LINES, LINES)[0]);
  const end = await rowsInView(list);
  expect(end.length).toBeGreaterThan(10);
  expect(end).toEqual(sedRows(LINES - end.length + 1, LINES));

  // The middle: consecutive matches around line 300,000, as sed prints them.
  await list.evaluate((el) => (el.scrollTop = (el.scrollHeight - el.clientHeight) / 2));
  await expect.poll(async () => Number((await rowsInView(list))[0]?.split(':')[0]), { timeout: 30_000 }).toBeGreaterThan(LINES / 2 - 100);
  const middle = await rowsInView(list);
  const firstLine = Number(middle[0]!.split(':')[0]);
  expect(firstLine).toBeLessThan(LINES / 2 + 100);
  expect(middle).toEqual(sedRows(firstLine, firstLine + middle.length - 1));

  // Home and End from the keyboard.
  await list.focus();
  await list.press('Home');
  await expect.poll(async () => (await rowsInView(list))[0], { timeout: 30_000 }).toBe(sedRows(1, 1)[0]);
  await list.press('End');
  await expect.poll(async () => (await rowsInView(list)).at(-1), { timeout: 30_000 }).toBe(sedRows(LINES, LINES)[0]);
  await expect(list.locator('[aria-selected="true"]')).toHaveAttribute('data-line', String(LINES));
});
