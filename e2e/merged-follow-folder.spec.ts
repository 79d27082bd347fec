/**
 * Following a merged folder (issue 31), as an SRE in Chromium against `folio
 * serve`: a folder of two logs merged through the Merge… dialog, f pressed; a
 * third log that appears in the folder joins the view (its tab says 3 logs, its
 * lines come in time order), and a log rotated as logrotate does (renamed away,
 * made anew, written on) or cut in place (copytruncate) goes on in the view with
 * no error: the rows shown at the end are `LC_ALL=C sort -m -s -k1,1` over the
 * folder's files as they are then.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, test, type Page } from './app-test.ts';
import type { FolioServe } from './folio-serve.ts';
import { serveSteppedLogs, type SteppedLogs } from './merged-helpers.ts';
import { watchPage } from './page-helpers.ts';

let served: SteppedLogs;
let server: FolioServe;
let folder: string;

test.beforeAll(async () => {
  served = await serveSteppedLogs([
    { name: 'alpha', lines: 300, stepMs: 10 },
    { name: 'beta', lines: 200, stepMs: 13 },
  ]);
  server = served.server;
  folder = dirname(served.logs[0]!);
});

test.afterAll(async () => {
  await served?.stop();
});

/** sort -m over the folder's logs now, by name (as merge_files takes them). */
function sortedNow(): string[] {
  const files = readdirSync(folder)
    .filter((f) => f.includes('.log'))
    .sort()
    .map((f) => join(folder, f));
  return execFileSync('sort', ['-m', '-s', '-k1,1', ...files], { env: { ...process.env, LC_ALL: 'C' }, encoding: 'utf8' })
    .replace(/\n$/, '')
    .split('\n');
}

const shownTexts = (page: Page) => page.getByTestId('merged-line').evaluateAll((rows) => rows.map((r) => r.querySelector('.merged-text')?.textContent ?? ''));

/** `n` lines of `name` from `startIso` on, 20 ms apart. */
function linesOf(name: string, startIso: string, n: number, from = 1): string {
  const start = Date.parse(startIso);
  return Array.from({ length: n }, (_, i) => `${new Date(start + i * 20).toISOString()} INFO [${name}] later ${from + i}\n`).join('');
}

test('a followed folder takes in a log that appears, and goes on through a rotation', async ({ page }) => {
  test.setTimeout(120_000);
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(server.url.href);
  await page.getByRole('button', { name: 'Merge tabs' }).click();
  await page.getByLabel('Folder or glob to merge').fill(folder);
  await page.getByLabel('Folder or glob to merge').press('Enter');
  await expect(page.getByRole('tab', { selected: true })).toHaveText('Merged (2 logs)');
  const lines = page.getByRole('listbox', { name: 'Merged lines' });
  await lines.press('f');
  await expect.poll(async () => (await shownTexts(page)).at(-1)).toBe(sortedNow().at(-1));

  // A new log in the folder, stamped after the others: it joins the view, which stays at its end.
  writeFileSync(join(folder, 'gamma.log'), linesOf('gamma', '2024-05-01T10:00:10.000Z', 40));
  await expect(page.getByRole('tab', { selected: true })).toHaveText('Merged (3 logs)', { timeout: 20_000 });
  await expect(page.getByRole('list', { name: 'Merged files' }).getByRole('listitem')).toHaveText(['alpha.log', 'beta.log', 'gamma.log']);
  await expect.poll(async () => (await shownTexts(page)).at(-1), { timeout: 20_000 }).toBe(sortedNow().at(-1));

  // logrotate: alpha.log renamed to alpha.log.1, a new alpha.log written on. No error; the new lines come.
  renameSync(join(folder, 'alpha.log'), join(folder, 'alpha.log.1'));
  writeFileSync(join(folder, 'alpha.log'), linesOf('alpha', '2024-05-01T10:00:20.000Z', 10));
  appendFileSync(join(folder, 'alpha.log'), linesOf('alpha', '2024-05-01T10:00:21.000Z', 10, 11));
  await expect.poll(async () => (await shownTexts(page)).at(-1), { timeout: 20_000 }).toBe(sortedNow().at(-1));
  const want = sortedNow();
  const shown = await shownTexts(page);
  expect(shown.length).toBeGreaterThan(20);
  expect(shown).toEqual(want.slice(want.length - shown.length));
  await expect(page.getByTestId('merged-status')).not.toContainText('changed since');

  // copytruncate: gamma.log cut in place and written on past where the view's cursor was in it (no new name in
  // the folder). First 600 more lines of beta, so the view's last window starts from a cursor, not from a time.
  appendFileSync(join(folder, 'beta.log'), linesOf('beta', '2024-05-01T10:00:25.000Z', 600));
  await expect.poll(async () => (await shownTexts(page)).at(-1), { timeout: 20_000 }).toBe(sortedNow().at(-1));
  writeFileSync(join(folder, 'gamma.log'), linesOf('gamma', '2024-05-01T10:00:40.000Z', 80));
  await expect.poll(async () => (await shownTexts(page)).at(-1), { timeout: 20_000 }).toBe(sortedNow().at(-1));
  const after = sortedNow();
  const end = await shownTexts(page);
  expect(end).toEqual(after.slice(after.length - end.length));
  await expect(page.getByTestId('merged-status')).not.toContainText('changed since');
  await expect(page.getByRole('button', { name: 'Follow merged view' })).toHaveAttribute('aria-pressed', 'true');
  // The one problem the page logs is that conflict's answer, which the view recovered from.
  expect(seen.problems.length).toBeGreaterThan(0);
  expect(seen.problems.every((p) => p.includes('status of 409'))).toBe(true);
});
