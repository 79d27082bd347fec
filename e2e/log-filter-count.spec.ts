/**
 * The filter view on a file with more passing lines than it lists (issue 17): the
 * rest of the file is counted while the list fills in, and neither adds a line
 * twice: the total is grep's count, the list is grep's first 10,000 lines in file
 * order, and scrolling to the end of the list fetches the next ones.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './app-test.ts';
import { makeFixtureDir } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { writeLogFixture, type LogFixture } from './log-fixture.ts';

const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

let fixtures: ReturnType<typeof makeFixtureDir>;
let server: FolioServe;
let log: LogFixture;

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  // ~24 MiB: past the first 8 MiB slice, with ~120,000 INFO lines.
  log = writeLogFixture(workspace, 'app.log', 24 * 1024 * 1024);
  server = await startFolioServe([log.path], { cwd: workspace, env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

/** The "N listed" of the filter's status. */
const listedOf = (status: string | null) => Number(/ · ([\d,]+) listed$/.exec(status ?? '')?.[1]?.replaceAll(',', '') ?? NaN);

test('filter with more passing lines than listed: total is grep -c, the list is grep in order', async ({ page }) => {
  await page.setViewportSize({ width: 1300, height: 900 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText(count(log.lines), { timeout: 30_000 });
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Filter view' });
  const status = panel.getByTestId('filter-status');
  const list = panel.getByRole('listbox', { name: 'Filtered lines' });
  await panel.getByRole('textbox', { name: 'Filter 1' }).fill('INFO');
  await panel.getByRole('textbox', { name: 'Filter 1' }).press('Enter');

  const grepped = execFileSync('grep', ['-n', 'INFO', log.path], { encoding: 'utf8', maxBuffer: 1 << 30 })
    .trimEnd()
    .split('\n')
    .map((row) => Number(row.slice(0, row.indexOf(':'))));
  expect(grepped.length).toBeGreaterThan(20_000);
  await expect(status).toHaveText(`${count(grepped.length)} lines · whole file searched · 10,000 listed`, { timeout: 30_000 });

  // The list's rows, in file order: the first ones, and the last of the 10,000 once scrolled there.
  const listedLines = () => list.getByRole('option').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-line'))));
  expect((await listedLines()).slice(0, 20)).toEqual(grepped.slice(0, 20));
  // Scrolled to the end, past the 10,000: the rows there are fetched (from a checkpoint counted down to), grep's last lines in order.
  await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect.poll(async () => (await listedLines()).at(-1), { timeout: 30_000 }).toBe(grepped.at(-1));
  // Rows in memory stay bounded (at most 12,000).
  expect(listedOf(await status.textContent())).toBeLessThanOrEqual(12_000);
  const tail = await listedLines();
  expect(tail.length).toBeGreaterThan(5);
  const from = grepped.indexOf(tail[0]!);
  expect(from).toBeGreaterThan(9_000);
  expect(tail).toEqual(grepped.slice(from, from + tail.length));
});
