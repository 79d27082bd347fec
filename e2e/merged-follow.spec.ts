/**
 * Follow on the merged view (issue 31), as an SRE in Chromium against `folio
 * serve`: two logs merged, `f` takes the view to its end, a real writer (a bash
 * child process) appends stamped lines to both files, and the view's rows come to
 * be the last lines of `LC_ALL=C sort -m -s -k1,1` over the grown files; reading
 * back (ArrowUp, which selects the line above) stops follow.
 */
import { execFileSync, spawn } from 'node:child_process';
import { expect, test, type Page } from './app-test.ts';
import { servedSteppedLogs } from './merged-helpers.ts';
import { watchPage } from './page-helpers.ts';

const served = servedSteppedLogs([
  { name: 'alpha', lines: 700, stepMs: 10 },
  { name: 'beta', lines: 500, stepMs: 13 },
]);

const sortedNow = () =>
  execFileSync('sort', ['-m', '-s', '-k1,1', ...served().logs], { env: { ...process.env, LC_ALL: 'C' }, encoding: 'utf8' })
    .replace(/\n$/, '')
    .split('\n');

const shownTexts = (page: Page) => page.getByTestId('merged-line').evaluateAll((rows) => rows.map((r) => r.querySelector('.merged-text')?.textContent ?? ''));

/** A writer: `rounds` times a line to alpha, then one to beta, stamped with the time of writing. */
function runWriter(rounds: number): Promise<number | null> {
  const script = `for i in $(seq 1 ${rounds}); do
    echo "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) WARN [alpha] appended $i" >> "$1"
    echo "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) WARN [beta] appended $i" >> "$2"
    sleep 0.02
  done`;
  const child = spawn('bash', ['-c', script, 'writer', served().logs[0]!, served().logs[1]!], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', resolve);
  });
}

test('f follows the merged view: a writer appends to both files, the view ends as sort -m of the grown files', async ({ page }) => {
  test.setTimeout(120_000);
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.goto(served().server.url.href);
  await page.getByTestId('path-input').fill(served().logs[1]!);
  await page.getByTestId('path-input').press('Enter');
  await expect(page.getByRole('tablist', { name: 'Open files' }).getByRole('tab')).toHaveText(['alpha.log', 'beta.log']);
  await page.getByRole('button', { name: 'Merge tabs' }).click();
  await page.getByRole('form', { name: 'Logs to merge' }).getByRole('button', { name: 'Open merged view' }).click();
  const lines = page.getByRole('listbox', { name: 'Merged lines' });
  const before = sortedNow();
  await expect.poll(async () => (await shownTexts(page))[0]).toBe(before[0]);

  // f: to the end (three windows of 500 on), following.
  await lines.press('f');
  const follow = page.getByRole('button', { name: 'Follow merged view' });
  await expect(follow).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(async () => (await shownTexts(page)).at(-1)).toBe(before.at(-1));
  await expect(page.getByTestId('merged-status')).toContainText(`of ${before.length}`);

  // A real writer appends to both files; the first new line shows while it writes.
  const done = runWriter(60);
  await expect.poll(async () => (await shownTexts(page)).some((t) => t.includes(' appended '))).toBe(true);
  expect(await done).toBe(0);
  const after = sortedNow();
  expect(after.length).toBe(before.length + 120);
  await expect.poll(async () => (await shownTexts(page)).at(-1), { timeout: 20_000 }).toBe(after.at(-1));
  const shown = await shownTexts(page);
  expect(shown.length).toBeGreaterThan(20);
  expect(shown).toEqual(after.slice(after.length - shown.length));
  await expect(page.getByTestId('merged-status')).toContainText(`of ${after.length}`);

  // Reading back stops follow: ArrowUp selects the last line, then the one above it; f again goes to the end.
  const selectedText = () => page.locator('[data-testid="merged-line"][aria-selected="true"] .merged-text').textContent();
  await lines.press('ArrowUp');
  await expect(follow).toHaveAttribute('aria-pressed', 'false');
  await expect.poll(selectedText).toBe(after.at(-1));
  await lines.press('ArrowUp');
  await expect.poll(selectedText).toBe(after.at(-2));
  await lines.press('f');
  await expect.poll(async () => (await shownTexts(page)).at(-1)).toBe(after.at(-1));
  expect(seen.problems).toEqual([]);
});
