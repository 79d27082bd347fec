/**
 * An SRE opens a rotated, gzipped log in the app (issue 31 item 5): typed into the
 * path box, the first page (or the decompression's progress bar) shows before the
 * whole file is decompressed, the line count comes, and a line deep in the file
 * shows what `zcat | sed -n` prints. The log is generated as bytes
 * (e2e/log-fixture.ts) and gzipped by node:zlib at level 1.
 */
import { execSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { expect, test } from './app-test.ts';
import { DEEP } from '../test/fixtures/effort.ts';
import { makeFixtureDir, writeTextFixture } from './fixtures.ts';
import { startFolioServe, type FolioServe } from './folio-serve.ts';
import { logLineOf, writeLogFixture, type LogFixture } from './log-fixture.ts';
import { offHostOf, PAINT_POLL_INTERVALS, shownLinesOf, watchPage } from './page-helpers.ts';

/** 96 MiB of text per commit (about 1 s of zcat), 1 GiB in the deep run (FOLIO_DEEP=1). */
const LOG_BYTES = Number(process.env.FOLIO_E2E_GZ_LOG_BYTES ?? (DEEP ? 1024 ** 3 : 96 * 1024 ** 2));
const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

let fixtures: ReturnType<typeof makeFixtureDir>;
let log: LogFixture;
let gz: string;
let server: FolioServe;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(300_000);
  fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  log = writeLogFixture(workspace, 'app.log', LOG_BYTES);
  gz = `${log.path}.1.gz`;
  await pipeline(createReadStream(log.path), createGzip({ level: 1 }), createWriteStream(gz));
  // Only the .gz is left, as logrotate leaves it.
  rmSync(log.path);
  const start = writeTextFixture(workspace, 'README.txt', { lines: 5, newline: '\n', finalNewline: true });
  server = await startFolioServe([start.path], { cwd: workspace, env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

/** Line `lineNo` of the .gz as `zcat | sed -n` prints it (the independent reference). */
function zcatSed(lineNo: number): string {
  return execSync(`zcat '${gz}' | sed -n '${lineNo}{p;q}'`, { encoding: 'utf8', maxBuffer: 1 << 26 }).replace(/\n$/, '');
}

test('an SRE opens a .gz log by path: first page or progress at once, then a deep line as zcat | sed shows it', async ({ page }) => {
  test.setTimeout(300_000);
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 860 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-path')).toHaveText(/README\.txt$/);

  await page.getByTestId('path-input').fill(gz);
  await page.getByTestId('path-input').press('Enter');
  await expect(page.getByTestId('file-path')).toHaveText(gz);
  // Whichever comes first: the decompression's progress bar, or the first page (both come before the line count).
  const progress = page.getByTestId('indexing-progress');
  const firstRow = page.locator('[data-testid="file-view"] .view-line').first();
  await expect(progress.or(firstRow).first()).toBeVisible({ timeout: 60_000 });
  const sawProgress = await progress.isVisible();
  // While the cache fills, the bar says so (then the line index's own progress may follow).
  if (sawProgress) expect(await progress.textContent({ timeout: 2_000 }).catch(() => 'decompressing 0% of')).toMatch(/^(decompressing|indexing) \d+% of /);
  await expect(firstRow).toHaveText(logLineOf(1).replace(/ /g, '\u00a0'), { timeout: 120_000 });
  await expect(page.getByTestId('file-lines')).toHaveText(count(log.lines), { timeout: 240_000 });
  console.log(`[measure] ${count(statSync(gz).size)} bytes of gzip (${count(log.size)} of text): progress bar seen: ${sawProgress}`);

  const deep = Math.floor(log.lines * 0.83);
  const expected = zcatSed(deep);
  expect(expected).toBe(logLineOf(deep));
  await page.getByTestId('goto-input').fill(count(deep));
  await page.getByTestId('goto-input').press('Enter');
  let shown = await shownLinesOf(page);
  await expect
    .poll(
      async () => {
        shown = await shownLinesOf(page);
        return shown[0] !== undefined && shown[0].lineNo <= deep && deep < shown[0].lineNo + 30;
      },
      { message: `line ${deep} in view`, intervals: PAINT_POLL_INTERVALS, timeout: 60_000 },
    )
    .toBe(true);
  expect(shown.find((r) => r.lineNo === deep)?.text).toBe(expected);
  // Every row on screen is the line zcat | sed prints at its number.
  for (const row of shown.slice(0, 5)) expect(row.text, `line ${row.lineNo}`).toBe(zcatSed(row.lineNo));

  expect(seen.problems).toEqual([]);
  expect(offHostOf(seen.urls), 'requests that left 127.0.0.1').toEqual([]);
});
