/**
 * The viewer on a big generated log, in Chromium against `folio serve`: first
 * paint, go to a deep line (checked against `sed -n`), scrolling across windows by
 * wheel and keys, the whole-file scrollbar, and no request leaving 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { makeFixtureDir } from './fixtures.ts';
import { REPO_ROOT, startFolioServe, type FolioServe } from './folio-serve.ts';
import { logLineOf, writeLogFixture, type LogFixture } from './log-fixture.ts';
import { offHostOf, shownLinesOf, watchPage, type ShownLine } from './page-helpers.ts';

const ARTIFACTS = join(REPO_ROOT, 'e2e', 'artifacts');
/** 1 GiB by default (the target); FOLIO_E2E_LOG_BYTES picks another size. */
const LOG_BYTES = Number(process.env.FOLIO_E2E_LOG_BYTES ?? 1024 ** 3);
const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

let fixtures: ReturnType<typeof makeFixtureDir>;
let log: LogFixture;
let server: FolioServe;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  fixtures = makeFixtureDir();
  const workspace = join(fixtures.dir, 'ws');
  mkdirSync(workspace);
  const started = performance.now();
  log = writeLogFixture(workspace, 'big.log', LOG_BYTES);
  console.log(`[measure] generated ${count(log.size)} bytes, ${count(log.lines)} lines in ${Math.round(performance.now() - started)} ms`);
  server = await startFolioServe([log.path], { cwd: workspace, env: { FOLIO_CACHE_DIR: join(fixtures.dir, 'cache') } });
});

test.afterAll(async () => {
  await server?.stop();
  fixtures?.remove();
});

const sedLine = (lineNo: number) => execFileSync('sed', ['-n', `${lineNo}p`, log.path], { encoding: 'utf8' }).replace(/\n$/, '');

/** The painted rows are consecutive file lines, each with the file's own text. */
function expectTrueLines(shown: ShownLine[]) {
  expect(shown.length).toBeGreaterThan(10);
  shown.forEach((row, i) => {
    expect(row.lineNo, `row ${i}`).toBe(shown[0]!.lineNo + i);
    expect(row.text, `line ${row.lineNo}`).toBe(logLineOf(row.lineNo));
  });
}

async function waitForTop(page: Page, predicate: (top: number) => boolean, what: string): Promise<ShownLine[]> {
  let shown: ShownLine[] = [];
  await expect
    .poll(
      async () => {
        shown = await shownLinesOf(page);
        return shown[0] !== undefined && predicate(shown[0].lineNo);
      },
      { message: what },
    )
    .toBe(true);
  return shown;
}

test('the big log paints numbered as in the file; go to line 5,000,000 shows what sed -n shows', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 860 });
  const t0 = performance.now();
  await page.goto(server.url.href);
  await expect(page.locator('[data-testid="file-view"] .view-line').first()).toHaveText(logLineOf(1).replace(/ /g, '\u00a0'));
  console.log(`[measure] goto → first painted text: ${Math.round(performance.now() - t0)} ms (${count(log.size)} bytes)`);
  await expect(page.getByTestId('file-lines')).toHaveText(count(log.lines));
  expectTrueLines(await shownLinesOf(page));

  const deep = Math.min(5_000_000, log.lines - 100);
  const expected = sedLine(deep);
  const t1 = performance.now();
  await page.getByTestId('goto-input').fill(count(deep));
  await page.getByTestId('goto-input').press('Enter');
  const shown = await waitForTop(page, (top) => top <= deep && deep < top + 30, `line ${deep} in view`);
  console.log(`[measure] go to line ${count(deep)} → painted: ${Math.round(performance.now() - t1)} ms`);
  expect(shown.find((r) => r.lineNo === deep)?.text).toBe(expected);
  expectTrueLines(shown);
  await page.screenshot({ path: join(ARTIFACTS, 'viewer-big-log.png') });

  // Ctrl+G reaches the same box from the editor.
  await page.getByTestId('file-view').click();
  await page.keyboard.press('Control+g');
  await expect(page.getByTestId('goto-input')).toBeFocused();

  expect(seen.problems).toEqual([]);
  expect(offHostOf(seen.urls), 'requests that left 127.0.0.1').toEqual([]);
});

test('wheel and keys scroll across windows; line numbers continue and the text stays the file’s', async ({ page }) => {
  const seen = watchPage(page);
  await page.setViewportSize({ width: 1400, height: 860 });
  await page.goto(server.url.href);
  const start = Math.min(2_000_000, Math.floor(log.lines / 2));
  await page.getByTestId('goto-input').fill(String(start));
  await page.getByTestId('goto-input').press('Enter');
  await waitForTop(page, (top) => top <= start && start < top + 30, `line ${start} in view`);
  const reads = () => seen.urls.filter((u) => u.endsWith('/api/read')).length;
  const readsBefore = reads();

  // Wheel down across a few window edges, checking as we go. Monaco moves a few
  // lines per wheel event (as in VS Code); Alt is its fast-scroll modifier (×5).
  const editor = page.getByTestId('file-view');
  await editor.hover();
  await page.keyboard.down('Alt');
  let lastTop = start - 30;
  for (let step = 1; step <= 150; step++) {
    await page.mouse.wheel(0, 100);
    if (step % 30 === 0) {
      const shown = await waitForTop(page, (top) => top > lastTop, 'the view moves down');
      expectTrueLines(shown);
      lastTop = shown[0]!.lineNo;
    }
  }
  expect(lastTop).toBeGreaterThan(start + 1_500);
  expect(reads() - readsBefore, 'neighbouring windows were read').toBeGreaterThanOrEqual(2);

  // And back up past where we started.
  for (let step = 0; step < 170; step++) await page.mouse.wheel(0, -100);
  await page.keyboard.up('Alt');
  expectTrueLines(await waitForTop(page, (top) => top < start, 'the view moves back up past the start'));

  // Keys: PageDown moves the cursor and the view through a window edge too.
  await editor.click();
  const before = (await shownLinesOf(page))[0]!.lineNo;
  for (let i = 0; i < 150; i++) await page.keyboard.press('PageDown');
  const afterKeys = await waitForTop(page, (top) => top > before + 4_000, 'PageDown moves the view down');
  expectTrueLines(afterKeys);

  expect(seen.problems).toEqual([]);
  expect(offHostOf(seen.urls)).toEqual([]);
});

test('the FileScrollbar jumps by fraction and its thumb shows where the view is', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 860 });
  await page.goto(server.url.href);
  await expect(page.getByTestId('file-lines')).toHaveText(count(log.lines));
  const bar = page.getByTestId('file-scrollbar');
  const thumb = page.getByTestId('file-scrollbar-thumb');
  const box = (await bar.boundingBox())!;

  await bar.click({ position: { x: box.width / 2, y: box.height / 2 } });
  const half = await waitForTop(page, (top) => Math.abs(top - log.lines / 2) < log.lines * 0.02, 'top line near the middle of the file');
  expectTrueLines(half);
  const thumbBox = (await thumb.boundingBox())!;
  expect(Math.abs(thumbBox.y + thumbBox.height / 2 - (box.y + box.height / 2))).toBeLessThan(box.height * 0.03);

  // Drag the thumb to the bottom: the last lines of the file.
  await thumb.hover();
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.75, { steps: 5 });
  await page.mouse.move(box.x + box.width / 2, box.y + box.height + 40, { steps: 5 });
  await page.mouse.up();
  const end = await waitForTop(page, (top) => top > log.lines - 100, 'the last lines in view');
  expectTrueLines(end);
  expect(end[end.length - 1]!.lineNo).toBe(log.lines);
});
