/**
 * Opening files in browser mode, as in the desktop app: the Recent menu (per
 * user, most recent first, missing files marked), Ctrl+O to the path box, and
 * dropping a file on the window (a file manager's file:// URI opens it; a bare
 * File, whose path a browser hides, gets a message).
 */
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test, type Page } from './app-test.ts';
import { makeFixtureDir, writeTextFixture } from './fixtures.ts';
import { REPO_ROOT, startFolioServe, type FolioServe } from './folio-serve.ts';
import { offHostOf, shownLinesOf, watchPage } from './page-helpers.ts';

let fixtures: ReturnType<typeof makeFixtureDir>;
let configDir: string;
let server: FolioServe;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  fixtures = makeFixtureDir();
  configDir = join(fixtures.dir, 'config');
  mkdirSync(join(fixtures.dir, 'ws'));
  server = await startFolioServe([], { cwd: join(fixtures.dir, 'ws'), env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache'), FOLIO_CONFIG_DIR: configDir } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

async function openByPath(page: Page, path: string): Promise<void> {
  await page.getByTestId('path-input').fill(path);
  await page.getByTestId('path-input').press('Enter');
  await expect(page.getByTestId('file-path')).toHaveText(path);
}

const recentPaths = (page: Page) => page.getByTestId('recent-file').locator('.file').allTextContents();

test('the Recent menu lists opened files most recent first, marks a vanished one, and opens the one clicked', async ({ page }) => {
  const seen = watchPage(page);
  const a = writeTextFixture(fixtures.dir, 'alpha.txt', { lines: 30, newline: '\n', finalNewline: true });
  const b = writeTextFixture(fixtures.dir, 'beta.txt', { lines: 40, newline: '\n', finalNewline: true });
  const gone = writeTextFixture(fixtures.dir, 'gone.txt', { lines: 5, newline: '\n', finalNewline: true });
  // The list holds real paths (the temp dir may sit behind a symlink).
  const [realA, realB, realGone] = [realpathSync(a.path), realpathSync(b.path), realpathSync(gone.path)];
  await page.goto(server.url.href);
  await page.getByTestId('recent-toggle').click();
  await expect(page.getByTestId('recent-list')).toContainText('No files opened yet');
  await page.getByTestId('recent-toggle').click();

  await openByPath(page, gone.path);
  await openByPath(page, a.path);
  await openByPath(page, b.path);
  rmSync(gone.path);
  await page.getByTestId('recent-toggle').click();
  await expect.poll(() => recentPaths(page)).toEqual([realB, realA, realGone]);
  await expect(page.getByTestId('recent-file').nth(2)).toHaveAttribute('data-missing', 'true');
  await expect(page.getByTestId('recent-file').nth(2)).toBeDisabled();
  await page.screenshot({ path: join(REPO_ROOT, 'e2e', 'artifacts', 'recent-menu.png') });

  await page.getByTestId('recent-file').nth(1).click();
  await expect(page.getByTestId('file-path')).toHaveText(realA);
  await expect(page.getByTestId('file-lines')).toHaveText('30');
  await expect(page.getByTestId('path-input')).toHaveValue(realA);
  await expect(page.getByTestId('recent-list')).toHaveCount(0);
  // Reopening moved it first; the list is kept per user on disk.
  await page.getByTestId('recent-toggle').click();
  await expect.poll(() => recentPaths(page)).toEqual([realA, realB, realGone]);
  const stored = JSON.parse(readFileSync(join(configDir, 'recent.json'), 'utf8')) as { entries: { path: string }[] };
  expect(stored.entries.map((e) => e.path)).toEqual([realA, realB, realGone]);
  expect(seen.problems).toEqual([]);
  expect(offHostOf(seen.urls)).toEqual([]);
});

test('Ctrl+O puts the cursor in the path box', async ({ page }) => {
  await page.goto(server.url.href);
  await page.locator('body').click();
  await expect(page.getByTestId('path-input')).not.toBeFocused();
  await page.keyboard.press('Control+o');
  await expect(page.getByTestId('path-input')).toBeFocused();
});

/** Dispatches dragover and drop on the viewer with a DataTransfer built in the page. */
async function drop(page: Page, data: { uriList?: string; plain?: string; fileName?: string }): Promise<void> {
  // The app mounts after the page's load event; 'live' comes from an effect that runs after FileDropZone's listener is on.
  await expect(page.getByTestId('channel')).toHaveText('live');
  await page.evaluate((d) => {
    const transfer = new DataTransfer();
    if (d.uriList !== undefined) transfer.setData('text/uri-list', d.uriList);
    if (d.plain !== undefined) transfer.setData('text/plain', d.plain);
    if (d.fileName !== undefined) transfer.items.add(new File(['some bytes\n'], d.fileName, { type: 'text/plain' }));
    const target = document.querySelector('[data-testid="viewer"]');
    if (!target) throw new Error('no viewer');
    target.dispatchEvent(new DragEvent('dragenter', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, data);
}

test('dropping a file manager’s file:// URI opens that file and shows its text', async ({ page }) => {
  const seen = watchPage(page);
  const dir = join(fixtures.dir, 'drop here');
  mkdirSync(dir);
  const file = join(dir, 'dropped é #1.txt');
  writeFileSync(file, 'first dropped line\nsecond dropped line\n');
  await page.goto(server.url.href);
  // As Nautilus sends it: a comment line, then the URI (spaces and non-ASCII percent-encoded).
  await drop(page, { uriList: `# from a file manager\r\n${pathToFileURL(file).href}\r\n` });
  await expect(page.getByTestId('file-path')).toHaveText(file);
  await expect.poll(async () => (await shownLinesOf(page)).map((l) => l.text)).toEqual(['first dropped line', 'second dropped line']);
  await expect(page.getByTestId('drop-message')).toHaveCount(0);

  // Some apps put the URI only in text/plain.
  const other = writeTextFixture(fixtures.dir, 'plain.txt', { lines: 12, newline: '\n', finalNewline: true });
  await drop(page, { plain: pathToFileURL(other.path).href });
  await expect(page.getByTestId('file-path')).toHaveText(other.path);
  await expect(page.getByTestId('file-lines')).toHaveText('12');
  expect(seen.problems).toEqual([]);
});

test('dropping only a File (no path a browser can see) says why instead of opening anything', async ({ page }) => {
  const seen = watchPage(page);
  const shown = writeTextFixture(fixtures.dir, 'shown.txt', { lines: 3, newline: '\n', finalNewline: true });
  await page.goto(`${server.url.href}&file=${encodeURIComponent(shown.path)}`);
  await expect(page.getByTestId('file-path')).toHaveText(shown.path);
  await drop(page, { fileName: 'from-desktop.txt' });
  await expect(page.getByTestId('drop-message')).toContainText('A browser does not tell a page where a dropped file is on disk');
  await expect(page.getByTestId('file-path')).toHaveText(shown.path);
  await page.getByTestId('drop-message').getByRole('button', { name: 'Dismiss' }).click();
  await expect(page.getByTestId('drop-message')).toHaveCount(0);
  expect(seen.problems).toEqual([]);
});
